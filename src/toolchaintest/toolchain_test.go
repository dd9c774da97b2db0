// Package toolchaintest holds black-box tests of the built schedlab
// toolchain. They run only when SCHEDLAB_GOROOT names it (make
// test-toolchain sets it), because building the toolchain takes minutes.
package toolchaintest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/src/internal/series"
)

// patchedGOROOT returns the toolchain under test or skips.
func patchedGOROOT(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("SCHEDLAB_GOROOT")
	if dir == "" {
		t.Skip("SCHEDLAB_GOROOT not set; run make test-toolchain")
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// wantVersion is the stamp the build must carry: pin plus fork revision.
func wantVersion(t *testing.T) string {
	t.Helper()
	v, err := series.New(repoRoot(t)).Version()
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// goCmd runs the patched go with the environment every schedlab path uses.
func goCmd(t *testing.T, goroot string, args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(goroot, "bin", "go"), args...)
	cmd.Env = series.ToolchainEnv(goroot)
	return cmd
}

func output(t *testing.T, cmd *exec.Cmd) string {
	t.Helper()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func TestVersionStamp(t *testing.T) {
	goroot := patchedGOROOT(t)
	want := wantVersion(t)
	got := output(t, goCmd(t, goroot, "version"))
	if !strings.HasPrefix(got, "go version "+want+" ") {
		t.Errorf("go version = %q, want the stamp %s", got, want)
	}
}

func TestGOROOTIsPatchedTree(t *testing.T) {
	goroot := patchedGOROOT(t)
	// Without GOROOT in the environment the go command finds its own root.
	cmd := exec.Command(filepath.Join(goroot, "bin", "go"), "env", "GOROOT", "GOTOOLCHAIN")
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GOROOT=") && !strings.HasPrefix(kv, "GOTOOLCHAIN=") {
			env = append(env, kv)
		}
	}
	cmd.Env = env
	lines := strings.Split(output(t, cmd), "\n")
	if len(lines) != 2 || lines[0] != goroot {
		t.Errorf("go env GOROOT = %q, want %s", lines, goroot)
	}
	// The series' go.env patch: the toolchain never switches by itself.
	if len(lines) == 2 && lines[1] != "local" {
		t.Errorf("default GOTOOLCHAIN = %q, want local (go.env patch missing?)", lines[1])
	}
}

func TestBuiltProgramReportsVersion(t *testing.T) {
	goroot := patchedGOROOT(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module hello\n\ngo 1.27\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "main.go"), []byte(`package main

import (
	"fmt"
	"runtime"
)

func main() { fmt.Println(runtime.Version()) }
`), 0o644)
	cmd := goCmd(t, goroot, "run", ".")
	cmd.Dir = dir
	if got, want := output(t, cmd), wantVersion(t); got != want {
		t.Errorf("runtime.Version() = %q, want %q", got, want)
	}
}

// TestLeftoverGOTOOLCHAIN guards the trap every schedlab path must avoid:
// with GOTOOLCHAIN=go1.27.3 left in the environment, the patched go
// re-executes the stock release and experiments silently run unpatched.
// It shows the trap exists, then that the GOROOT swap users do
// (eval "$(make -s env)") and the environment our tools build both defeat it.
func TestLeftoverGOTOOLCHAIN(t *testing.T) {
	goroot := patchedGOROOT(t)
	want := wantVersion(t)
	s := series.New(repoRoot(t))
	pin, err := s.ReadPin()
	if err != nil {
		t.Fatal(err)
	}

	trap := exec.Command(filepath.Join(goroot, "bin", "go"), "env", "GOVERSION")
	trap.Env = append(os.Environ(), "GOTOOLCHAIN="+pin.Version, "GOROOT="+goroot)
	if got := output(t, trap); got != pin.Version {
		t.Logf("note: with GOTOOLCHAIN=%s the patched go reported %q (expected it to switch to stock)", pin.Version, got)
	}

	// series.ToolchainEnv, which the tooling and harness use.
	fixed := exec.Command(filepath.Join(goroot, "bin", "go"), "env", "GOVERSION")
	t.Setenv("GOTOOLCHAIN", pin.Version)
	fixed.Env = series.ToolchainEnv(goroot)
	if got := output(t, fixed); got != want {
		t.Errorf("with series.ToolchainEnv and a leftover GOTOOLCHAIN the go command reports %q, want %q", got, want)
	}

	// make env, evaluated in a shell that has the leftover setting.
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make")
	}
	sh := exec.Command("bash", "-c", `eval "$(make -s env)" && go env GOVERSION`)
	sh.Dir = repoRoot(t)
	sh.Env = append(os.Environ(), "GOTOOLCHAIN="+pin.Version)
	if got := output(t, sh); got != want {
		t.Errorf(`after eval "$(make -s env)" with a leftover GOTOOLCHAIN, go reports %q, want %q`, got, want)
	}
}
