package bench

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/schedlab/schedlab/src/internal/census"
	"github.com/schedlab/schedlab/src/internal/results"
)

// Measures are the values of Options.Measure.
const (
	MeasureTime         = ""             // the benchmarks' own units (ns/op, ...)
	MeasureInstructions = "instructions" // instructions/op under cachegrind
)

// DefaultInstructionsBenchtime is the iteration count an instructions
// run starts its calibration from when neither the run nor the target
// names one.
const DefaultInstructionsBenchtime = "200x"

// Calibration of the iteration count: a count of instructions per
// operation is (I(2N) - I(N)) / N, and the part of a run that does not
// scale with N (start-up, the b.N=1 probe, the GC cycles and sysmon
// rounds that happen to fall into it) varies from run to run by up to a
// few hundred thousand instructions. N is raised until the difference
// is at least minInstructionsDelta, so that this variation is below
// about 0.1% of it, and at most to maxInstructionsN.
const (
	minInstructionsDelta = 200e6
	maxInstructionsN     = 100e6
)

var nxBenchtime = regexp.MustCompile(`^([1-9][0-9]*)x$`)

// instructionsN returns the iteration count an instructions run of t
// starts from, and whether it is fixed (named with -benchtime Nx) or
// may be calibrated: the run's -benchtime, else the target's fixed
// count, else the default. A count of instructions per operation needs
// the same operations on both sides, so it must be a count (Nx).
func (r *runner) instructionsN(t Target) (n int, fixed bool, err error) {
	bt := DefaultInstructionsBenchtime
	if t.Benchtime != "" && nxBenchtime.MatchString(t.Benchtime) {
		bt = t.Benchtime
	}
	if r.opt.Benchtime != "" {
		bt = r.opt.Benchtime
		fixed = true
	}
	m := nxBenchtime.FindStringSubmatch(bt)
	if m == nil {
		return 0, false, fmt.Errorf("-measure instructions needs a fixed iteration count (-benchtime Nx), not %q", bt)
	}
	n, err = strconv.Atoi(m[1])
	return n, fixed, err
}

// nextInstructionsN returns the iteration count to try after a pair of
// runs at n and 2n whose counts differ by delta, and whether n is
// enough.
func nextInstructionsN(n int, delta float64) (int, bool) {
	if delta >= minInstructionsDelta || n >= maxInstructionsN {
		return n, true
	}
	grow := 100.0
	if delta > 0 {
		grow = min(100, math.Ceil(1.2*minInstructionsDelta/delta))
	}
	return min(int(float64(n)*grow), maxInstructionsN), false
}

