package results

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestWriteHandRun checks both kinds of hand-run metadata: a run
// recorded now probes the machine and the checkout; a backfill records
// where its fields came from and probes neither; an existing file is
// kept unless forced.
func TestWriteHandRun(t *testing.T) {
	root := repoRoot(t)
	dir := t.TempDir()
	now := time.Date(2026, 12, 1, 21, 0, 0, 0, time.UTC)
	m, err := WriteHandRun(root, dir, HandRun{Command: "make test-prefixes", Series: "abc", Finished: now, Complete: true}, false)
	if err != nil {
		t.Fatal(err)
	}
	if m.Project.Commit == "" || m.Project.Commit == "unknown" || m.Machine.GOOS == "" {
		t.Errorf("a run recorded now: project %+v, machine %+v; want both probed", m.Project, m.Machine)
	}
	got, err := ReadMetadata(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got.Command != "make test-prefixes" || got.Series != "abc" || !got.Finished.Equal(now) || got.Backfilled != nil {
		t.Errorf("read back %+v", got)
	}
	if _, err := WriteHandRun(root, dir, HandRun{Command: "x"}, false); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("second write without force: %v, want a refusal", err)
	}
	b := &Backfill{Written: "2026-12-01T22:00:00Z", From: "README.md", CommittedIn: "0123"}
	m, err = WriteHandRun(root, dir, HandRun{Command: "y", Backfill: b}, true)
	if err != nil {
		t.Fatal(err)
	}
	if m.Project.Commit != "" || m.Machine.GOOS != "" || m.Backfilled == nil || m.Backfilled.From != "README.md" {
		t.Errorf("backfill: project %+v, machine %+v, backfilled %+v; want no probe and the source", m.Project, m.Machine, m.Backfilled)
	}
	if _, err := WriteHandRun(root, filepath.Join(dir, "missing"), HandRun{Command: "z"}, false); err == nil {
		t.Errorf("missing folder: no error")
	}
	if _, err := os.Stat(filepath.Join(dir, MetadataFile+".tmp")); err == nil {
		t.Errorf("temporary file left behind")
	}
}

func TestFolderAddedIn(t *testing.T) {
	root := repoRoot(t)
	if _, err := os.Stat(filepath.Join(root, ".git")); err != nil {
		t.Skip("not a git checkout")
	}
	c := FolderAddedIn(root, "results/2026-11-29-vm-quick")
	if len(c) != 40 {
		t.Skipf("history does not hold the folder's first commit (shallow clone?): %q", c)
	}
	if FolderAddedIn(root, "results/no-such-folder") != "" {
		t.Errorf("a folder git never saw has a commit")
	}
}

// TestEveryFolderHasMetadata checks that every committed results folder
// says what made it: schedlab bench writes metadata.json itself, and a
// folder made by anything else gets one from schedlab metadata.
func TestEveryFolderHasMetadata(t *testing.T) {
	root := repoRoot(t)
	dirs, err := os.ReadDir(filepath.Join(root, "results"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		n++
		m, err := ReadMetadata(filepath.Join(root, "results", d.Name()))
		switch {
		case err != nil:
			t.Errorf("results/%s: %v (write one with schedlab metadata)", d.Name(), err)
		case m.Command == "":
			t.Errorf("results/%s/%s names no command", d.Name(), MetadataFile)
		}
	}
	if n == 0 {
		t.Errorf("no results folders found")
	}
}

func TestControl(t *testing.T) {
	stock := VariantMeta{Name: "stock", Toolchain: "stock"}
	for _, tc := range []struct {
		vs   []VariantMeta
		want string
	}{
		{nil, ""},
		{[]VariantMeta{stock, {Name: "patched", Toolchain: "patched"}}, "no"},
		{[]VariantMeta{stock, {Name: "stock2", Toolchain: "stock"}}, "yes"},
		{[]VariantMeta{{Toolchain: "patched", GODEBUG: "numa=1"}, {Toolchain: "patched", GODEBUG: "numa=1,numabind=1"}}, "no"},
		{[]VariantMeta{{Toolchain: "patched"}, {Toolchain: "patched", Wrapper: []string{"numactl", "--membind=0"}}}, "no"},
		{[]VariantMeta{{Toolchain: "patched"}, {Toolchain: "patched", ExecTrace: true}}, "no"},
		{[]VariantMeta{{Toolchain: "patched", ExecTrace: true}, {Toolchain: "patched", ExecTrace: true}}, "yes"},
	} {
		if got := control(tc.vs); got != tc.want {
			t.Errorf("control(%v) = %q, want %q", tc.vs, got, tc.want)
		}
	}
}

// TestReadmeFindingsMatch checks that a report's copy of FINDINGS.md
// (the README's Findings section, copied when the report was written)
// is the folder's FINDINGS.md: a correction made to one and not the
// other leaves a folder saying two things.
func TestReadmeFindingsMatch(t *testing.T) {
	root := repoRoot(t)
	const head, tail = "## Findings\n\n", "\n\n(From `" + FindingsFile + "`, written by hand after the run.)"
	dirs, err := filepath.Glob(filepath.Join(root, "results", "*"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, d := range dirs {
		f, err1 := os.ReadFile(filepath.Join(d, FindingsFile))
		r, err2 := os.ReadFile(filepath.Join(d, ReadmeFile))
		if err1 != nil || err2 != nil {
			continue
		}
		i := strings.Index(string(r), head)
		j := strings.Index(string(r), tail)
		if i < 0 || j < i {
			continue // not a report's README
		}
		n++
		if got := strings.TrimSpace(string(r[i+len(head) : j])); got != strings.TrimSpace(string(f)) {
			t.Errorf("results/%s: the README's Findings differ from %s; copy it again (or rerun schedlab report)", filepath.Base(d), FindingsFile)
		}
	}
	if n == 0 {
		t.Errorf("no README with a Findings section found")
	}
}
