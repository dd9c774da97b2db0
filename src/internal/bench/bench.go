// Package bench runs schedlab's benchmark suites against a set of
// variants (a toolchain plus GODEBUG knobs, optionally under a wrapper
// command) and writes a results folder: it builds each package's test
// binary once per toolchain, runs every target under every variant
// round by round in a rotating order (Schedule), and records each run's
// results, output, timing, contention and physical evidence as it
// comes. Sweeps, copies, instruction counts, traced and profiled runs
// are ways of running, so they are here too.
//
// Everything that decides what runs and how (suites, variants, knobs) is
// in this package. What a folder holds is package results's, and what is
// made of it afterwards is package report's, which does not import this
// one: a report depends only on what the folder holds, so a folder
// written long ago reports the same however the runner has changed.
package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/schedlab/schedlab/src/internal/physical"
	"github.com/schedlab/schedlab/src/internal/results"
	"github.com/schedlab/schedlab/src/internal/toolchain"
)

// Options configures Run.
type Options struct {
	Root      string // repository root
	Suite     *Suite
	Variants  []Variant
	Count     int                // rounds
	Benchtime string             // default -test.benchtime for targets without their own
	CPU       string             // -test.cpu: GOMAXPROCS of every benchmark, "" = the machine's
	Timeout   time.Duration      // per run
	Out       string             // results folder
	Command   string             // the command line, for the record
	Stderr    io.Writer          // progress and errors
	Sweep     *results.SweepInfo // set by `schedlab sweep`
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
	// by side (0 or 1: one). results.RawFile gets their mean,
	// results.CopiesFile each.
	Copies int
	// Measure is MeasureTime (the benchmarks' own units) or
	// MeasureInstructions (instructions/op under cachegrind, see
	// runInstructions).
	Measure string
	// BuildOnly, when set, is a folder: Run builds the suite's test
	// binaries for every variant's toolchain into it, writes its
	// PrebuiltFile and runs nothing (Out is not used).
	BuildOnly string
	// Prebuilt, when set, is a BuildOnly folder whose binaries Run
	// uses instead of building: for a machine with no Go toolchain,
	// such as a NUMA guest. Root may then be "".
	Prebuilt string
}

// A runner is one call of Run: the folder it writes and what it has
// built and run so far.
type runner struct {
	opt Options
	// instrN is the iteration count of each target's instructions runs,
	// calibrated by its first run and then the same for every variant
	// and round (see runInstructions).
	instrN   map[string]int
	meta     *results.Metadata
	tcs      map[string]*toolchain.Toolchain // by spec
	bins     map[string]map[string]*builtPkg
	raw, log *os.File
	runs     *os.File
	phys     *physical.Probe
	physOut  *os.File // results.PhysicalFile
	// copiesOut is results.CopiesFile, with -copies N; nil otherwise.
	copiesOut *os.File
	tmp       string
	cfg       results.BlockConfig
	logMu     sync.Mutex // logf may be called from concurrent builds
	pre       *prebuilt  // Options.Prebuilt's manifest
}

// ErrFailures is returned (wrapped) by Run when some builds or runs
// failed; the results of the others are in the folder.
var ErrFailures = errors.New("some benchmarks failed")

// Run builds the suite's test binaries once per toolchain and runs
// every target under every variant, Count rounds, interleaved. Results
// are appended to the folder as they come.
func Run(ctx context.Context, opt Options) (*results.Metadata, error) {
	countNote, err := opt.check()
	if err != nil {
		return nil, err
	}
	if opt.BuildOnly != "" {
		return nil, buildOnly(ctx, opt, countNote)
	}
	if _, err := os.Stat(filepath.Join(opt.Out, results.RawFile)); err == nil {
		return nil, fmt.Errorf("%s already holds results (%s); choose another -out", opt.Out, results.RawFile)
	}
	r, err := newRunner(opt, countNote)
	if err != nil {
		return nil, err
	}
	cleanup, err := r.open()
	defer cleanup()
	if err != nil {
		return nil, err
	}

	if r.pre != nil {
		r.usePrebuilt()
	} else {
		r.build(ctx)
	}
	if err := ctx.Err(); err != nil {
		return r.finish(err)
	}
	r.runAll(ctx)
	if opt.Trace && ctx.Err() == nil {
		r.traceAll(ctx)
	}
	if len(opt.Profile) > 0 && ctx.Err() == nil {
		r.profileAll(ctx)
	}
	return r.finish(ctx.Err())
}

