package harness

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/schedlab/schedlab/src/internal/series"
)

// File names inside a results folder.
const (
	RawFile      = "bench.txt"     // Go benchmark format, all variants interleaved
	LogFile      = "log.txt"       // complete output of every run
	RunsFile     = "runs.tsv"      // one line per run: timing, CPU, status
	MetadataFile = "metadata.json" // Metadata
)

// BenchOptions configures Bench.
type BenchOptions struct {
	Root      string // repository root
	Suite     *Suite
	Variants  []Variant
	Count     int           // rounds
	Benchtime string        // default -test.benchtime for targets without their own
	CPU       string        // -test.cpu: GOMAXPROCS of every benchmark, "" = the machine's
	Timeout   time.Duration // per run
	Out       string        // results folder
	Command   string        // the command line, for the record
	Stderr    io.Writer     // progress and errors
	Sweep     *SweepInfo    // set by Sweep
	// ContendedCPUs is how many CPUs' worth of time other processes (or
	// the hypervisor) may take during a run before it is flagged.
	ContendedCPUs float64
	// Trace adds, after the rounds, one traced run of every target
	// under every variant (see traceAll).
	Trace bool
	// Profile lists the profiles (ProfileKinds) of one more run of
	// every target under every variant, after the rounds (profileAll).
	Profile []string
	// Copies is how many processes of the benchmark a run starts side
	// by side (0 or 1: one). RawFile gets their mean, CopiesFile each.
	Copies int
	// Measure is MeasureTime (the benchmarks' own units) or
	// MeasureInstructions (instructions/op under cachegrind, see
	// runInstructions).
	Measure string
}

// VariantMeta records a variant as run.
type VariantMeta struct {
	Name      string `json:"name"`
	Toolchain string `json:"toolchain"` // spec
	GOROOT    string `json:"goroot"`
	Version   string `json:"version"`
	Series    string `json:"series"`
	GODEBUG   string `json:"godebug"`
	// Wrapper is the command the variant's benchmark binaries ran
	// under (e.g. numactl for an oracle variant); empty for most.
	Wrapper  []string          `json:"wrapper,omitempty"`
	Binaries map[string]string `json:"binaries"` // pkg key -> sha256 of the test binary
}

// Metadata describes a results folder.
type Metadata struct {
	Command   string    `json:"command"`
	Suite     string    `json:"suite"`
	Count     int       `json:"count"`
	Benchtime string    `json:"benchtime"`
	CPU       string    `json:"cpu,omitempty"`
	Copies    int       `json:"copies,omitempty"`
	Measure   string    `json:"measure,omitempty"`
	Timeout   string    `json:"timeout"`
	Started   time.Time `json:"started"`
	Finished  time.Time `json:"finished"`
	Complete  bool      `json:"complete"`
	Machine   Machine   `json:"machine"`
	// Doctor is schedlab doctor's report at the start of the run: what
	// the machine can measure and what distorts it.
	Doctor *Doctor `json:"doctor,omitempty"`
	// Physical says which physical evidence (PhysicalFile) the runs
	// collected, and why the rest could not be.
	Physical  *PhysicalInfo `json:"physical,omitempty"`
	Project   Provenance    `json:"project"`
	Upstream  string        `json:"upstream"`
	Series    string        `json:"series"`
	Variants  []VariantMeta `json:"variants"`
	Targets   []string      `json:"targets"`
	Failures  []string      `json:"failures,omitempty"`
	Contended []string      `json:"contended,omitempty"`
	Notes     []string      `json:"notes,omitempty"`
	Sweep     *SweepInfo    `json:"sweep,omitempty"`
	// Traces are the execution traces of `schedlab bench -trace`.
	Traces []TraceMeta `json:"traces,omitempty"`
	// Profiles are the profiles of `schedlab bench -profile`.
	Profiles []ProfileMeta `json:"profiles,omitempty"`
}

