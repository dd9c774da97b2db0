package bench

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/schedlab/schedlab/src/internal/physical"
	"github.com/schedlab/schedlab/src/internal/results"
	"github.com/schedlab/schedlab/src/internal/toolchain"
)

func (r *runner) runAll(ctx context.Context) {
	opt := r.opt
	targets := opt.Suite.Targets
	// A target runs only if every variant has its binary: a comparison
	// with a hole in it is not one.
	skip := map[int]bool{}
	for ti, t := range targets {
		for _, v := range opt.Variants {
			if bp := r.bins[v.Toolchain][t.Pkg.Key]; bp == nil || bp.err != nil {
				skip[ti] = true
			}
		}
		if skip[ti] {
			r.fail("benchmark %s skipped: its test binary did not build for every variant", t.Name)
		}
	}
	slots := Schedule(opt.Count, len(targets), len(opt.Variants))
	var todo []Slot
	for _, s := range slots {
		if !skip[s.Target] {
			todo = append(todo, s)
		}
	}
	start := time.Now()
	for i, s := range todo {
		if ctx.Err() != nil {
			r.logf("interrupted after %d of %d runs; partial results are in %s", i, len(todo), opt.Out)
			return
		}
		t, v := targets[s.Target], opt.Variants[s.Variant]
		elapsed := time.Since(start)
		eta := "?"
		if i > 0 {
			eta = (elapsed / time.Duration(i) * time.Duration(len(todo)-i)).Round(time.Second).String()
		}
		fmt.Fprintf(opt.Stderr, "schedlab: round %d of %d, run %d/%d: %s [%s]  elapsed %s, about %s left\n",
			s.Round+1, opt.Count, i+1, len(todo), t.Name, v.Name, elapsed.Round(time.Second), eta)
		if opt.Measure == MeasureInstructions {
			r.runInstructions(ctx, s, t, v)
		} else {
			r.runOne(ctx, s, t, v)
		}
	}
	fmt.Fprintf(opt.Stderr, "schedlab: %d runs done in %s\n", len(todo), time.Since(start).Round(time.Second))
}

// runArgs returns the test binary's flags for one run of t, and the
// run's time limit.
func (r *runner) runArgs(t Target) ([]string, time.Duration) {
	timeout := r.opt.Timeout
	if t.Timeout > 0 {
		timeout = t.Timeout
	}
	benchtime := t.Benchtime
	if r.opt.Benchtime != "" {
		benchtime = r.opt.Benchtime
	}
	args := []string{"-test.run=^$", "-test.bench=" + t.Bench, "-test.count=1", "-test.benchmem",
		"-test.timeout=" + (timeout + 30*time.Second).String()}
	if benchtime != "" {
		args = append(args, "-test.benchtime="+benchtime)
	}
	if r.opt.CPU != "" {
		args = append(args, "-test.cpu="+r.opt.CPU)
	}
	return args, timeout
}

// runEnv is the environment of a run of variant v with toolchain tc;
// extra GODEBUG settings go after the variant's own.
func runEnv(tc *toolchain.Toolchain, v Variant, extra string) []string {
	env := tc.Env()
	env = append(env, "PATH="+filepath.Join(tc.GOROOT, "bin")+string(os.PathListSeparator)+os.Getenv("PATH"))
	if godebug := joinGODEBUG(v.GODEBUG, extra); godebug != "" {
		env = append(env, "GODEBUG="+godebug)
	}
	return env
}

// joinGODEBUG joins two GODEBUG settings lists, either of which may be
// empty.
func joinGODEBUG(a, b string) string {
	if a == "" || b == "" {
		return a + b
	}
	return a + "," + b
}