// runInstructions is runOne for -measure instructions: it counts the
// instructions of t's benchmark at N and at 2N iterations under
// cachegrind and records (I(2N) - I(N)) / N as instructions/op, so that
// start-up, the b.N=1 probe run and exit cancel out. GOMAXPROCS is 1
// unless -cpu says otherwise: valgrind serialises threads, so only
// single-P counts repeat (docs/census.md).
func (r *runner) runInstructions(ctx context.Context, s Slot, t Target, v Variant) {
	tc := r.tcs[v.Toolchain]
	bp := r.bins[v.Toolchain][t.Pkg.Key]
	n, fixed, err := r.instructionsN(t)
	if err != nil {
		r.fail("%s [%s]: %v", t.Name, v.Name, err)
		return
	}
	if cal, ok := r.instrN[t.Name]; ok {
		n, fixed = cal, true
	}
	cpu := r.opt.CPU
	if cpu == "" {
		cpu = "1"
	}
	timeout := r.opt.Timeout
	if t.Timeout > 0 {
		timeout = t.Timeout
	}
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	t0 := time.Now()
	var counts [2]uint64
	var stdout bytes.Buffer
	status := "ok"
calibrate:
	stdout.Reset()
	for k, iters := range []int{n, 2 * n} {
		args := []string{"-test.run=^$", "-test.bench=" + t.Bench, "-test.count=1", "-test.cpu=" + cpu,
			"-test.benchtime=" + strconv.Itoa(iters) + "x", "-test.timeout=" + (timeout + 30*time.Second).String()}
		traceOut := filepath.Join(r.tmp, "exectrace.out")
		os.Remove(traceOut)
		out, c, err := countTestBinary(rctx, bp.bin, bp.dir, execTraceArgs(v, args, traceOut), runEnv(tc, v, ""))
		stdout.Write(out)
		if err != nil {
			status = "failed"
			if rctx.Err() == context.DeadlineExceeded {
				status = "timeout"
			}
			r.fail("round %d: %s [%s] under cachegrind: %v", s.Round+1, t.Name, v.Name, err)
			break
		}
		counts[k] = c
	}
	// Calibration needs one result per run: counts of a run that
	// matched no benchmark, or several, say nothing about an operation.
	if status == "ok" && !fixed && len(results.ResultLines(stdout.Bytes())) == 2 {
		next, enough := nextInstructionsN(n, float64(counts[1])-float64(counts[0]))
		if !enough {
			r.logf("%s: %dx gives %d instructions between N and 2N; calibrating with %dx", t.Name, n, int64(counts[1])-int64(counts[0]), next)
			n = next
			goto calibrate
		}
	}
	if status == "ok" {
		if r.instrN == nil {
			r.instrN = map[string]int{}
		}
		r.instrN[t.Name] = n
	}
	name := ""
	lines := results.ResultLines(stdout.Bytes()) // of the N run, then the 2N run
	if status == "ok" {
		switch {
		case len(lines) != 2:
			status = "no-results"
			r.fail("round %d: %s [%s]: -measure instructions needs exactly one benchmark per target; %s matched %d", s.Round+1, t.Name, v.Name, t.Bench, len(lines)/2)
		default:
			name = strings.Fields(lines[1])[0]
		}
	}
	if status == "ok" {
		perOp := (float64(counts[1]) - float64(counts[0])) / float64(n)
		cfg := r.cfg
		cfg.Variant, cfg.Toolchain, cfg.GODEBUG, cfg.Series = v.Name, tc.Version, v.GODEBUG, tc.Series
		cfg.GOMAXPROCS = cpu
		fmt.Fprintf(r.raw, "\n# round %d, %s\n%s%s\t%d\t%.2f instructions/op%s\n", s.Round+1, t.Name, cfg.Lines(), name, n, perOp, ownMetrics(lines[1]))
	}
	wall := time.Since(t0)
	fmt.Fprintf(r.log, "=== round %d: %s [%s]: cachegrind %s at %dx and %dx: %d and %d instructions (%s, status %s)\n%s\n",
		s.Round+1, t.Name, v.Name, bp.bin, n, 2*n, counts[0], counts[1], wall.Round(time.Millisecond), status, stdout.String())
	fmt.Fprintf(r.runs, "%d\t%s\t%s\t%s\t%.3f\t%.3f\t%.2f\t%.2f\n", s.Round+1, v.Name, t.Name, status, wall.Seconds(), 0.0, 0.0, 0.0)
}

// countTestBinary runs a test binary under cachegrind in dir and returns
// its standard output and instruction count.
func countTestBinary(ctx context.Context, bin, dir string, args, env []string) ([]byte, uint64, error) {
	var stdout bytes.Buffer
	n, err := census.Count(ctx, census.Run{Bin: bin, Args: args, Env: env, Dir: dir, Stdout: &stdout})
	return stdout.Bytes(), n, err
}

// skipUnit reports whether an instructions run leaves out a unit of a
// benchmark's result line: the testing package's own (B/op and
// allocs/op describe the allocator, not the count) and every time or
// rate (under valgrind a program runs tens of times slower).
func skipUnit(unit string) bool {
	return unit == "B/op" || unit == "allocs/op" || strings.HasSuffix(unit, "ns/op") || strings.HasSuffix(unit, "/s")
}

// ownMetrics returns, as "\tvalue unit" pairs, the metrics a benchmark
// result line reports with b.ReportMetric (what the run did, such as the
// share of mutex acquisitions made in starvation mode), for an
// instructions run to record next to instructions/op.
func ownMetrics(line string) string {
	f := strings.Fields(line)
	var sb strings.Builder
	for i := 2; i+1 < len(f); i += 2 {
		if _, err := strconv.ParseFloat(f[i], 64); err != nil || skipUnit(f[i+1]) {
			continue
		}
		fmt.Fprintf(&sb, "\t%s %s", f[i], f[i+1])
	}
	return sb.String()
}