// SweepInfo marks a results folder written by Sweep.
type SweepInfo struct {
	Knob    string   `json:"knob"`
	Values  []string `json:"values"`
	Metrics []string `json:"metrics"`
	// Tradeoffs are "x:y" pairs of metrics; each gets a plot of y
	// against x with one point per variant, for every benchmark that
	// reports both (e.g. sysmon-wakeups/s:p99-wake-ns).
	Tradeoffs []string `json:"tradeoffs,omitempty"`
}

// ReadMetadata reads dir/metadata.json.
func ReadMetadata(dir string) (*Metadata, error) {
	data, err := os.ReadFile(filepath.Join(dir, MetadataFile))
	if err != nil {
		return nil, err
	}
	var m Metadata
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s: %v", filepath.Join(dir, MetadataFile), err)
	}
	return &m, nil
}

func (m *Metadata) write(dir string) error {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	tmp := filepath.Join(dir, MetadataFile+".tmp")
	if err := os.WriteFile(tmp, append(data, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, MetadataFile))
}

type builtPkg struct {
	bin string // test binary
	dir string // directory to run it in
	err error
}

type bench struct {
	opt BenchOptions
	// instrN is the iteration count of each target's instructions runs,
	// calibrated by its first run and then the same for every variant
	// and round (see runInstructions).
	instrN   map[string]int
	meta     *Metadata
	tcs      map[string]*Toolchain // by spec
	bins     map[string]map[string]*builtPkg
	raw, log *os.File
	runs     *os.File
	phys     *physicalProbe
	physOut  *os.File // PhysicalFile
	// copiesOut is CopiesFile, with -copies N; nil otherwise.
	copiesOut *os.File
	tmp       string
	cfg       BlockConfig
	logMu     sync.Mutex // logf may be called from concurrent builds
}

// contendedDefault is the default BenchOptions.ContendedCPUs.
const contendedDefault = 0.3

// ErrFailures is returned (wrapped) by Bench when some builds or runs
// failed; the results of the others are in the folder.
var ErrFailures = errors.New("some benchmarks failed")

