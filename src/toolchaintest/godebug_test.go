package toolchaintest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGoCommandKeepsKnobsFromTools checks the go command's promise
// (cmd/go/internal/cfg/schedlab.go): the schedlab GODEBUG knobs are an
// experiment on the program, so the compiler, linker and the other tools
// the go command runs do not get them (with numabind, a build of many
// compiler processes each binding its threads was 10-20% slower), while
// the programs it runs for the user (go run, go test) do. Other GODEBUG
// settings pass through to both, in order.
func TestGoCommandKeepsKnobsFromTools(t *testing.T) {
	goroot := patchedGOROOT(t)
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module knobs\n\ngo 1.27\n")
	write("main.go", `package main

import (
	"fmt"
	"os"
)

func main() { fmt.Println("program GODEBUG=" + os.Getenv("GODEBUG")) }
`)
	write("main_test.go", `package main

import (
	"os"
	"testing"
)

func TestEnv(t *testing.T) { t.Log("test GODEBUG=" + os.Getenv("GODEBUG")) }
`)
	// With -toolexec the go command rebuilds every dependency, so the
	// package built with it imports nothing beyond the runtime.
	write("tiny/main.go", "package main\n\nfunc main() {}\n")
	// A -toolexec wrapper that records the GODEBUG each tool gets and
	// then runs the tool.
	write("toolexec/main.go", `package main

import (
	"os"
	"os/exec"
)

func main() {
	f, err := os.OpenFile(os.Getenv("KNOBS_LOG"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		panic(err)
	}
	f.WriteString("GODEBUG=" + os.Getenv("GODEBUG") + "\n")
	f.Close()
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		if e, ok := err.(*exec.ExitError); ok {
			os.Exit(e.ExitCode())
		}
		panic(err)
	}
}
`)
	wrapper := filepath.Join(dir, "toolexec.bin")
	build := goCmd(t, goroot, "build", "-o", wrapper, "./toolexec")
	build.Dir = dir
	output(t, build)

	const knobs = "gctrace=0,numa=1,numafake=2,numabind=1,timeslice=5000,panicnil=0"
	const others = "gctrace=0,panicnil=0"
	log := filepath.Join(dir, "tools.log")
	run := func(args ...string) string {
		t.Helper()
		cmd := goCmd(t, goroot, args...)
		cmd.Dir = dir
		cmd.Env = append(cmd.Env, "GODEBUG="+knobs, "KNOBS_LOG="+log)
		return output(t, cmd)
	}

	out := run("build", "-toolexec", wrapper, "-o", filepath.Join(dir, "tiny.bin"), "./tiny")
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatalf("the -toolexec wrapper ran no tool (%v); go build said %q", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) < 2 {
		t.Fatalf("only %d tool runs recorded", len(lines))
	}
	for _, l := range lines {
		if l != "GODEBUG="+others {
			t.Errorf("a tool ran with %s, want GODEBUG=%s (the schedlab knobs dropped, the rest kept)", l, others)
			break
		}
	}

	if got := run("run", "."); !strings.Contains(got, "program GODEBUG="+knobs) {
		t.Errorf("go run: the program saw %q, want GODEBUG=%s", got, knobs)
	}
	if got := run("test", "-count=1", "-v", "."); !strings.Contains(got, "test GODEBUG="+knobs) {
		t.Errorf("go test: the test saw %q, want GODEBUG=%s", got, knobs)
	}
}