// runOne runs target t under variant v once, in round s.Round, and
// records the run: its results in bench.txt (and, with copies, each
// copy's in copies.txt), its physical evidence, its output in log.txt,
// its line in runs.tsv, and any failure or contention in the metadata.
// Result lines are kept even from a run that failed.
func (r *runner) runOne(ctx context.Context, s Slot, t Target, v Variant) RunResult {
	tc := r.tcs[v.Toolchain]
	bp := r.bins[v.Toolchain][t.Pkg.Key]
	args, timeout := r.runArgs(t)
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	ps := r.start(rctx, tc, bp, v, args)
	m := r.measure(ps, bp.bin)
	stdout, stderr := ps.output()

	status := "ok"
	switch {
	case rctx.Err() == context.DeadlineExceeded:
		status = "timeout"
		r.fail("round %d: %s [%s] timed out after %s", s.Round+1, t.Name, v.Name, timeout)
	case ctx.Err() != nil:
		status = "interrupted"
	case m.err != nil:
		status = "failed"
		r.fail("round %d: %s [%s] failed: %v%s", s.Round+1, t.Name, v.Name, m.err, tail(stdout+stderr, 15))
	}

	cfg := r.cfg
	cfg.Variant, cfg.Toolchain, cfg.GODEBUG, cfg.Series = v.Name, tc.Version, v.GODEBUG, tc.Series
	kept, nbench := r.keep(s, t, ps, &cfg)
	if status == "ok" && nbench == 0 {
		status = "no-results"
		r.fail("round %d: %s [%s]: no benchmark results (does %s match a benchmark?)%s", s.Round+1, t.Name, v.Name, t.Bench, tail(stdout+stderr, 10))
	}
	flag := ""
	if m.others+m.steal > r.opt.ContendedCPUs && status == "ok" {
		flag = fmt.Sprintf("round %d: %s [%s]: other load took %.2f CPUs (steal %.2f) during the run; it was short of CPU", s.Round+1, t.Name, v.Name, m.others, m.steal)
		r.meta.Contended = append(r.meta.Contended, flag)
		r.logf("warning: %s", flag)
	}
	if nbench > 0 {
		fmt.Fprintf(r.raw, "\n# round %d, %s\n%s%s", s.Round+1, t.Name, cfg.Lines(), kept)
	}
	if status == "ok" && len(m.physical) > 0 {
		fmt.Fprintf(r.physOut, "\n# round %d, %s\n%s%s", s.Round+1, t.Name, cfg.Lines(), physical.Line(physical.BenchName(t.Name), m.physical))
	}
	argv := ps.argv
	if len(ps.cmds) > 1 {
		argv = append([]string{fmt.Sprintf("(%d copies)", len(ps.cmds))}, argv...)
	}
	fmt.Fprintf(r.log, "=== round %d: %s [%s]: %s (%s, status %s)\n%s%s\n", s.Round+1, t.Name, v.Name, strings.Join(argv, " "),
		m.wall.Round(time.Millisecond), status, stdout, stderr)
	fmt.Fprintf(r.runs, "%d\t%s\t%s\t%s\t%.3f\t%.3f\t%.2f\t%.2f\n", s.Round+1, v.Name, t.Name, status, m.wall.Seconds(), m.cpu.Seconds(), m.others, m.steal)
	if flag != "" {
		r.meta.Write(r.opt.Out)
	}
	return RunResult{Variant: v.Name, Target: t.Name, Status: status, Wall: m.wall, CPU: m.cpu, Contended: flag != "", Values: ParseResults(kept)}
}

// procs are the processes of one run: with -copies N, N processes of
// the benchmark, started together (the multi-process case, where each
// process places and binds its threads on its own); else one.
type procs struct {
	cmds             []*exec.Cmd
	stdouts, stderrs []bytes.Buffer
	perfOuts         []string // each process's perf stat output, when counted
	argv             []string // the command line of the last, for the log
}