// Bench builds the suite's test binaries once per toolchain and runs
// every target under every variant, Count rounds, interleaved. Results
// are appended to the folder as they come.
func Bench(ctx context.Context, opt BenchOptions) (*Metadata, error) {
	if opt.Count < 1 {
		return nil, fmt.Errorf("-count %d: want at least 1", opt.Count)
	}
	if opt.Stderr == nil {
		opt.Stderr = os.Stderr
	}
	if opt.Timeout <= 0 {
		opt.Timeout = 10 * time.Minute
	}
	if opt.ContendedCPUs == 0 {
		opt.ContendedCPUs = contendedDefault
	}
	if len(opt.Variants) == 0 {
		return nil, fmt.Errorf("no variants")
	}
	countNote := ""
	switch opt.Measure {
	case MeasureTime:
	case MeasureInstructions:
		if opt.Copies > 1 || opt.Trace || len(opt.Profile) > 0 {
			return nil, fmt.Errorf("-measure instructions counts one process per run: not with -copies, -trace or -profile")
		}
		// A count of a process is the count of one benchmark only
		// if the process runs one, and of work only if the work does
		// not follow the clock.
		var left []string
		opt.Suite, left = opt.Suite.OneBenchmarkEach().Countable()
		if len(opt.Suite.Targets) == 0 {
			return nil, fmt.Errorf("-measure instructions: every benchmark selected (%s) waits on time, so its instruction count measures time, not work", strings.Join(left, ", "))
		}
		if len(left) > 0 {
			countNote = fmt.Sprintf("-measure instructions left out %s: their operations wait on time, so their instruction counts measure time, not work", strings.Join(left, ", "))
		}
	default:
		return nil, fmt.Errorf("-measure %q: want %q or none (time)", opt.Measure, MeasureInstructions)
	}
	if _, err := os.Stat(filepath.Join(opt.Out, RawFile)); err == nil {
		return nil, fmt.Errorf("%s already holds results (%s); choose another -out", opt.Out, RawFile)
	}
	b := &bench{opt: opt, tcs: map[string]*Toolchain{}, bins: map[string]map[string]*builtPkg{}}
	upstream, err := ReadUpstream(filepath.Join(opt.Root, "toolchain", "UPSTREAM"))
	var notes []string
	if countNote != "" {
		notes = append(notes, countNote)
	}
	if err != nil {
		upstream = DefaultUpstream
		notes = append(notes, fmt.Sprintf("toolchain/UPSTREAM not readable (%v); assumed upstream %s", err, upstream))
	}
	series, err := SeriesHash(filepath.Join(opt.Root, "patches"))
	if err != nil {
		return nil, fmt.Errorf("series hash of patches/: %v", err)
	}
	m := ProbeMachine()
	b.meta = &Metadata{
		Command: opt.Command, Suite: opt.Suite.Name, Count: opt.Count, Benchtime: opt.Benchtime, CPU: opt.CPU, Copies: opt.Copies, Measure: opt.Measure,
		Timeout: opt.Timeout.String(), Started: time.Now().UTC().Truncate(time.Second),
		Machine: m, Project: ProbeProvenance(opt.Root), Upstream: upstream, Series: series, Notes: notes, Sweep: opt.Sweep,
		Doctor: RunDoctor(DoctorOptions{Perf: true}),
	}
	for _, t := range opt.Suite.Targets {
		b.meta.Targets = append(b.meta.Targets, t.Name)
	}
	b.phys = newPhysicalProbe("/proc", b.meta.Doctor)
	b.meta.Physical = &b.phys.info
	b.cfg = BlockConfig{Upstream: upstream, GOMAXPROCS: gomaxprocs(os.Environ()), CPU: m.CPU, NUMANodes: m.NUMANodes}
	for _, n := range notes {
		b.logf("note: %s", n)
	}

	// Resolve every toolchain before doing anything slow.
	for _, v := range opt.Variants {
		if b.tcs[v.Toolchain] != nil {
			continue
		}
		tc, err := ResolveToolchain(opt.Root, v.Toolchain, upstream, series)
		if err != nil {
			return nil, err
		}
		b.tcs[v.Toolchain] = tc
		b.logf("toolchain %s: %s (%s)", v.Toolchain, tc.Version, tc.GOROOT)
	}
	for _, v := range opt.Variants {
		tc := b.tcs[v.Toolchain]
		b.meta.Variants = append(b.meta.Variants, VariantMeta{Name: v.Name, Toolchain: v.Toolchain, GOROOT: tc.GOROOT,
			Version: tc.Version, Series: tc.Series, GODEBUG: v.GODEBUG, Wrapper: v.Wrapper, Binaries: map[string]string{}})
	}
	for _, v := range opt.Variants {
		if tc := b.tcs[v.Toolchain]; tc.Series == "none" {
			for _, kv := range strings.Split(v.GODEBUG, ",") {
				k, _, _ := strings.Cut(kv, "=")
				if slices.Contains(SchedlabKnobs, k) {
					n := fmt.Sprintf("variant %s sets %s, which the %s toolchain (%s) does not have: its runtime ignores it", v.Name, kv, v.Toolchain, tc.Version)
					b.meta.Notes = append(b.meta.Notes, n)
					b.logf("warning: %s", n)
				}
			}
		}
	}
	if err := os.MkdirAll(opt.Out, 0o755); err != nil {
		return nil, err
	}
	if err := b.meta.write(opt.Out); err != nil {
		return nil, err
	}

	b.tmp, err = os.MkdirTemp("", "schedlab-bench-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(b.tmp)
	// The physical probe finds the benchmark process by its executable,
	// which /proc shows with every symbolic link resolved.
	if b.tmp, err = filepath.EvalSymlinks(b.tmp); err != nil {
		return nil, err
	}
	for _, f := range []struct {
		p    **os.File
		name string
	}{{&b.raw, RawFile}, {&b.log, LogFile}, {&b.runs, RunsFile}, {&b.physOut, PhysicalFile}} {
		*f.p, err = os.OpenFile(filepath.Join(opt.Out, f.name), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return nil, err
		}
		defer (*f.p).Close()
	}
	if opt.Copies > 1 {
		if b.copiesOut, err = os.OpenFile(filepath.Join(opt.Out, CopiesFile), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644); err != nil {
			return nil, err
		}
		defer b.copiesOut.Close()
	}
	fmt.Fprint(b.physOut, physicalUnits)
	fmt.Fprintf(b.runs, "round\tvariant\tbenchmark\tstatus\twall_s\tcpu_s\tothers_cpus\tsteal_cpus\n")

	b.build(ctx)
	if err := ctx.Err(); err != nil {
		return b.finish(err)
	}
	b.runAll(ctx)
	if opt.Trace && ctx.Err() == nil {
		b.traceAll(ctx)
	}
	if len(opt.Profile) > 0 && ctx.Err() == nil {
		b.profileAll(ctx)
	}
	return b.finish(ctx.Err())
}

func (b *bench) finish(err error) (*Metadata, error) {
	b.meta.Finished = time.Now().UTC().Truncate(time.Second)
	if raw, rerr := os.ReadFile(filepath.Join(b.opt.Out, RawFile)); rerr == nil {
		if name := benchCPUName(raw); name != "" {
			b.meta.Machine.CPU = name
		}
	}
	b.meta.Complete = err == nil
	if werr := b.meta.write(b.opt.Out); werr != nil && err == nil {
		err = werr
	}
	if err == nil && len(b.meta.Failures) > 0 {
		err = fmt.Errorf("%w: %d failure(s), see %s", ErrFailures, len(b.meta.Failures), filepath.Join(b.opt.Out, MetadataFile))
	}
	return b.meta, err
}

func (b *bench) logf(format string, args ...any) {
	b.logMu.Lock()
	defer b.logMu.Unlock()
	fmt.Fprintf(b.opt.Stderr, "schedlab: "+format+"\n", args...)
}

func (b *bench) fail(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	b.meta.Failures = append(b.meta.Failures, msg)
	b.logf("FAIL: %s", msg)
	b.meta.write(b.opt.Out)
}

// build compiles each package's test binary once per toolchain. The
// toolchains build concurrently: one test binary's compile and link are
// mostly serial, so on two CPUs the stock and patched builds overlap
// instead of queueing (the main job's first result comes that much
// sooner). Within a toolchain the packages build in order.
func (b *bench) build(ctx context.Context) {
	specs := make([]string, 0, len(b.tcs))
	for s := range b.tcs {
		specs = append(specs, s)
	}
	sort.Strings(specs)
	pkgs := b.opt.Suite.Pkgs()
	built := make([][]*builtPkg, len(specs))
	var wg sync.WaitGroup
	for i, spec := range specs {
		tc := b.tcs[spec]
		built[i] = make([]*builtPkg, len(pkgs))
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j, p := range pkgs {
				if ctx.Err() != nil {
					return
				}
				start := time.Now()
				b.logf("building %s test binary with %s (%s)", p.Import, spec, tc.Version)
				bp := b.buildPkg(ctx, tc, p)
				built[i][j] = bp
				if bp.err == nil {
					b.logf("built %s with %s in %s", p.Key, spec, time.Since(start).Round(100*time.Millisecond))
				}
			}
		}()
	}
	wg.Wait()
	for i, spec := range specs {
		tc := b.tcs[spec]
		b.bins[spec] = map[string]*builtPkg{}
		for j, p := range pkgs {
			bp := built[i][j]
			if bp == nil {
				continue // cancelled
			}
			b.bins[spec][p.Key] = bp
			if bp.err != nil {
				b.fail("build of %s with toolchain %s (%s): %v", p.Import, spec, tc.Version, bp.err)
				continue
			}
			sum, err := series.SHA256File(bp.bin)
			if err == nil {
				for k := range b.meta.Variants {
					if b.meta.Variants[k].Toolchain == spec {
						b.meta.Variants[k].Binaries[p.Key] = sum
					}
				}
			}
		}
	}
	b.meta.write(b.opt.Out)
}

