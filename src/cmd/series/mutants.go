package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/schedlab/schedlab/src/internal/mutants"
)

// runMutants runs make test-mutants: each mutant of mutants.All whose
// name matches run, on a worktree of toolchain/goroot's HEAD, with the
// built toolchain. It writes out/report.md and fails unless every mutant
// was killed.
func runMutants(root, run, out string) error {
	re, err := regexp.Compile(run)
	if err != nil {
		return err
	}
	var ms []mutants.Mutant
	for _, m := range mutants.All {
		if re.MatchString(m.Name) {
			ms = append(ms, m)
		}
	}
	goroot := filepath.Join(root, "toolchain", "goroot")
	gocmd := filepath.Join(goroot, "bin", "go")
	if _, err := os.Stat(gocmd); err != nil {
		return fmt.Errorf("no built toolchain (make toolchain): %v", err)
	}
	wt := filepath.Join(root, "toolchain", "worktrees", "mutants")
	git := func(args ...string) error {
		cmd := exec.Command("git", append([]string{"-C", goroot}, args...)...)
		cmd.Stderr = os.Stderr
		return cmd.Run()
	}
	exec.Command("git", "-C", goroot, "worktree", "remove", "--force", wt).Run() // a leftover of an interrupted run
	os.RemoveAll(wt)
	if err := git("worktree", "add", "-q", "--detach", wt, "HEAD"); err != nil {
		return err
	}
	defer git("worktree", "remove", "--force", wt)
	// The worktree compiles its own source with the built toolchain's
	// tools and standard library objects, as make test-prefixes does.
	for _, d := range []string{"bin", "pkg"} {
		if err := os.Symlink(filepath.Join(goroot, d), filepath.Join(wt, d)); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	head, _ := exec.Command("git", "-C", goroot, "rev-parse", "--short=12", "HEAD").Output()
	fmt.Println("mutants: the tests of every mutant, unmutated")
	if b, err := mutants.Baseline(context.Background(), wt, gocmd, ms); err != nil {
		os.WriteFile(filepath.Join(out, "baseline.log"), b, 0o644)
		return fmt.Errorf("the unmutated tests fail (%v); see %s", err, filepath.Join(out, "baseline.log"))
	}
	rs := mutants.Run(context.Background(), wt, gocmd, ms, os.Stdout, out)
	f, err := os.Create(filepath.Join(out, "report.md"))
	if err != nil {
		return err
	}
	fmt.Fprintf(f, "Mutants of toolchain/goroot at %s, each run with go test -short -count=1 -run <tests> runtime:\n\n", strings.TrimSpace(string(head)))
	mutants.Report(f, rs)
	if err := f.Close(); err != nil {
		return err
	}
	mutants.Report(os.Stdout, rs)
	if !mutants.AllKilled(rs) {
		return fmt.Errorf("mutants: some mutant survived or could not be tested; see %s", filepath.Join(out, "report.md"))
	}
	return nil
}
