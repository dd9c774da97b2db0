package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/src/internal/toolchain"
)

func TestCommandLine(t *testing.T) {
	got := commandLine([]string{"/x/schedlab", "bench", "-variant", "stock", "-wrap", "oracle=numactl --membind=0", "-bench", "Fork|Join", "it's"})
	want := `schedlab bench -variant stock -wrap 'oracle=numactl --membind=0' -bench 'Fork|Join' 'it'\''s'`
	if got != want {
		t.Errorf("commandLine = %s\nwant          %s", got, want)
	}
}

func TestSelectWorkloads(t *testing.T) {
	ws, gated, err := selectWorkloads("ring,syscall,forkjoin", 0.002)
	if err != nil || len(ws) != 3 || ws[0].Name != "ring" || ws[1].Name != "forkjoin" || ws[2].Name != "syscall" {
		t.Fatalf("selectWorkloads(ring,syscall,forkjoin) = %v, %v; want ring, forkjoin, syscall", ws, err)
	}
	if gated["ring"] != 0.002 || gated["forkjoin"] != 0.01 || gated["syscall"] != 0 {
		t.Errorf("gated = %v; want ring at the -threshold, forkjoin at 1%%, syscall not gated", gated)
	}
	if ws, _, err := selectWorkloads("", 0.002); err != nil || len(ws) < 5 {
		t.Errorf("selectWorkloads(\"\") = %d workloads, %v; want all", len(ws), err)
	}
	if _, _, err := selectWorkloads("ring,nosuch", 0.002); err == nil {
		t.Errorf("selectWorkloads(ring,nosuch): no error")
	}
}

// TestRoot finds the checkout the way a schedlab on PATH does: this test
// binary, copied into a checkout's .bin and run through a symlink from
// another directory, must find that checkout; and with neither the
// binary nor the working directory in one, the error names RootEnv.
func TestRoot(t *testing.T) {
	if os.Getenv("SCHEDLAB_TEST_ROOT_CHILD") == "1" {
		r, err := root()
		fmt.Printf("root=%s err=%v\n", r, err)
		return
	}
	tmp := t.TempDir()
	co := filepath.Join(tmp, "checkout")
	os.MkdirAll(filepath.Join(co, ".bin"), 0o755)
	os.WriteFile(filepath.Join(co, "go.mod"), []byte("module "+toolchain.ModulePath+"\n"), 0o644)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(co, ".bin", "schedlab")
	os.WriteFile(bin, data, 0o755)
	elsewhere := filepath.Join(tmp, "elsewhere")
	os.MkdirAll(elsewhere, 0o755)
	link := filepath.Join(elsewhere, "schedlab")
	if err := os.Symlink(bin, link); err != nil {
		t.Fatal(err)
	}
	run := func(exe string, env ...string) string {
		cmd := exec.Command(exe, "-test.run=^TestRoot$")
		cmd.Dir = elsewhere
		cmd.Env = append(os.Environ(), append(env, "SCHEDLAB_TEST_ROOT_CHILD=1", RootEnv+"=")...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", exe, err, out)
		}
		return string(out)
	}
	if out := run(link); !strings.Contains(out, "root="+co+" err=<nil>") {
		t.Errorf("through a symlink from another directory: %s; want root=%s", out, co)
	}
	if out := run(exe); !strings.Contains(out, "err=cannot find the schedlab checkout") || !strings.Contains(out, RootEnv) {
		t.Errorf("a binary outside any checkout, run outside one: %s; want an error naming %s", out, RootEnv)
	}
	t.Setenv(RootEnv, co)
	if r, err := root(); r != co || err != nil {
		t.Errorf("with %s=%s: root() = %q, %v", RootEnv, co, r, err)
	}
}

// TestParseInterleaved: schedlab trace takes its flags before or after
// the trace file.
func TestParseInterleaved(t *testing.T) {
	for _, c := range []struct {
		args []string
		pos  string
	}{
		{[]string{"-latency", "-out", "d", "x.trace"}, "x.trace"},
		{[]string{"x.trace", "-latency", "-out", "d"}, "x.trace"},
		{[]string{"-out", "d", "x.trace", "-latency"}, "x.trace"},
		{[]string{"-latency", "--", "-x.trace"}, "-x.trace"},
	} {
		fs := flag.NewFlagSet("trace", flag.ContinueOnError)
		lat := fs.Bool("latency", false, "")
		out := fs.String("out", "", "")
		pos := parseInterleaved(fs, c.args)
		if strings.Join(pos, " ") != c.pos || !*lat || (*out != "d" && c.pos != "-x.trace") {
			t.Errorf("%q: positional %q, latency %v, out %q", c.args, pos, *lat, *out)
		}
	}
}