func (b *bench) buildPkg(ctx context.Context, tc *Toolchain, p *Pkg) *builtPkg {
	bin := filepath.Join(b.tmp, fmt.Sprintf("%s-%s.test", p.Key, sanitize(tc.Spec)))
	bp := &builtPkg{bin: bin}
	var dir string
	switch p.Kind {
	case StdPkg:
		dir = filepath.Join(tc.GOROOT, "src")
		bp.dir = filepath.Join(tc.GOROOT, "src", filepath.FromSlash(p.Import))
	case LocalPkg:
		dir = b.opt.Root
		bp.dir = filepath.Join(b.opt.Root, filepath.FromSlash(strings.TrimPrefix(p.Import, ModulePath+"/")))
	case ExternalPkg:
		dir = filepath.Join(b.tmp, "ext-"+sanitize(tc.Spec), p.Key)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			bp.err = err
			return bp
		}
		gomod := "module schedlab.local/external\n\ngo 1.26\n"
		if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644); err != nil {
			bp.err = err
			return bp
		}
		if _, err := b.goCmd(ctx, tc, dir, "get", "-t", p.Import+"@"+p.Version); err != nil {
			bp.err = err
			return bp
		}
		out, err := b.goCmd(ctx, tc, dir, "list", "-f", "{{.Dir}}", p.Import)
		if err != nil {
			bp.err = err
			return bp
		}
		bp.dir = firstLine(out)
	}
	if _, err := b.goCmd(ctx, tc, dir, "test", "-c", "-trimpath", "-o", bin, p.Import); err != nil {
		bp.err = err
	}
	return bp
}

