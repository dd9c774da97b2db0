package claims

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBoundCatchesEdits makes the edits an audit of the evidence tried,
// each to a copy of a small project, and checks that each changes what
// Bind finds, so that TestNumbersBound fails on it: two numbers swapped,
// another row's value quoted, an integer and a duration perturbed, in a
// paragraph with a folder link and in one without.
func TestBoundCatchesEdits(t *testing.T) {
	readme := "# x\n\n" +
		"The slice is 1.09ms at timeslice=1000 and 2.09ms at 2000; 357 to 373 switches ([slice](results/2026-11-30-vm-x/)).\n\n" +
		"A build took 6m36s over 20 rounds; 36/36 runs passed, 4 times.\n"
	claimsTSV := "id\tfile\tbase\tunit\tbench\tvariant\tfield\tquoted\n" +
		"a\ts.txt\t-\t-\ta ([0-9.]+)\t-\tmatch\t1.09ms\n" +
		"b\ts.txt\t-\t-\tb ([0-9.]+)\t-\tmatch\t2.09ms\n" +
		"c\ts.txt\t-\t-\tc ([0-9.]+)\t-\tmatch\t5.11ms\n" +
		"lo\ts.txt\t-\t-\tlo ([0-9]+)\t-\tmatch\t357\n" +
		"hi\ts.txt\t-\t-\thi ([0-9]+)\t-\tmatch\t373\n"
	setup := func(text string) string { return boundProject(t, claimsTSV, text) }
	bind := func(root string) []Bound { return bindProject(t, root) }
	base := bind(setup(readme))
	for _, b := range base {
		if b.Quote == "1.09ms" && b.Binding != "claim 2026-11-30-vm-x/a" || b.Quote == "373" && b.Binding != "claim 2026-11-30-vm-x/hi" || b.Quote == "1000" && b.Binding != "knob" {
			t.Errorf("%s bound as %q", b.Quote, b.Binding)
		}
	}
	for name, edit := range map[string][2]string{
		"swap two numbers":       {"1.09ms at timeslice=1000 and 2.09ms", "2.09ms at timeslice=1000 and 1.09ms"},
		"another row's value":    {"2.09ms at 2000", "5.11ms at 2000"},
		"integer, linked":        {"357 to 373", "357 to 372"},
		"duration, unlinked":     {"6m36s", "6m37s"},
		"integer, unlinked":      {"20 rounds", "21 rounds"},
		"count, unlinked":        {"36/36", "35/36"},
		"times, unlinked":        {"4 times", "5 times"},
		"setting, linked":        {"timeslice=1000", "timeslice=100"},
		"number added, unlinked": {"over 20 rounds", "over 20 rounds of 3"},
	} {
		if !strings.Contains(readme, edit[0]) {
			t.Fatalf("%s: %q not in the text", name, edit[0])
		}
		now := bind(setup(strings.Replace(readme, edit[0], edit[1], 1)))
		if d := DiffBound(base, now); len(d) == 0 {
			t.Errorf("%s: the edit passes", name)
		}
	}
	if d := DiffBound(base, bind(setup(readme))); len(d) != 0 {
		t.Errorf("unchanged text differs: %v", d)
	}
	// A new number nothing binds is refused by -update; one that an old
	// list had unbound in the same document is kept.
	now := bind(setup(strings.Replace(readme, "4 times", "4 times and 9 more", 1)))
	nu := NewUnbound(base, now)
	if len(nu) != 1 || nu[0].Quote != "9" {
		t.Errorf("NewUnbound = %v, want the 9", nu)
	}
}

// TestBindPrefersTheNamedClaim: where two claims quote the same value,
// the number binds to the one written as the paragraph writes it (a ±
// limit is not a share), then to the one whose benchmark or variant the
// paragraph names, whatever their order in claims.tsv.
func TestBindPrefersTheNamedClaim(t *testing.T) {
	claimsTSV := "id\tfile\tbase\tunit\tbench\tvariant\tfield\tquoted\n" +
		"limit\tb.txt\tbind1\tsec/op\t-\tbind1-mem2\tmaxlimit\t±43.1%\n" +
		"share\tb.txt\tstock\tlocal-steal-share\tBurstyProducer-8\trandom\tpercent\t43.1%\n" +
		"other\tb.txt\tstock\tsec/op\tForkJoinTree-8\tbind2\tpct\t+5.0%\n" +
		"named\tb.txt\tstock\tsec/op\tTimerStorm-8\tbind1\tpct\t+5.0%\n"
	bs := bindProject(t, boundProject(t, claimsTSV, "# x\n\n"+
		"BurstyProducer keeps 43.1% of its steals local ([x](results/2026-11-30-vm-x/)).\n\n"+
		"`bind1-mem2` could have missed ±43.1%, and 43.1% with upstream's random order ([x](results/2026-11-30-vm-x/)).\n\n"+
		"TimerStorm is +5.0% with `bind1` ([x](results/2026-11-30-vm-x/)).\n"))
	want := []string{"share", "limit", "share", "named"}
	var got []string
	for _, b := range bs {
		if b.Doc == "README.md" && strings.HasPrefix(b.Binding, "claim ") {
			got = append(got, strings.TrimPrefix(b.Binding, "claim 2026-11-30-vm-x/"))
		}
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("bound to %v, want %v", got, want)
	}
}

// boundProject writes a small project: one results folder,
// 2026-11-30-vm-x, with claimsTSV as its claims, and readme as its
// README. It returns the project's root.
func boundProject(t *testing.T, claimsTSV, readme string) string {
	t.Helper()
	root := t.TempDir()
	dir := filepath.Join(root, "results", "2026-11-30-vm-x")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, ClaimsFile), []byte(claimsTSV), 0o644)
	os.WriteFile(filepath.Join(dir, "FINDINGS.md"), []byte("# F\n\nNothing.\n"), 0o644)
	os.WriteFile(filepath.Join(root, "README.md"), []byte(readme), 0o644)
	return root
}

// bindProject binds the numbers of the project at root.
func bindProject(t *testing.T, root string) []Bound {
	t.Helper()
	cs, err := ByFolder(root)
	if err != nil {
		t.Fatal(err)
	}
	bs, err := Bind(root, cs)
	if err != nil {
		t.Fatal(err)
	}
	return bs
}
