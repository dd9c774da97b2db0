package mutants

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestApply(t *testing.T) {
	m := Mutant{Name: "m", File: "f.go", Old: "a()", New: "b()"}
	got, err := Apply([]byte("x\na()\ny\n"), m)
	if err != nil || string(got) != "x\nb()\ny\n" {
		t.Errorf("Apply = %q, %v", got, err)
	}
	for _, src := range []string{"x\n", "a()\na()\n"} {
		if _, err := Apply([]byte(src), m); err == nil {
			t.Errorf("Apply(%q) succeeded; want an error: the edit must match exactly once", src)
		}
	}
}

// TestMutantsApply checks every mutant of All against the patched GOROOT,
// when it has been built: its edit must match exactly once and change
// something, and names must be unique, so that the list follows the
// series.
func TestMutantsApply(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	goroot := filepath.Join(filepath.Dir(file), "..", "..", "..", "toolchain", "goroot")
	if _, err := os.Stat(filepath.Join(goroot, "src", "runtime", "numa.go")); err != nil {
		t.Skip("no patched GOROOT in toolchain/goroot (make toolchain)")
	}
	seen := map[string]bool{}
	for _, m := range All {
		if seen[m.Name] {
			t.Errorf("mutant %s listed twice", m.Name)
		}
		seen[m.Name] = true
		if m.Old == m.New || m.Tests == "" || m.Patch == "" || m.What == "" {
			t.Errorf("mutant %s: incomplete", m.Name)
		}
		src, err := os.ReadFile(filepath.Join(goroot, m.File))
		if err != nil {
			t.Errorf("mutant %s: %v", m.Name, err)
			continue
		}
		if _, err := Apply(src, m); err != nil {
			t.Error(err)
		}
		if !strings.HasPrefix(m.File, "src/") {
			t.Errorf("mutant %s: file %s is not under src/", m.Name, m.File)
		}
	}
}

// TestMutantsPatch checks that each mutant names a patch of patches/
// that changes the mutant's file, and that the patch or a later one (a
// later patch may rework the code) adds a line of the code the mutant
// edits, so that a renumbered series cannot leave a mutant pointing at
// another patch's mechanism.
func TestMutantsPatch(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(file), "..", "..", "..", "patches")
	for _, m := range All {
		files, _ := filepath.Glob(filepath.Join(dir, m.Patch+"-*.patch"))
		if len(files) != 1 {
			t.Errorf("mutant %s: patch %s matches %d files of patches/", m.Name, m.Patch, len(files))
			continue
		}
		b, err := os.ReadFile(files[0])
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		if !strings.Contains(text, "\ndiff --git a/"+m.File+" b/"+m.File+"\n") {
			t.Errorf("mutant %s: %s does not change %s", m.Name, filepath.Base(files[0]), m.File)
		}
		later, _ := filepath.Glob(filepath.Join(dir, "*.patch"))
		addedLines := map[string]bool{}
		for _, f := range later {
			if filepath.Base(f) < filepath.Base(files[0]) {
				continue
			}
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range strings.Split(string(b), "\n") {
				if strings.HasPrefix(l, "+") && !strings.HasPrefix(l, "+++") {
					addedLines[strings.TrimSpace(l[1:])] = true
				}
			}
		}
		added := false
		for _, l := range strings.Split(m.Old, "\n") {
			if l = strings.TrimSpace(l); l != "" && addedLines[l] {
				added = true
			}
		}
		if !added {
			t.Errorf("mutant %s: neither %s nor a later patch adds a line of the code it edits", m.Name, filepath.Base(files[0]))
		}
	}
}