// start prepares the processes of a run of bp under variant v (they
// start in measure).
func (r *runner) start(ctx context.Context, tc *toolchain.Toolchain, bp *builtPkg, v Variant, args []string) *procs {
	copies := max(r.opt.Copies, 1)
	ps := &procs{cmds: make([]*exec.Cmd, copies), stdouts: make([]bytes.Buffer, copies), stderrs: make([]bytes.Buffer, copies)}
	for k := range ps.cmds {
		perfOut := filepath.Join(r.tmp, fmt.Sprintf("perf-stat-%d.txt", k))
		os.Remove(perfOut)
		if r.phys.PerfStat() {
			ps.perfOuts = append(ps.perfOuts, perfOut)
		}
		traceOut := filepath.Join(r.tmp, fmt.Sprintf("exectrace-%d.out", k))
		os.Remove(traceOut)
		ps.argv = r.phys.Wrap(append(append(slices.Clone(v.Wrapper), bp.bin), execTraceArgs(v, args, traceOut)...), perfOut)
		cmd := exec.CommandContext(ctx, ps.argv[0], ps.argv[1:]...)
		cmd.Dir = bp.dir
		cmd.Env = runEnv(tc, v, "")
		cmd.Stdout = &ps.stdouts[k]
		cmd.Stderr = &ps.stderrs[k]
		cmd.WaitDelay = 5 * time.Second
		ownGroup(cmd)
		ps.cmds[k] = cmd
	}
	return ps
}

// A measurement is what a run's processes did, from start to exit.
type measurement struct {
	err           error         // the first error starting or waiting for a process
	cpu, wall     time.Duration // CPU time of all the processes; wall time of the run
	others, steal float64       // CPUs' worth of time that others and the hypervisor took meanwhile
	physical      []physical.Metric
}

// measure starts the processes and waits for them, with the machine's
// CPU times read and the physical evidence collected around them. bin is
// the benchmark binary, by which the physical probe finds its process
// under a wrapper.
func (r *runner) measure(ps *procs, bin string) measurement {
	var m measurement
	phys := r.phys.Begin(bin, ps.perfOuts)
	before := readCPUStat()
	t0 := time.Now()
	for _, cmd := range ps.cmds {
		if e := cmd.Start(); e != nil && m.err == nil {
			m.err = e
		}
	}
	pid := 0
	if ps.cmds[0].Process != nil {
		pid = ps.cmds[0].Process.Pid
	}
	go phys.Sample(pid)
	for _, cmd := range ps.cmds {
		if cmd.Process == nil {
			continue
		}
		if e := cmd.Wait(); e != nil && m.err == nil {
			m.err = e
		}
		m.cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	m.wall = time.Since(t0)
	after := readCPUStat()
	m.physical = phys.End()
	m.others, m.steal = contention(before, after, m.cpu, m.wall)
	return m
}

// output is the run's standard output and standard error, the copies'
// one after the other, each copy's output headed by a "--- copy K" line.
func (ps *procs) output() (stdout, stderr string) {
	var out, errs bytes.Buffer
	for k := range ps.cmds {
		if len(ps.cmds) > 1 {
			fmt.Fprintf(&out, "--- copy %d\n", k+1)
		}
		out.Write(ps.stdouts[k].Bytes())
		errs.Write(ps.stderrs[k].Bytes())
	}
	return out.String(), errs.String()
}

// keep returns what bench.txt gets of the run's output, and how many
// results that is: the first process's Unit and configuration lines,
// then its result lines or, with copies, the mean of theirs (each copy's
// own go to copies.txt). The test binary's CPU name (from cpuid) goes
// into cfg's cpu: line rather than overriding it.
func (r *runner) keep(s Slot, t Target, ps *procs, cfg *results.BlockConfig) (string, int) {
	var kept bytes.Buffer
	perCopy := make([][]string, len(ps.cmds))
	for k := range ps.cmds {
		sc := bufio.NewScanner(bytes.NewReader(ps.stdouts[k].Bytes()))
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "cpu: "):
				cfg.CPU = strings.TrimSpace(strings.TrimPrefix(line, "cpu: "))
			case results.IsResultLine(line):
				perCopy[k] = append(perCopy[k], line)
			case k == 0 && (strings.HasPrefix(line, "Unit ") || isConfigLine(line)):
				kept.WriteString(line + "\n")
			}
		}
	}
	if len(ps.cmds) == 1 {
		for _, line := range perCopy[0] {
			kept.WriteString(line + "\n")
		}
		return kept.String(), len(perCopy[0])
	}
	var each bytes.Buffer
	for k, lines := range perCopy {
		if len(lines) > 0 {
			fmt.Fprintf(&each, "\n# round %d, %s\n%scopy: %d\n%s\n", s.Round+1, t.Name, cfg.Lines(), k+1, strings.Join(lines, "\n"))
		}
	}
	r.copiesOut.Write(each.Bytes())
	nbench := 0
	for _, line := range meanOfCopies(perCopy) {
		kept.WriteString(line + "\n")
		nbench++
	}
	return kept.String(), nbench
}

