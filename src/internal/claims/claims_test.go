package claims

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/schedlab/schedlab/src/internal/toolchain"
)

func TestMatches(t *testing.T) {
	for _, c := range []struct {
		v      float64
		quoted string
		want   bool
	}{
		{0.7576, "0.757", false}, {0.7576, "0.758", true}, {0.75749, "0.757", true},
		{32.004, "+32.0%", true}, {-95.11, "−95.1%", true}, {-95.11, "+95.1%", false},
		{4890, "4.89k", true}, {4896, "4.89k", false}, {2.16e-3, "0.002", true},
		{19425, "19425", true}, {19425, "19,425", true}, {100.13, "100.1", true}, {100.16, "100.1", false},
	} {
		if got := Matches(c.v, c.quoted); got != c.want {
			t.Errorf("Matches(%v, %q) = %v, want %v", c.v, c.quoted, got, c.want)
		}
	}
}

func TestUncited(t *testing.T) {
	text := "A 1.000 share (+32.0% over stock, p=0.002), 6 rounds, `series 1.2.3`, [x](../2026-12-01-x/), 4.89k misses, 0.500-0.537, 43%-54%, and 7.5% left."
	got := Uncited(text, []Claim{{Quoted: "1.000"}, {Quoted: "32.0%"}, {Quoted: "0.002"}, {Quoted: "4.89k"}, {Quoted: "0.500"}, {Quoted: "0.537"}, {Quoted: "43%"}, {Quoted: "54%"}})
	if !slices.Equal(got, []string{"7.5%"}) {
		t.Errorf("Uncited = %q, want [7.5%%]: integers, code spans and link targets are not quotes", got)
	}
	// Durations are quotes, integers or not, unless allowed as settings.
	text = "timeslice=1000 (a 1ms slice) waits 919µs, 19.2ms at p50, with 200ms runs; stock's 10ms slice."
	got = Uncited(text, []Claim{{Quoted: "19.2ms"}}, "1ms", "200ms", "10ms")
	if !slices.Equal(got, []string{"919µs"}) {
		t.Errorf("Uncited with settings = %q, want [919µs]", got)
	}
}

func TestDurations(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want []string
	}{
		{time.Millisecond, []string{"1ms", "1000µs", "1000000ns"}},
		{500 * time.Microsecond, []string{"0.5ms", "500µs", "500000ns"}},
		{20 * time.Microsecond, []string{"20µs", "20000ns"}},
	} {
		if got := Durations(c.d); !slices.Equal(got, c.want) {
			t.Errorf("Durations(%v) = %q, want %q", c.d, got, c.want)
		}
	}
}

func TestSettings(t *testing.T) {
	dir := t.TempDir()
	meta := `{"benchtime": "200ms", "variants": [{"godebug": ""}, {"godebug": "timeslice=500,numa=1"}, {"godebug": "sysmontick=x"}]}`
	if err := os.WriteFile(filepath.Join(dir, "metadata.json"), []byte(meta), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := Settings(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"200ms", "500µs", "0.5ms"} {
		if !slices.Contains(got, want) {
			t.Errorf("Settings = %q, want it to hold %q", got, want)
		}
	}
	if slices.Contains(got, "1µs") {
		t.Errorf("Settings = %q: numa=1 is not a duration", got)
	}
}

// TestSpecDurations finds each duration that prose may quote without a
// claim in the code that fixes it: the stock GOROOT's source, a line
// the series adds, or a workload.
func TestSpecDurations(t *testing.T) {
	root, err := toolchain.FindRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	var patches strings.Builder
	files, _ := filepath.Glob(filepath.Join(root, "patches", "*.patch"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "+") {
				patches.WriteString(l[1:] + "\n")
			}
		}
	}
	var goroot string
	for _, d := range SpecDurations {
		var text string
		switch d.Where {
		case "goroot":
			if goroot == "" {
				upstream, err := toolchain.ReadUpstream(filepath.Join(root, "toolchain", "UPSTREAM"))
				if err != nil {
					t.Fatal(err)
				}
				tc, err := toolchain.Resolve(root, "stock", upstream, "")
				if err != nil {
					t.Skipf("no stock toolchain: %v", err)
				}
				goroot = tc.GOROOT
			}
			b, err := os.ReadFile(filepath.Join(goroot, d.File))
			if err != nil {
				t.Skipf("the stock GOROOT has no source: %v", err)
			}
			text = string(b)
		case "patches":
			text = patches.String()
		default:
			b, err := os.ReadFile(filepath.Join(root, d.Where))
			if err != nil {
				t.Fatal(err)
			}
			text = string(b)
		}
		if !strings.Contains(text, d.Source) {
			t.Errorf("%s (%s): %q is not in %s %s", d.Quoted, d.What, d.Source, d.Where, d.File)
		}
	}
	if got := specAllowed("LatencyProbe sleeps"); !slices.Contains(got, "1ms") || slices.Contains(got, "49µs") {
		t.Errorf("specAllowed(LatencyProbe) = %q, want 1ms and not TimerStorm's 49µs", got)
	}
}

// TestFolders recomputes every claim of every results folder from its
// data, and finds numbers in the folders' prose that no claim quotes.
func TestFolders(t *testing.T) {
	root, err := toolchain.FindRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	dirs, err := filepath.Glob(filepath.Join(root, "results", "*"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, dir := range dirs {
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			continue
		}
		cs, err := Read(dir)
		if err != nil {
			t.Errorf("%s: %v", filepath.Base(dir), err)
			continue
		}
		allowed, err := Settings(dir)
		if err != nil {
			t.Errorf("%s: %v", filepath.Base(dir), err)
		}
		if len(cs) == 0 {
			// A folder whose prose quotes numbers must say where
			// they come from.
			for _, name := range ProseFiles {
				if b, err := os.ReadFile(filepath.Join(dir, name)); err == nil {
					if u := Uncited(string(b), nil, append(allowed, specAllowed(string(b))...)...); len(u) > 0 {
						t.Errorf("%s/%s quotes numbers and the folder has no %s: %s", filepath.Base(dir), name, ClaimsFile, strings.Join(u, " "))
					}
				}
			}
			continue
		}
		k := &Checker{Dir: dir}
		defer k.Close()
		for _, c := range cs {
			n++
			if err := k.Check(c); err != nil {
				t.Errorf("%s: %v", filepath.Base(dir), err)
			}
		}
		for _, name := range ProseFiles {
			b, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				continue
			}
			if u := Uncited(string(b), cs, append(allowed, specAllowed(string(b))...)...); len(u) > 0 {
				t.Errorf("%s/%s quotes numbers no claim in %s holds: %s", filepath.Base(dir), name, ClaimsFile, strings.Join(u, " "))
			}
		}
	}
	t.Logf("%d claims checked", n)
}
