// Command testmatrix runs upstream's own test suites with the patched
// toolchain in each schedlab mode (a GODEBUG setting), after running them
// once with the stock release, and prints a mode × package table.
//
// A test that fails with the patched toolchain fails the run, unless it
// also failed with stock: then it is reported as upstream's, not hidden.
//
// Usage:
//
//	testmatrix -stock DIR -patched DIR [-pkgs "runtime sync"] [-mode name=godebug]... [-out file.md]
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/schedlab/schedlab/src/internal/series"
)

type modeFlag []mode

type mode struct{ name, godebug string }

func (m *modeFlag) String() string { return fmt.Sprint(*m) }
func (m *modeFlag) Set(v string) error {
	name, godebug, ok := strings.Cut(v, "=")
	if !ok || name == "" {
		return fmt.Errorf("mode %q: want name=GODEBUG (GODEBUG may be empty)", v)
	}
	*m = append(*m, mode{name, godebug})
	return nil
}

// result is one package's outcome in one mode.
type result struct {
	pass, fail, skip int
	failed           []string // failing top-level tests; "(package)" for build/panic/timeout
	elapsed          time.Duration
}

func main() {
	stock := flag.String("stock", "", "stock GOROOT")
	patched := flag.String("patched", "", "patched GOROOT")
	pkgs := flag.String("pkgs", "runtime runtime/metrics sync time internal/trace", "packages to test")
	timeout := flag.Duration("timeout", 25*time.Minute, "go test -timeout for each run")
	out := flag.String("out", "", "also write the table to this file")
	short := flag.Bool("short", true, "pass -short")
	runRE := flag.String("run", "", "pass -run (select tests)")
	var modes modeFlag
	flag.Var(&modes, "mode", "name=GODEBUG for the patched toolchain (repeatable)")
	flag.Parse()
	if *stock == "" || *patched == "" {
		fmt.Fprintln(os.Stderr, "testmatrix: -stock and -patched are required")
		os.Exit(2)
	}
	if len(modes) == 0 {
		modes = modeFlag{{"default", ""}}
	}
	packages := strings.Fields(*pkgs)

	type row struct {
		mode, godebug, toolchain string
		res                      map[string]*result
	}
	var rows []row
	fmt.Fprintf(os.Stderr, "testmatrix: stock (%s): go test %s\n", *stock, *pkgs)
	stockRes := run(*stock, "", packages, *timeout, *short, *runRE)
	rows = append(rows, row{"stock", "", "stock", stockRes})
	for _, m := range modes {
		fmt.Fprintf(os.Stderr, "testmatrix: mode %s (GODEBUG=%s): go test %s\n", m.name, m.godebug, *pkgs)
		res := run(*patched, m.godebug, packages, *timeout, *short, *runRE)
		rows = append(rows, row{m.name, m.godebug, "patched", res})
	}

	var b strings.Builder
	fmt.Fprintf(&b, "| mode | GODEBUG | package | pass | fail | skip | time | verdict |\n|---|---|---|---|---|---|---|---|\n")
	var failures []string
	for _, r := range rows {
		for _, pkg := range packages {
			res := r.res[pkg]
			verdict := "ok"
			var ours, upstream []string
			for _, f := range res.failed {
				if r.toolchain == "patched" && contains(stockRes[pkg].failed, f) {
					upstream = append(upstream, f)
				} else {
					ours = append(ours, f)
				}
			}
			switch {
			case r.toolchain == "stock" && len(res.failed) > 0:
				verdict = "FAILS ON STOCK (upstream): " + strings.Join(res.failed, ", ")
			case len(ours) > 0:
				verdict = "FAIL: " + strings.Join(ours, ", ")
				for _, f := range ours {
					failures = append(failures, fmt.Sprintf("mode %s (GODEBUG=%q): %s %s", r.mode, r.godebug, pkg, f))
				}
			case len(upstream) > 0:
				verdict = "ok (fails on stock too: " + strings.Join(upstream, ", ") + ")"
			}
			fmt.Fprintf(&b, "| %s | `%s` | %s | %d | %d | %d | %s | %s |\n", r.mode, r.godebug, pkg,
				res.pass, res.fail, res.skip, res.elapsed.Round(time.Second), verdict)
		}
	}
	fmt.Print(b.String())
	if *out != "" {
		os.MkdirAll(filepath.Dir(*out), 0o755)
		os.WriteFile(*out, []byte(b.String()), 0o644)
	}
	if len(failures) > 0 {
		fmt.Fprintf(os.Stderr, "testmatrix: %d failures with the patched toolchain that stock does not have:\n\t%s\n",
			len(failures), strings.Join(failures, "\n\t"))
		os.Exit(1)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// run runs go test -json for packages with goroot's go command.
func run(goroot, godebug string, packages []string, timeout time.Duration, short bool, runRE string) map[string]*result {
	args := []string{"test", "-json", "-count=1", "-timeout", timeout.String()}
	if runRE != "" {
		args = append(args, "-run", runRE)
	}
	if short {
		args = append(args, "-short")
	}
	cmd := exec.Command(filepath.Join(goroot, "bin", "go"), append(args, packages...)...)
	cmd.Env = append(series.ToolchainEnv(goroot), "GODEBUG="+godebug)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		panic(err)
	}
	res := map[string]*result{}
	for _, p := range packages {
		res[p] = &result{}
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		for _, p := range packages {
			res[p].failed = []string{"(go test did not start: " + err.Error() + ")"}
		}
		return res
	}
	parse(stdout, res, os.Stderr)
	err = cmd.Wait()
	for _, p := range packages {
		r := res[p]
		if r.pass+r.fail+r.skip == 0 && len(r.failed) == 0 {
			r.failed = append(r.failed, "(package: no test results)")
		}
		if r.elapsed == 0 {
			r.elapsed = time.Since(start)
		}
		sort.Strings(r.failed)
	}
	_ = err // failures are in the events; a non-zero exit alone adds nothing
	return res
}

type event struct {
	Action  string
	Package string
	Test    string
	Elapsed float64
	Output  string
}

// parse reads test2json events, echoing failing output to log.
func parse(r io.Reader, res map[string]*result, log io.Writer) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	tail := map[string][]string{} // recent output per package, for package-level failures
	for sc.Scan() {
		var e event
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			continue
		}
		r := res[e.Package]
		if r == nil {
			continue
		}
		top := e.Test != "" && !strings.Contains(e.Test, "/")
		switch {
		case e.Action == "output":
			t := append(tail[e.Package], e.Output)
			if len(t) > 40 {
				t = t[len(t)-40:]
			}
			tail[e.Package] = t
		case top && e.Action == "pass":
			r.pass++
		case top && e.Action == "skip":
			r.skip++
		case top && e.Action == "fail":
			r.fail++
			r.failed = append(r.failed, e.Test)
			fmt.Fprintf(log, "--- FAIL %s %s\n", e.Package, e.Test)
		case e.Test == "" && (e.Action == "pass" || e.Action == "fail" || e.Action == "skip"):
			r.elapsed = time.Duration(e.Elapsed * float64(time.Second))
			if e.Action == "fail" && r.fail == 0 {
				r.failed = append(r.failed, "(package)")
				fmt.Fprintf(log, "--- FAIL %s (package-level):\n%s", e.Package, strings.Join(tail[e.Package], ""))
			}
		}
	}
}