func (b *bench) goCmd(ctx context.Context, tc *Toolchain, dir string, args ...string) ([]byte, error) {
	return runGo(ctx, tc, dir, args...)
}

// runGo runs tc's go command in dir and returns its standard output; on
// failure the error carries the end of its standard error.
func runGo(ctx context.Context, tc *Toolchain, dir string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, tc.GoCmd(), args...)
	cmd.Dir = dir
	cmd.Env = tc.Env()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if len(msg) > 2000 {
			msg = "..." + msg[len(msg)-2000:]
		}
		return out, fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, msg)
	}
	return out, nil
}

func (b *bench) runAll(ctx context.Context) {
	opt := b.opt
	targets := opt.Suite.Targets
	// A target runs only if every variant has its binary: a comparison
	// with a hole in it is not one.
	skip := map[int]bool{}
	for ti, t := range targets {
		for _, v := range opt.Variants {
			if bp := b.bins[v.Toolchain][t.Pkg.Key]; bp == nil || bp.err != nil {
				skip[ti] = true
			}
		}
		if skip[ti] {
			b.fail("benchmark %s skipped: its test binary did not build for every variant", t.Name)
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
			b.logf("interrupted after %d of %d runs; partial results are in %s", i, len(todo), opt.Out)
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
			b.runInstructions(ctx, s, t, v)
		} else {
			b.runOne(ctx, s, t, v)
		}
	}
	fmt.Fprintf(opt.Stderr, "schedlab: %d runs done in %s\n", len(todo), time.Since(start).Round(time.Second))
}