// open writes the folder's metadata, makes the temporary folder the
// test binaries go into and opens the folder's files for appending. The
// function it returns closes the files and removes the temporary
// folder, also when open fails part way.
func (r *runner) open() (cleanup func(), err error) {
	cleanup = func() {}
	if err := os.MkdirAll(r.opt.Out, 0o755); err != nil {
		return cleanup, err
	}
	if err := r.meta.Write(r.opt.Out); err != nil {
		return cleanup, err
	}
	tmp, err := os.MkdirTemp("", "schedlab-bench-")
	if err != nil {
		return cleanup, err
	}
	cleanup = func() { os.RemoveAll(tmp) }
	// The physical probe finds the benchmark process by its executable,
	// which /proc shows with every symbolic link resolved.
	if r.tmp, err = filepath.EvalSymlinks(tmp); err != nil {
		return cleanup, err
	}
	closeFiles, err := r.openFiles()
	cleanup = func() { closeFiles(); os.RemoveAll(tmp) }
	return cleanup, err
}

// check validates opt and fills in its defaults. With -measure
// instructions it narrows the suite to what can be counted, and returns
// the note that says what it left out ("" if nothing).
func (opt *Options) check() (countNote string, err error) {
	if opt.Count < 1 {
		return "", fmt.Errorf("-count %d: want at least 1", opt.Count)
	}
	if opt.Stderr == nil {
		opt.Stderr = os.Stderr
	}
	if opt.Timeout <= 0 {
		opt.Timeout = 10 * time.Minute
	}
	if opt.ContendedCPUs == 0 {
		opt.ContendedCPUs = results.DefaultContendedCPUs
	}
	if len(opt.Variants) == 0 {
		return "", fmt.Errorf("no variants")
	}
	if opt.BuildOnly != "" && opt.Prebuilt != "" {
		return "", fmt.Errorf("-build-only and -prebuilt: one or the other")
	}
	if opt.Prebuilt != "" && opt.Trace {
		return "", fmt.Errorf("-trace analyses traces with the patched toolchain's go tool trace: not with -prebuilt")
	}
	switch opt.Measure {
	case MeasureTime:
	case MeasureInstructions:
		if opt.Copies > 1 || opt.Trace || len(opt.Profile) > 0 {
			return "", fmt.Errorf("-measure instructions counts one process per run: not with -copies, -trace or -profile")
		}
		// cachegrind runs the test binary itself: a wrapper would
		// either be counted or, worse, silently not apply.
		for _, v := range opt.Variants {
			if len(v.Wrapper) > 0 {
				return "", fmt.Errorf("-measure instructions: variant %s runs under a wrapper (%s), which cachegrind cannot count; trace with -exectrace instead of a wrapper", v.Name, strings.Join(v.Wrapper, " "))
			}
		}
		// A count of a process is the count of one benchmark only
		// if the process runs one, and of work only if the work does
		// not follow the clock.
		var left []string
		opt.Suite, left = opt.Suite.OneBenchmarkEach().Countable()
		if len(opt.Suite.Targets) == 0 {
			return "", fmt.Errorf("-measure instructions: every benchmark selected (%s) waits on time, so its instruction count measures time, not work", strings.Join(left, ", "))
		}
		if len(left) > 0 {
			countNote = fmt.Sprintf("-measure instructions left out %s: their operations wait on time, so their instruction counts measure time, not work", strings.Join(left, ", "))
		}
	default:
		return "", fmt.Errorf("-measure %q: want %q or none (time)", opt.Measure, MeasureInstructions)
	}
	// A wrapper such as numactl --cpunodebind=0 narrows the CPUs its
	// process may use, and with them Go's default GOMAXPROCS: the
	// wrapped variant would run with fewer Ps than the others, under
	// benchmark names of another suffix that no row of theirs matches.
	// So every variant gets the count the harness itself sees.
	if opt.CPU == "" && slices.ContainsFunc(opt.Variants, func(v Variant) bool { return len(v.Wrapper) > 0 }) {
		opt.CPU = strconv.Itoa(runtime.NumCPU())
	}
	return countNote, nil
}

