// Package census counts the instructions a program executes, under
// valgrind, so that two builds of one program can be compared to a
// fraction of a percent on a machine whose timings move by ±10–30%.
//
// Counts come from cachegrind (--cache-sim=no): the user-space
// instructions of every thread of the process, the kernel's excluded.
// Valgrind runs one thread at a time, so a count is repeatable only for
// programs whose interleaving does not depend on time: at GOMAXPROCS=1,
// programs that only hand goroutines to one another. Each count is the
// median of a few runs, and for a comparison of toolchains the median
// over a few link layouts (-ldflags=-randlayout=SEED), which separates
// code from the placement of functions in the binary.
package census

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// ErrNoValgrind is returned when valgrind is not on PATH.
var ErrNoValgrind = errors.New("valgrind is not installed (Debian: apt-get install valgrind)")

// A Run is one program run to count.
type Run struct {
	Bin    string    // the program
	Args   []string  // its arguments
	Env    []string  // its environment (GOMAXPROCS, GODEBUG, ...)
	Dir    string    // its working directory; the caller's if empty
	Stdout io.Writer // its standard output; kept with valgrind's messages for errors if nil
}

// Count runs r under cachegrind and returns the number of instructions
// it executed (cachegrind's "I refs").
func Count(ctx context.Context, r Run) (uint64, error) {
	tmp, err := os.MkdirTemp("", "census")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(tmp)
	out := filepath.Join(tmp, "cachegrind.out")
	if err := valgrind(ctx, r, "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file="+out); err != nil {
		return 0, err
	}
	data, err := os.ReadFile(out)
	if err != nil {
		return 0, err
	}
	return ParseCachegrind(data)
}

// valgrind runs r under valgrind with the tool options opts.
func valgrind(ctx context.Context, r Run, opts ...string) error {
	if _, err := exec.LookPath("valgrind"); err != nil {
		return ErrNoValgrind
	}
	cmd := exec.CommandContext(ctx, "valgrind", append(append(opts, r.Bin), r.Args...)...)
	cmd.Env, cmd.Dir = valgrindEnv(r.Env), r.Dir
	var msgs bytes.Buffer
	cmd.Stderr, cmd.Stdout = &msgs, &msgs
	if r.Stdout != nil {
		cmd.Stdout = io.MultiWriter(r.Stdout, &msgs)
	}
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("valgrind %s %s %s: %v\n%s", opts[0], r.Bin, strings.Join(r.Args, " "), err, tail(msgs.String(), 1500))
	}
	return nil
}

// valgrindEnv returns env (nil: the process's environment) with
// cpu.rdtscp=off added to GODEBUG. Valgrind (3.19, Debian 12's) cannot
// execute RDTSCP, which Go's runtime.cputicks uses on CPUs that have it
// (lock2 calls it under contention): the program dies with SIGILL at a
// point that the link layout decides. Every run under valgrind turns it
// off, stock and patched alike, so comparisons stay fair.
func valgrindEnv(env []string) []string {
	if env == nil {
		env = os.Environ()
	}
	out := make([]string, 0, len(env)+1)
	set := false
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "GODEBUG="); ok {
			if v == "" {
				kv = "GODEBUG=cpu.rdtscp=off"
			} else {
				kv = "GODEBUG=cpu.rdtscp=off," + v
			}
			set = true
		}
		out = append(out, kv)
	}
	if !set {
		out = append(out, "GODEBUG=cpu.rdtscp=off")
	}
	return out
}

// ParseCachegrind returns the instruction total of a cachegrind output
// file: the "summary:" line's first value, whose event is Ir.
func ParseCachegrind(data []byte) (uint64, error) {
	var events []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if v, ok := strings.CutPrefix(line, "events:"); ok {
			events = strings.Fields(v)
		}
		if v, ok := strings.CutPrefix(line, "summary:"); ok {
			f := strings.Fields(v)
			if len(events) == 0 || events[0] != "Ir" || len(f) == 0 {
				return 0, fmt.Errorf("cachegrind output: summary without an Ir event (events %q)", events)
			}
			n, err := strconv.ParseUint(f[0], 10, 64)
			if err != nil {
				return 0, fmt.Errorf("cachegrind output: summary %q: %v", v, err)
			}
			return n, nil
		}
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, errors.New("cachegrind output: no summary line")
}

// Median returns the median of xs (the mean of the middle two for an
// even count), or 0 if xs is empty.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// Spread returns (max-min)/median of xs, the relative range of repeated
// counts; 0 for fewer than two values.
func Spread(xs []float64) float64 {
	if len(xs) < 2 {
		return 0
	}
	m := Median(xs)
	if m == 0 {
		return 0
	}
	return (slices.Max(xs) - slices.Min(xs)) / m
}

// Build builds the main package in dir with the go command of goroot
// into out, with -trimpath and, if seed is not 0, a link layout shuffled
// by -ldflags=-randlayout=seed.
func Build(ctx context.Context, goroot, dir, out string, seed int) error {
	args := []string{"build", "-trimpath", "-o", out}
	if seed != 0 {
		args = append(args, "-ldflags=-randlayout="+strconv.Itoa(seed))
	}
	args = append(args, ".")
	cmd := exec.CommandContext(ctx, filepath.Join(goroot, "bin", "go"), args...)
	cmd.Dir = dir
	cmd.Env = GoEnv(goroot)
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s %s in %s: %v\n%s", cmd.Path, strings.Join(args, " "), dir, err, tail(string(b), 1500))
	}
	return nil
}

// GoEnv is the environment for goroot's go command: the process's,
// without the variables that would redirect it to another toolchain
// or change the build.
func GoEnv(goroot string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "GOROOT", "GOTOOLCHAIN", "GOFLAGS", "GODEBUG", "GOEXPERIMENT", "GOMAXPROCS":
			continue
		}
		env = append(env, kv)
	}
	return append(env, "GOROOT="+goroot, "GOTOOLCHAIN=local")
}

// RunEnv is the environment of a counted run: the process's, less every
// GODEBUG, GOGC and GOMAXPROCS setting, plus extra (name=value).
func RunEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "GODEBUG", "GOGC", "GOMAXPROCS", "GOMEMLIMIT", "GONUMASYSFS":
			continue
		}
		env = append(env, kv)
	}
	return append(env, extra...)
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "..." + s[len(s)-n:]
}

// PerOp returns the instructions one unit of work costs in the program
// bin, whose arguments select a workload and its unit count: the count
// of a run of n units less that of a run of none, over n. Start-up and
// exit, which both runs share, cancel out.
func PerOp(ctx context.Context, bin string, args []string, n int, env []string) (perOp float64, startup uint64, err error) {
	if n <= 0 {
		return 0, 0, fmt.Errorf("census: unit count %d, want > 0", n)
	}
	base, err := Count(ctx, Run{Bin: bin, Args: append(slices.Clone(args), "0"), Env: env})
	if err != nil {
		return 0, 0, err
	}
	full, err := Count(ctx, Run{Bin: bin, Args: append(slices.Clone(args), strconv.Itoa(n)), Env: env})
	if err != nil {
		return 0, 0, err
	}
	return (float64(full) - float64(base)) / float64(n), base, nil
}