// runArgs returns the test binary's flags for one run of t, and the
// run's time limit.
func (b *bench) runArgs(t Target) ([]string, time.Duration) {
	timeout := b.opt.Timeout
	if t.Timeout > 0 {
		timeout = t.Timeout
	}
	benchtime := t.Benchtime
	if b.opt.Benchtime != "" {
		benchtime = b.opt.Benchtime
	}
	args := []string{"-test.run=^$", "-test.bench=" + t.Bench, "-test.count=1", "-test.benchmem",
		"-test.timeout=" + (timeout + 30*time.Second).String()}
	if benchtime != "" {
		args = append(args, "-test.benchtime="+benchtime)
	}
	if b.opt.CPU != "" {
		args = append(args, "-test.cpu="+b.opt.CPU)
	}
	return args, timeout
}

// runEnv is the environment of a run of variant v with toolchain tc;
// extra GODEBUG settings go after the variant's own.
func runEnv(tc *Toolchain, v Variant, extra string) []string {
	env := tc.Env()
	env = append(env, "PATH="+filepath.Join(tc.GOROOT, "bin")+string(os.PathListSeparator)+os.Getenv("PATH"))
	godebug := v.GODEBUG
	if extra != "" {
		godebug = strings.TrimPrefix(godebug+","+extra, ",")
	}
	if godebug != "" {
		env = append(env, "GODEBUG="+godebug)
	}
	return env
}