// newRunner reads the checkout's upstream pin and series hash, probes
// the machine, resolves every toolchain and fills in the folder's
// metadata: everything that can fail fast, before anything slow.
func newRunner(opt Options, countNote string) (*runner, error) {
	r := &runner{opt: opt, tcs: map[string]*toolchain.Toolchain{}, bins: map[string]map[string]*builtPkg{}}
	var notes []string
	if countNote != "" {
		notes = append(notes, countNote)
	}
	var upstream, seriesHash string
	var project results.Provenance
	if opt.Prebuilt != "" {
		pre, err := readPrebuilt(opt.Prebuilt, opt.Suite, opt.Variants)
		if err != nil {
			return nil, err
		}
		r.pre, upstream, seriesHash, project = pre, pre.Upstream, pre.Series, pre.Project
		notes = append(notes, fmt.Sprintf("test binaries prebuilt on %s at %s (harness commit %s, CGO_ENABLED=%s): %s",
			pre.Host, pre.Built.Format(time.RFC3339), pre.Project.Commit, pre.CGOEnabled, opt.Prebuilt))
	} else {
		var err error
		upstream, err = toolchain.ReadUpstream(filepath.Join(opt.Root, "toolchain", "UPSTREAM"))
		if err != nil {
			upstream = toolchain.DefaultUpstream
			notes = append(notes, fmt.Sprintf("toolchain/UPSTREAM not readable (%v); assumed upstream %s", err, upstream))
		}
		seriesHash, err = toolchain.SeriesHash(filepath.Join(opt.Root, "patches"))
		if err != nil {
			return nil, fmt.Errorf("series hash of patches/: %v", err)
		}
		project = results.ProbeProvenance(opt.Root)
	}
	m := physical.ProbeMachine()
	r.meta = &results.Metadata{
		Command: opt.Command, Suite: opt.Suite.Name, Count: opt.Count, Benchtime: opt.Benchtime, CPU: opt.CPU, Copies: opt.Copies, Measure: opt.Measure,
		Timeout: opt.Timeout.String(), Started: time.Now().UTC().Truncate(time.Second),
		Machine: m, Project: project, Upstream: upstream, Series: seriesHash, Notes: notes, Sweep: opt.Sweep,
		Doctor: physical.RunDoctor(physical.DoctorOptions{Perf: true}),
	}
	for _, t := range opt.Suite.Targets {
		r.meta.Targets = append(r.meta.Targets, t.Name)
	}
	r.phys = physical.NewProbe("/proc", r.meta.Doctor)
	r.meta.Physical = &r.phys.Info
	r.cfg = results.BlockConfig{Upstream: upstream, GOMAXPROCS: gomaxprocs(os.Environ()), CPU: m.CPU, NUMANodes: m.NUMANodes}
	for _, n := range notes {
		r.logf("note: %s", n)
	}
	if err := r.resolveToolchains(upstream, seriesHash); err != nil {
		return nil, err
	}
	return r, nil
}

