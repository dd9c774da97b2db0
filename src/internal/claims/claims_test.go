package claims

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

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
		if len(cs) == 0 {
			// A folder whose prose quotes numbers must say where
			// they come from.
			for _, name := range ProseFiles {
				if b, err := os.ReadFile(filepath.Join(dir, name)); err == nil {
					if u := Uncited(string(b), nil); len(u) > 0 {
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
			if u := Uncited(string(b), cs); len(u) > 0 {
				t.Errorf("%s/%s quotes numbers no claim in %s holds: %s", filepath.Base(dir), name, ClaimsFile, strings.Join(u, " "))
			}
		}
	}
	t.Logf("%d claims checked", n)
}