func (b *bench) runOne(ctx context.Context, s Slot, t Target, v Variant) {
	tc := b.tcs[v.Toolchain]
	bp := b.bins[v.Toolchain][t.Pkg.Key]
	args, timeout := b.runArgs(t)
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	// With -copies N the run is N processes of the benchmark, started
	// together: the multi-process case, where each process places and
	// binds its threads on its own.
	copies := max(b.opt.Copies, 1)
	cmds := make([]*exec.Cmd, copies)
	stdouts := make([]bytes.Buffer, copies)
	stderrs := make([]bytes.Buffer, copies)
	var perfOuts []string
	var argv []string
	for k := range cmds {
		perfOut := filepath.Join(b.tmp, fmt.Sprintf("perf-stat-%d.txt", k))
		os.Remove(perfOut)
		if b.phys.perf != "" {
			perfOuts = append(perfOuts, perfOut)
		}
		argv = b.phys.wrap(append(append(slices.Clone(v.Wrapper), bp.bin), args...), perfOut)
		cmd := exec.CommandContext(rctx, argv[0], argv[1:]...)
		cmd.Dir = bp.dir
		cmd.Env = runEnv(tc, v, "")
		cmd.Stdout = &stdouts[k]
		cmd.Stderr = &stderrs[k]
		cmd.WaitDelay = 5 * time.Second
		cmds[k] = cmd
	}
	phys := b.phys.begin(bp.bin, perfOuts)
	before := readCPUStat()
	t0 := time.Now()
	var err error
	for _, cmd := range cmds {
		if e := cmd.Start(); e != nil && err == nil {
			err = e
		}
	}
	pid := 0
	if cmds[0].Process != nil {
		pid = cmds[0].Process.Pid
	}
	go phys.sample(pid)
	var cpu time.Duration
	for _, cmd := range cmds {
		if cmd.Process == nil {
			continue
		}
		if e := cmd.Wait(); e != nil && err == nil {
			err = e
		}
		cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	wall := time.Since(t0)
	after := readCPUStat()
	physical := phys.end()
	others, steal := contention(before, after, cpu, wall)
	var stdout, stderr bytes.Buffer
	for k := range cmds {
		if copies > 1 {
			fmt.Fprintf(&stdout, "--- copy %d\n", k+1)
		}
		stdout.Write(stdouts[k].Bytes())
		stderr.Write(stderrs[k].Bytes())
	}

	status := "ok"
	switch {
	case rctx.Err() == context.DeadlineExceeded:
		status = "timeout"
		b.fail("round %d: %s [%s] timed out after %s", s.Round+1, t.Name, v.Name, timeout)
	case ctx.Err() != nil:
		status = "interrupted"
	case err != nil:
		status = "failed"
		b.fail("round %d: %s [%s] failed: %v%s", s.Round+1, t.Name, v.Name, err, tail(stdout.String()+stderr.String(), 15))
	}

	// Keep every benchmark line we got, even from a run that failed.
	cfg := b.cfg
	cfg.Variant, cfg.Toolchain, cfg.GODEBUG, cfg.Series = v.Name, tc.Version, v.GODEBUG, tc.Series
	var kept bytes.Buffer
	nbench := 0
	results := make([][]string, copies)
	for k := range cmds {
		sc := bufio.NewScanner(bytes.NewReader(stdouts[k].Bytes()))
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "cpu: "):
				// The test binary's CPU name (from cpuid) goes into our
				// cpu: line rather than overriding it.
				cfg.CPU = strings.TrimSpace(strings.TrimPrefix(line, "cpu: "))
			case isResultLine(line):
				results[k] = append(results[k], line)
			case k == 0 && (strings.HasPrefix(line, "Unit ") || isConfigLine(line)):
				kept.WriteString(line + "\n")
			}
		}
	}
	if copies == 1 {
		for _, line := range results[0] {
			kept.WriteString(line + "\n")
		}
		nbench = len(results[0])
	} else {
		var each bytes.Buffer
		for k, lines := range results {
			if len(lines) > 0 {
				fmt.Fprintf(&each, "\n# round %d, %s\n%scopy: %d\n%s\n", s.Round+1, t.Name, cfg.Lines(), k+1, strings.Join(lines, "\n"))
			}
		}
		b.copiesOut.Write(each.Bytes())
		for _, line := range meanOfCopies(results) {
			kept.WriteString(line + "\n")
			nbench++
		}
	}
	if status == "ok" && nbench == 0 {
		status = "no-results"
		b.fail("round %d: %s [%s]: no benchmark results (does %s match a benchmark?)%s", s.Round+1, t.Name, v.Name, t.Bench, tail(stdout.String()+stderr.String(), 10))
	}
	flag := ""
	if others+steal > b.opt.ContendedCPUs && status == "ok" {
		flag = fmt.Sprintf("round %d: %s [%s]: other load took %.2f CPUs (steal %.2f) during the run; it was short of CPU", s.Round+1, t.Name, v.Name, others, steal)
		b.meta.Contended = append(b.meta.Contended, flag)
		b.logf("warning: %s", flag)
	}
	if nbench > 0 {
		fmt.Fprintf(b.raw, "\n# round %d, %s\n%s%s", s.Round+1, t.Name, cfg.Lines(), kept.String())
	}
	if status == "ok" && len(physical) > 0 {
		fmt.Fprintf(b.physOut, "\n# round %d, %s\n%s%s", s.Round+1, t.Name, cfg.Lines(), physicalLine(physicalName(t.Name), physical))
	}
	if copies > 1 {
		argv = append([]string{fmt.Sprintf("(%d copies)", copies)}, argv...)
	}
	fmt.Fprintf(b.log, "=== round %d: %s [%s]: %s (%s, status %s)\n%s%s\n", s.Round+1, t.Name, v.Name, strings.Join(argv, " "),
		wall.Round(time.Millisecond), status, stdout.String(), stderr.String())
	fmt.Fprintf(b.runs, "%d\t%s\t%s\t%s\t%.3f\t%.3f\t%.2f\t%.2f\n", s.Round+1, v.Name, t.Name, status, wall.Seconds(), cpu.Seconds(), others, steal)
	if flag != "" {
		b.meta.write(b.opt.Out)
	}
}

// isResultLine reports whether line is a complete benchmark result
// (a run killed mid-benchmark leaves just the name).
func isResultLine(line string) bool {
	f := strings.Fields(line)
	if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
		return false
	}
	if _, err := strconv.Atoi(f[1]); err != nil {
		return false
	}
	_, err := strconv.ParseFloat(f[2], 64)
	return err == nil
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

func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			return r
		}
		return '_'
	}, s)
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