// resolveToolchains resolves every variant's toolchain, once per spec,
// records the variants as they will run, and notes each variant that
// sets a schedlab knob on a toolchain whose runtime does not have it.
func (r *runner) resolveToolchains(upstream, seriesHash string) error {
	for _, v := range r.opt.Variants {
		if r.tcs[v.Toolchain] != nil {
			continue
		}
		var tc *toolchain.Toolchain
		if r.pre != nil {
			tc = r.pre.Toolchains[v.Toolchain] // readPrebuilt checked it is there
		} else {
			var err error
			if tc, err = toolchain.Resolve(r.opt.Root, v.Toolchain, upstream, seriesHash); err != nil {
				return err
			}
		}
		r.tcs[v.Toolchain] = tc
		r.logf("toolchain %s: %s (%s)", v.Toolchain, tc.Version, tc.GOROOT)
	}
	for _, v := range r.opt.Variants {
		tc := r.tcs[v.Toolchain]
		r.meta.Variants = append(r.meta.Variants, results.VariantMeta{Name: v.Name, Toolchain: v.Toolchain, GOROOT: tc.GOROOT,
			Version: tc.Version, Series: tc.Series, GODEBUG: v.GODEBUG, Wrapper: v.Wrapper, ExecTrace: v.ExecTrace, Binaries: map[string]string{}})
	}
	for _, v := range r.opt.Variants {
		if tc := r.tcs[v.Toolchain]; tc.Series == "none" {
			for _, kv := range strings.Split(v.GODEBUG, ",") {
				k, _, _ := strings.Cut(kv, "=")
				if slices.Contains(SchedlabKnobs, k) {
					n := fmt.Sprintf("variant %s sets %s, which the %s toolchain (%s) does not have: its runtime ignores it", v.Name, kv, v.Toolchain, tc.Version)
					r.meta.Notes = append(r.meta.Notes, n)
					r.logf("warning: %s", n)
				}
			}
		}
	}
	return nil
}

// openFiles opens the folder's files for appending and writes the
// headers of the physical evidence and of the runs table. The function
// it returns closes every file it opened, also when it fails part way.
func (r *runner) openFiles() (closeAll func(), err error) {
	var opened []*os.File
	closeAll = func() {
		for i := len(opened) - 1; i >= 0; i-- {
			opened[i].Close()
		}
	}
	files := []struct {
		p    **os.File
		name string
	}{{&r.raw, results.RawFile}, {&r.log, results.LogFile}, {&r.runs, results.RunsFile}, {&r.physOut, results.PhysicalFile}}
	if r.opt.Copies > 1 {
		files = append(files, struct {
			p    **os.File
			name string
		}{&r.copiesOut, results.CopiesFile})
	}
	for _, f := range files {
		if *f.p, err = os.OpenFile(filepath.Join(r.opt.Out, f.name), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644); err != nil {
			return closeAll, err
		}
		opened = append(opened, *f.p)
	}
	fmt.Fprint(r.physOut, physical.Units)
	fmt.Fprintf(r.runs, "round\tvariant\tbenchmark\tstatus\twall_s\tcpu_s\tothers_cpus\tsteal_cpus\n")
	return closeAll, nil
}

func (r *runner) finish(err error) (*results.Metadata, error) {
	r.meta.Finished = time.Now().UTC().Truncate(time.Second)
	if raw, rerr := os.ReadFile(filepath.Join(r.opt.Out, results.RawFile)); rerr == nil {
		if name := benchCPUName(raw); name != "" {
			r.meta.Machine.CPU = name
		}
	}
	r.meta.Complete = err == nil
	if werr := r.meta.Write(r.opt.Out); werr != nil && err == nil {
		err = werr
	}
	if err == nil && len(r.meta.Failures) > 0 {
		err = fmt.Errorf("%w: %d failure(s), see %s", ErrFailures, len(r.meta.Failures), filepath.Join(r.opt.Out, results.MetadataFile))
	}
	return r.meta, err
}

func (r *runner) logf(format string, args ...any) {
	r.logMu.Lock()
	defer r.logMu.Unlock()
	fmt.Fprintf(r.opt.Stderr, "schedlab: "+format+"\n", args...)
}

func (r *runner) fail(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	r.meta.Failures = append(r.meta.Failures, msg)
	r.logf("FAIL: %s", msg)
	if r.opt.Out != "" { // "" with BuildOnly
		r.meta.Write(r.opt.Out)
	}
}