// isConfigLine reports whether line looks like a benchmark-format
// configuration line (key: value, key starting lower case).
func isConfigLine(line string) bool {
	k, v, ok := strings.Cut(line, ":")
	if !ok || k == "" || !strings.HasPrefix(v, " ") || strings.ContainsAny(k, " \t") {
		return false
	}
	c := k[0]
	return c >= 'a' && c <= 'z'
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	if len(lines) == 1 && lines[0] == "" {
		return ""
	}
	return "\n\t" + strings.Join(lines, "\n\t")
}

type cpuStat struct{ busy, steal int64 }

// readCPUStat reads the machine's total busy and steal time, in clock
// ticks, from /proc/stat.
func readCPUStat() cpuStat {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return cpuStat{-1, -1}
	}
	line := firstLine(data)
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return cpuStat{-1, -1}
	}
	var v [8]int64
	for i := range v {
		fmt.Sscan(f[i+1], &v[i])
	}
	// user nice system idle iowait irq softirq steal
	return cpuStat{busy: v[0] + v[1] + v[2] + v[5] + v[6], steal: v[7]}
}

// contention returns how many CPUs' worth of time others (processes that
// are not the run, and the hypervisor's steal) used during a run.
func contention(before, after cpuStat, cpu, wall time.Duration) (others, steal float64) {
	if before.busy < 0 || after.busy < 0 || wall <= 0 {
		return 0, 0
	}
	const tick = 100 // USER_HZ on Linux
	busy := float64(after.busy-before.busy) / tick
	others = (busy - cpu.Seconds()) / wall.Seconds()
	steal = float64(after.steal-before.steal) / tick / wall.Seconds()
	// Tick granularity makes short runs imprecise; don't report noise.
	if others < 0 || wall < 200*time.Millisecond {
		others = 0
	}
	if others > float64(runtime.NumCPU()) {
		others = float64(runtime.NumCPU())
	}
	return others, steal
}

// benchCPUName returns the CPU name of the first "cpu:" line of Go
// benchmark output. The testing package names the CPU its own way (the
// CPUID brand string on x86, else /proc/cpuinfo); using its name in the
// metadata gives a results folder one name for its CPU, the one
// benchstat prints.
func benchCPUName(raw []byte) string {
	for _, line := range strings.Split(string(raw), "\n") {
		if name, ok := strings.CutPrefix(line, "cpu: "); ok {
			return strings.TrimSpace(name)
		}
	}
	return ""
}

// gomaxprocs is the GOMAXPROCS a child process will get.
func gomaxprocs(env []string) string {
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "GOMAXPROCS="); ok && v != "" {
			return v
		}
	}
	return fmt.Sprint(runtime.NumCPU())
}

func firstLine(b []byte) string {
	b, _, _ = bytes.Cut(b, []byte("\n"))
	return strings.TrimSpace(string(b))
}
