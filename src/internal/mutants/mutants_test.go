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
