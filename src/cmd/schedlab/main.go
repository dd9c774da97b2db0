// Command schedlab runs scheduler benchmarks against stock and patched
// toolchains and reports the comparison.
//
//	schedlab bench   -suite quick -variant stock -variant patched [-count 10] [-out dir] [-wrap name=command]
//	schedlab compare [-col variant] [-base name] [-csv file] bench.txt...
//	schedlab report  dir
//	schedlab merge   -out dir folder...   (one study from several machines)
//	schedlab campaign -study numa -dir dir -tasks N [-partition p] -submit   (that, through Slurm)
//	schedlab trace   [-out dir] [-timeline] [-latency] [-stock file] [-perfetto file.json] trace.out  (steals, timeline, scheduling latency, conversions)
//	schedlab bench   -pkg DIR[,DIR...] [-bench re] -variant stock -variant patched ...
//	schedlab sweep   -knob timeslice=1000,2000,5000,10000 -suite workloads [-bench re]
//	schedlab tune    [-pkg DIR] -bench re -minimize UNIT [-limit 'UNIT<=+3%'] [-knob k=v1,v2]... [-hogs N] [-budget 30m]
//	schedlab suites
//	schedlab doctor  [-json] [-sample 1s]
//	schedlab census  [-layouts 3] [-funcs] [-gate] [-threshold 0.2] [-out dir]
//	schedlab vm      [-nodes 2] [-cpus N] [-mem MiB] [-balancing 0|1] [-out dir] -- PROG [ARGS...]
//
// A variant is a toolchain (stock = the pinned release, patched =
// toolchain/goroot, or any GOROOT path) plus an optional GODEBUG string:
// [name=]toolchain[:GODEBUG], e.g. 'slice1ms=patched:timeslice=1000'.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/schedlab/schedlab/src/internal/bench"
	"github.com/schedlab/schedlab/src/internal/merge"
	"github.com/schedlab/schedlab/src/internal/physical"
	"github.com/schedlab/schedlab/src/internal/report"
	"github.com/schedlab/schedlab/src/internal/results"
	"github.com/schedlab/schedlab/src/internal/stats"
	"github.com/schedlab/schedlab/src/internal/timeline"
	"github.com/schedlab/schedlab/src/internal/toolchain"
	"github.com/schedlab/schedlab/src/internal/trace"
)

const usage = `usage: schedlab <command> [flags]

commands:
  bench    run a suite (or -pkg DIR: any package's benchmarks) against variants, interleaved, and write a results folder
  compare  benchstat tables (and CSV) of benchmark files
  report   write README.md, tables, CSV and SVG plots into a results folder
  merge    merge results folders from several machines into one folder and report
  campaign run a study on several machines through Slurm and merge their folders
  trace    an execution trace: steals (GODEBUG=tracesteal=1: totals, matrix plot, CSV), -timeline, -latency, -stock, -perfetto
  sweep    run one GODEBUG knob over a list of values and plot metrics against it
  tune     search the knob settings that help one benchmark (racing), and confirm the best against stock
  suites   list the suites and their benchmarks
  doctor   what this machine can measure for a NUMA study, and what will distort it
  census   instructions per operation, stock vs patched, under valgrind (default-mode cost)
  vm       run a static program in a multi-node NUMA guest (QEMU) and exit with its status
  index    write results/INDEX.md and INDEX.json: every results folder, its series, runtime and status
  metadata write metadata.json for a results folder another command made (a test log, a script's output)
  replot   redraw the figures of results folders from their data, in the current figure style
  claims    draft claims.tsv lines for numbers that prose quotes from results folders

Run 'schedlab <command> -h' for the flags of a command.
`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var err error
	switch cmd, args := os.Args[1], os.Args[2:]; cmd {
	case "bench":
		err = cmdBench(ctx, args)
	case "compare":
		err = cmdCompare(args)
	case "report":
		err = cmdReport(args)
	case "replot":
		err = cmdReplot(args)
	case "merge":
		err = cmdMerge(args)
	case "campaign":
		err = cmdCampaign(args)
	case "trace":
		err = cmdTrace(args)
	case "sweep":
		err = cmdSweep(ctx, args)
	case "tune":
		err = cmdTune(ctx, args)
	case "hog":
		cmdHog()
	case "suites":
		err = cmdSuites(args)
	case "doctor":
		err = cmdDoctor(args)
	case "census":
		err = cmdCensus(ctx, args)
	case "index":
		err = cmdIndex(args)
	case "metadata":
		err = cmdMetadata(args)
	case "claims":
		err = cmdClaims(args)
	case "vm":
		err = cmdVM(ctx, args)
	case "help", "-h", "-help", "--help":
		fmt.Print(usage)
	default:
		fmt.Fprintf(os.Stderr, "schedlab: unknown command %q\n\n%s", cmd, usage)
		os.Exit(2)
	}
	if err != nil {
		if _, ok := err.(exitError); !ok {
			fmt.Fprintf(os.Stderr, "schedlab: %v\n", err)
		}
		os.Exit(exitCode(err))
	}
}

type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, " ") }
func (l *listFlag) Set(s string) error { *l = append(*l, s); return nil }

// RootEnv names the schedlab checkout (the directory holding its
// go.mod), for a schedlab binary that can find it no other way.
const RootEnv = "SCHEDLAB_ROOT"

// root returns the schedlab checkout: $SCHEDLAB_ROOT if set, else the
// checkout the running binary was built into (.bin/schedlab, also
// through the symlink make install puts on PATH), else the one around
// the working directory (go run). A binary knows its own checkout
// first, so that it runs its own toolchain from any directory.
func root() (string, error) {
	if r := os.Getenv(RootEnv); r != "" {
		d, err := toolchain.FindRoot(r)
		if err != nil {
			return "", fmt.Errorf("%s=%s: %v", RootEnv, r, err)
		}
		return d, nil
	}
	if exe, err := os.Executable(); err == nil {
		if exe, err = filepath.EvalSymlinks(exe); err == nil {
			if d, err := toolchain.FindRoot(filepath.Dir(exe)); err == nil {
				return d, nil
			}
		}
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	d, err := toolchain.FindRoot(wd)
	if err != nil {
		return "", fmt.Errorf("cannot find the schedlab checkout from this binary or %s; run it inside the checkout or set %s to it", wd, RootEnv)
	}
	return d, nil
}

// defaultOut is runs/<date>-<host>-<suite>, with -2, -3 ... added when
// that folder already holds results. runs/ is git-ignored: a local run
// never lands in the tracked results/ tree by accident; a run worth
// keeping is moved there by hand (README, "Results").
func defaultOut(root, suite string) string {
	host, _ := os.Hostname()
	if i := strings.IndexByte(host, '.'); i > 0 {
		host = host[:i]
	}
	base := filepath.Join(root, "runs", fmt.Sprintf("%s-%s-%s", time.Now().Format("2006-01-02"), host, suite))
	out := base
	for i := 2; ; i++ {
		if _, err := os.Stat(filepath.Join(out, results.RawFile)); err != nil {
			return out
		}
		out = fmt.Sprintf("%s-%d", base, i)
	}
}

type benchFlags struct {
	suite, bench, benchtime, cpu, out string
	pkg, tags                         string
	measure, profile                  string
	buildOnly, prebuilt               string
	count, copies                     int
	timeout                           time.Duration
	variants, wraps, execTraces       listFlag
	noReport, trace                   bool
}

func (f *benchFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.suite, "suite", "quick", "suite to run: "+strings.Join(bench.SuiteNames, ", "))
	fs.StringVar(&f.pkg, "pkg", "", "instead of a suite, the benchmarks of these Go package directories (comma-separated), in this module or any other (built in the directory, with its own go.mod)")
	fs.StringVar(&f.tags, "tags", "", "with -pkg: build tags for the packages' test binaries")
	fs.StringVar(&f.bench, "bench", "", "run only the suite's benchmarks whose name matches this regexp (with -pkg: as go test -bench matches it)")
	fs.StringVar(&f.benchtime, "benchtime", "", "override every benchmark's -test.benchtime (e.g. 500ms, 100x)")
	fs.StringVar(&f.cpu, "cpu", "", "GOMAXPROCS for every benchmark, passed as -test.cpu (e.g. 8); default: the machine's")
	fs.StringVar(&f.out, "out", "", "results folder, which must not hold results yet (default runs/<date>-<host>-<suite>[-N]/)")
	fs.IntVar(&f.count, "count", 10, "rounds: runs of every benchmark per variant")
	fs.IntVar(&f.copies, "copies", 1, "processes of the benchmark per run, started side by side (the multi-process case); "+results.RawFile+" gets their mean, "+results.CopiesFile+" each copy's results")
	fs.DurationVar(&f.timeout, "timeout", 10*time.Minute, "time limit of one run of one benchmark")
	fs.BoolVar(&f.noReport, "noreport", false, "do not write the report (README, plots) at the end")
	fs.StringVar(&f.measure, "measure", "", "what to measure: the benchmarks' own units (default), or 'instructions': instructions/op under cachegrind, GOMAXPROCS=1 unless -cpu, at -benchtime Nx if given, else at an iteration count calibrated per benchmark")
	fs.StringVar(&f.profile, "profile", "", "after the rounds, one more run of every benchmark under every variant writing these profiles into "+results.ProfilesDir+"/: a list of block, mutex (every event recorded); the report lists the top blocking sites per variant")
	fs.StringVar(&f.buildOnly, "build-only", "", "build the suite's test binaries for every variant's toolchain into this folder, with a manifest ("+bench.PrebuiltFile+"), and run nothing: for a later -prebuilt run where no Go toolchain is, such as a NUMA guest (docs/guest.md; build with CGO_ENABLED=0 there)")
	fs.StringVar(&f.prebuilt, "prebuilt", "", "run the test binaries of this -build-only folder instead of building them (no Go toolchain or checkout needed)")
	fs.BoolVar(&f.trace, "trace", false, "after the rounds, trace one run of every benchmark under every variant (schedlab toolchains with GODEBUG=tracesteal=1) into traces/ and analyse its steals")
}

func runBench(ctx context.Context, f *benchFlags, variants []bench.Variant, sweep *results.SweepInfo) error {
	r, err := root()
	if err != nil && f.prebuilt == "" {
		return err
	}
	if f.cpu != "" {
		for c := range strings.SplitSeq(f.cpu, ",") {
			if n, err := strconv.Atoi(c); err != nil || n < 1 {
				return fmt.Errorf("-cpu %q: want a comma-separated list of GOMAXPROCS values >= 1", f.cpu)
			}
		}
	}
	if f.copies < 1 {
		return fmt.Errorf("-copies %d: want at least 1", f.copies)
	}
	profiles, err := bench.ParseProfileKinds(f.profile)
	if err != nil {
		return err
	}
	suite, err := loadSuite(ctx, r, f)
	if err != nil {
		return err
	}
	opt := bench.Options{
		Root: r, Suite: suite, Variants: variants, Count: f.count, Benchtime: f.benchtime,
		CPU: f.cpu, Timeout: f.timeout, Command: commandLine(os.Args),
		Stderr: os.Stderr, Sweep: sweep, Trace: f.trace, Profile: profiles, Copies: f.copies, Measure: f.measure,
		BuildOnly: f.buildOnly, Prebuilt: f.prebuilt,
	}
	if f.buildOnly != "" {
		if _, err := bench.Run(ctx, opt); err != nil {
			return err
		}
		fmt.Printf("\ntest binaries: %s\n", f.buildOnly)
		return nil
	}
	out := f.out
	if out == "" && r == "" {
		return fmt.Errorf("-prebuilt without a checkout: name the results folder with -out")
	}
	if out == "" {
		name := suite.Name
		if sweep != nil {
			name += "-sweep-" + sweep.Knob
		}
		out = defaultOut(r, name)
	}
	out, err = filepath.Abs(out)
	if err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(out, results.RawFile)); err == nil {
		return fmt.Errorf("%s already holds results: a rerun gets a new folder (name another -out, or omit it)", out)
	}
	opt.Out = out
	_, berr := bench.Run(ctx, opt)
	if berr != nil && !errors.Is(berr, bench.ErrFailures) && !errors.Is(berr, context.Canceled) {
		if _, err := os.Stat(filepath.Join(out, results.RawFile)); err != nil {
			return berr
		}
	}
	if _, err := os.Stat(filepath.Join(out, results.RawFile)); err == nil && !f.noReport {
		if err := writeReport(out); err != nil {
			fmt.Fprintf(os.Stderr, "schedlab: report: %v\n", err)
		}
	}
	fmt.Printf("\nresults: %s\n", out)
	return berr
}

// loadSuite returns the suite the flags select: -pkg's packages, or
// -suite filtered by -bench.
func loadSuite(ctx context.Context, root string, f *benchFlags) (*bench.Suite, error) {
	if f.pkg == "" {
		if f.tags != "" {
			return nil, fmt.Errorf("-tags is for -pkg's packages")
		}
		s, err := bench.LoadSuite(root, f.suite)
		if err != nil {
			return nil, err
		}
		return s, s.Filter(f.bench)
	}
	if f.prebuilt != "" {
		return nil, fmt.Errorf("-pkg builds its packages: not with -prebuilt")
	}
	lister, err := stockToolchain(root)
	if err != nil {
		return nil, err
	}
	s, err := bench.PackageSuite(ctx, lister, strings.Split(f.pkg, ","), f.bench, f.tags)
	if err != nil {
		return nil, err
	}
	s.Name = "pkg-" + s.Targets[0].Pkg.Key
	return s, nil
}

// stockToolchain resolves the pinned release of the checkout at root.
func stockToolchain(root string) (*toolchain.Toolchain, error) {
	upstream, err := toolchain.ReadUpstream(filepath.Join(root, "toolchain", "UPSTREAM"))
	if err != nil {
		return nil, err
	}
	return toolchain.Resolve(root, "stock", upstream, "")
}

func cmdBench(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("bench", flag.ExitOnError)
	var f benchFlags
	f.register(fs)
	fs.Var(&f.variants, "variant", "a variant, [name=]toolchain[:GODEBUG]; toolchain is stock, patched or a GOROOT path (repeat)")
	fs.Var(&f.wraps, "wrap", "name=command: run that variant's benchmarks under a command, e.g. 'oracle=numactl --cpunodebind=0 --membind=0' (repeat)")
	fs.Var(&f.execTraces, "exectrace", "name: every run of that variant writes an execution trace (-test.trace) to a temporary file, in time and instruction modes alike (repeat)")
	fs.Parse(args)
	if fs.NArg() > 0 {
		return fmt.Errorf("bench: unexpected arguments %q", fs.Args())
	}
	vs, err := bench.ParseVariants(f.variants)
	if err != nil {
		return err
	}
	if err := bench.ApplyWrappers(vs, f.wraps); err != nil {
		return err
	}
	if err := bench.ApplyExecTrace(vs, f.execTraces); err != nil {
		return err
	}
	return runBench(ctx, &f, vs, nil)
}

func cmdSweep(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("sweep", flag.ExitOnError)
	var f benchFlags
	f.register(fs)
	knob := fs.String("knob", "", "the knob and its values: knob=v1,v2,... (e.g. timeslice=1000,2000,5000,10000)")
	tc := fs.String("toolchain", "patched", "toolchain of the swept variants: stock, patched or a GOROOT path")
	godebug := fs.String("godebug", "", "further GODEBUG settings for every swept variant")
	metrics := fs.String("metric", "sec/op", "comma-separated metrics (units) to plot against the knob, e.g. sec/op,p99-wake-ns")
	tradeoffs := fs.String("tradeoff", "", "comma-separated x:y metric pairs to plot against each other, one point per variant (e.g. sysmon-wakeups/s:p99-wake-ns)")
	fs.Var(&f.variants, "variant", "extra variants to run alongside, e.g. stock (repeat)")
	fs.Parse(args)
	if fs.NArg() > 0 {
		return fmt.Errorf("sweep: unexpected arguments %q", fs.Args())
	}
	tos, err := bench.ParseTradeoffs(*tradeoffs)
	if err != nil {
		return err
	}
	name, values, err := bench.ParseKnobSweep(*knob)
	if err != nil {
		return err
	}
	vs, err := bench.SweepVariants(*tc, name, values, *godebug)
	if err != nil {
		return err
	}
	if len(f.variants) > 0 {
		extra, err := bench.ParseVariants(f.variants)
		if err != nil {
			return err
		}
		vs = append(extra, vs...)
	}
	var ms []string
	for _, m := range strings.Split(*metrics, ",") {
		if m = strings.TrimSpace(m); m != "" {
			if m == "ns/op" {
				m = "sec/op"
			}
			ms = append(ms, m)
		}
	}
	return runBench(ctx, &f, vs, &results.SweepInfo{Knob: name, Values: values, Metrics: ms, Tradeoffs: tos})
}

func cmdCompare(args []string) error {
	fs := flag.NewFlagSet("compare", flag.ExitOnError)
	col := fs.String("col", "variant", "configuration key whose values are the columns")
	base := fs.String("base", "", "baseline column (default: the first)")
	csvOut := fs.String("csv", "", "also write CSV to this file (- for stdout instead of the tables)")
	alpha := fs.Float64("alpha", 0.05, "significance level")
	family := fs.String("family", "", "instead of the tables, Holm-adjust every comparison of these units (comma-separated, e.g. p99-gc-pause-sec,p99-sched-latency-sec) together, every benchmark and column, and print those at p<alpha")
	fs.Parse(args)
	if fs.NArg() == 0 {
		return fmt.Errorf("compare: give benchmark files (e.g. results/.../bench.txt)")
	}
	paths := fs.Args()
	for i, p := range paths {
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			paths[i] = filepath.Join(p, results.RawFile)
		}
	}
	c, err := stats.Compare(paths, stats.CompareOptions{Col: *col, Base: *base, Alpha: *alpha})
	if err != nil {
		return err
	}
	if *family != "" {
		units := strings.Split(*family, ",")
		stats.WriteFamily(os.Stdout, c.Family(units), units, *alpha)
		return nil
	}
	if *csvOut == "-" {
		return c.WriteCSV(os.Stdout)
	}
	if err := c.WriteText(os.Stdout); err != nil {
		return err
	}
	for _, w := range c.Warnings {
		fmt.Fprintf(os.Stderr, "schedlab: warning: %s\n", w)
	}
	for _, w := range c.SelfCheck() {
		fmt.Fprintf(os.Stderr, "schedlab: WARNING: %s\n", w)
	}
	if *csvOut != "" {
		f, err := os.Create(*csvOut)
		if err != nil {
			return err
		}
		if err := c.WriteCSV(f); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	}
	return nil
}

func writeReport(dir string) error {
	res, err := report.Write(dir)
	if err != nil {
		return err
	}
	fmt.Println()
	fmt.Print(res.Benchstat)
	for _, w := range res.SelfCheck {
		fmt.Fprintf(os.Stderr, "schedlab: WARNING: %s\n", w)
	}
	if meta, err := results.ReadMetadata(dir); err == nil {
		if vs := res.Verdicts(meta); len(vs) > 0 {
			fmt.Println("\nVerdicts (Mann-Whitney U at α=0.05, Holm's correction over the rows; for `~` rows, the")
			fmt.Println("largest difference the two CIs (≥95%) allow, which the run could have missed):")
			for _, v := range vs {
				fmt.Printf("- %s\n", v)
			}
		}
		if n := len(meta.Contended); n > 0 {
			fmt.Fprintf(os.Stderr, "schedlab: warning: %d run(s) were short of CPU (other load on the machine), e.g. %s\n", n, meta.Contended[0])
		}
		for _, f := range meta.Failures {
			fmt.Fprintf(os.Stderr, "schedlab: failure: %s\n", strings.SplitN(f, "\n", 2)[0])
		}
	}
	fmt.Printf("\nreport: %s\n", filepath.Join(dir, results.ReadmeFile))
	return nil
}

func cmdReport(args []string) error {
	fs := flag.NewFlagSet("report", flag.ExitOnError)
	tradeoffs := fs.String("tradeoff", "", "for a sweep: set its x:y trade-off plots (comma-separated), kept in metadata.json")
	fs.Parse(args)
	if fs.NArg() != 1 {
		return fmt.Errorf("report: give one results folder")
	}
	if *tradeoffs != "" {
		tos, err := bench.ParseTradeoffs(*tradeoffs)
		if err != nil {
			return err
		}
		if err := results.SetTradeoffs(fs.Arg(0), tos); err != nil {
			return err
		}
	}
	return writeReport(fs.Arg(0))
}

func cmdSuites(args []string) error {
	r, err := root()
	if err != nil {
		return err
	}
	for _, name := range bench.SuiteNames {
		s, err := bench.LoadSuite(r, name)
		if err != nil {
			fmt.Printf("%s: %v\n", name, err)
			continue
		}
		fmt.Printf("%s:\n", name)
		for _, t := range s.Targets {
			bt := t.Benchtime
			if bt == "" {
				bt = "default"
			}
			fmt.Printf("  %-45s %-10s %s %s\n", t.Name, bt, t.Pkg.Import, t.Bench)
		}
	}
	return nil
}

func cmdDoctor(args []string) error {
	fs := flag.NewFlagSet("doctor", flag.ExitOnError)
	asJSON := fs.Bool("json", false, "write JSON instead of text")
	sample := fs.Duration("sample", time.Second, "how long to sample other load on the machine (0: skip)")
	fs.Parse(args)
	d := physical.RunDoctor(physical.DoctorOptions{Sample: *sample, Perf: true})
	if *asJSON {
		return d.WriteJSON(os.Stdout)
	}
	d.WriteText(os.Stdout)
	return nil
}

func cmdMerge(args []string) error {
	fs := flag.NewFlagSet("merge", flag.ExitOnError)
	out := fs.String("out", "", "folder to write the merged results into (required; must not hold bench.txt)")
	var missing listFlag
	fs.Var(&missing, "missing", "`label: reason` of a machine that sent no folder, for the README (repeatable)")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: schedlab merge -out dir [-missing 'label: reason']... folder...\n\nMerges results folders of the same study run on several machines.\n\n")
		fs.PrintDefaults()
	}
	fs.Parse(args)
	if *out == "" {
		return fmt.Errorf("merge: -out is required")
	}
	if fs.NArg() < 1 && len(missing) == 0 {
		return fmt.Errorf("merge: give at least one results folder")
	}
	var ms []merge.Missing
	for _, m := range missing {
		label, reason, ok := strings.Cut(m, ": ")
		if !ok {
			return fmt.Errorf("merge: -missing %q: want 'label: reason'", m)
		}
		ms = append(ms, merge.Missing{Label: label, Reason: reason})
	}
	res, err := merge.Folders(*out, fs.Args(), ms)
	if err != nil {
		return err
	}
	for _, s := range res.Sources {
		fmt.Printf("%s: %s, %s, %d results\n", s.Host, s.Path, s.Topology, s.Results)
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(os.Stderr, "schedlab: warning: %s\n", w)
	}
	fmt.Printf("\nreport: %s\n", filepath.Join(*out, results.ReadmeFile))
	return nil
}

// commandLine is args as a shell command that reruns them: arguments
// with white space or shell metacharacters are single-quoted (a -wrap
// or -variant value often has both).
func commandLine(args []string) string {
	q := []string{"schedlab"}
	for _, a := range args[1:] {
		q = append(q, results.ShellQuote(a))
	}
	return strings.Join(q, " ")
}

func cmdTrace(args []string) error {
	fs := flag.NewFlagSet("trace", flag.ExitOnError)
	out := fs.String("out", "", "folder for what the analyses write: "+trace.StealsCSVFile+", "+trace.StealTextFile+", "+trace.StealMatrixFile+", "+trace.TimelineFile+", the -latency files (default: the trace's folder)")
	tl := fs.Bool("timeline", false, "also draw a per-P timeline of a window of the trace as "+trace.TimelineFile+" and .png")
	from := fs.Duration("from", 0, "with -timeline: the window's start, as time since the trace began (e.g. 150ms); default: the middle "+time.Duration(timeline.DefaultWindow).String()+" of the trace")
	to := fs.Duration("to", 0, "with -timeline: the window's end (default -from + "+time.Duration(timeline.DefaultWindow).String()+")")
	psList := fs.String("ps", "", "with -timeline: the Ps to show, e.g. 0,2,4-7 (default: every P that ran a goroutine); with -latency: the Ps of the per-P panels (at most "+strconv.Itoa(trace.MaxLatencyPanels)+")")
	latency := fs.Bool("latency", false, "scheduling latency instead of the steal analysis: the runnable→running delay of every run and the creation→first-run delay, as "+trace.LatencyCSVFile+", "+trace.LatencySummaryFile+", "+trace.LatencyHeatmapFile+" and "+trace.LatencyCreationFile+" (and .png)")
	stock := fs.String("stock", "", "instead of the steal analysis, write to this file a copy of the trace that stock tools read (the Steal experiment's events dropped)")
	perfetto := fs.String("perfetto", "", "instead of the steal analysis, write to this file the trace as Chrome trace-event JSON for Perfetto (ui.perfetto.dev) or chrome://tracing: a track per P")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: schedlab trace [-out dir] [-timeline [-from T] [-to T]] [-ps LIST] [-latency] [-stock file] [-perfetto file.json] trace.out\n\n"+
			"Reads the work-stealing events of an execution trace taken with GODEBUG=tracesteal=1\n"+
			"through the patched toolchain's go tool trace, prints per-node and per-pair totals,\n"+
			"and writes the events as CSV and the thief x victim matrix as SVG and PNG.\n"+
			"With -timeline, also draws who ran where, when: one row per P grouped by NUMA node,\n"+
			"goroutine runs as bars, steals, hops, preemptions, run queue overflows and\n"+
			"stop-the-world pauses marked (any trace; the steal marks need tracesteal=1).\n\n"+
			"-latency, -stock and -perfetto replace the steal analysis (any trace; combine them freely,\n"+
			"and with -timeline):\n"+
			"  -latency      the runnable→running delay of every run whose goroutine became runnable\n"+
			"                during the trace, and the creation→first-run delay of new goroutines:\n"+
			"                a summary, a CSV, heat maps of delay over time (whole process and per P,\n"+
			"                run queue overflows marked) and the creation delay's ECDF, in -out.\n"+
			"  -stock FILE   a copy of the trace without the Steal experiment's events, which the\n"+
			"                stock go tool trace reads (a stock trace is copied unchanged).\n"+
			"  -perfetto F   the trace as Chrome trace-event JSON: a track per P with the goroutine\n"+
			"                runs, steals as flows from victim to thief, scheduler events as instants,\n"+
			"                stop-the-world pauses on a track of their own.\n"+
			"Flags may come before or after the trace file.\n\n")
		fs.PrintDefaults()
	}
	files := parseInterleaved(fs, args)
	if len(files) != 1 {
		fs.Usage()
		return fmt.Errorf("trace: give one trace file")
	}
	ps, err := timeline.ParsePs(*psList)
	if err != nil {
		return err
	}
	if *to != 0 && *to <= *from {
		return fmt.Errorf("-to %v: want a time after -from %v", *to, *from)
	}
	file := files[0]
	if _, err := os.Stat(file); err != nil {
		return err
	}
	r, err := root()
	if err != nil {
		return err
	}
	tc, err := toolchain.Resolve(r, "patched", "", "")
	if err != nil {
		return err
	}
	dir := *out
	if dir == "" {
		dir = filepath.Dir(file)
	}
	if !*latency && *stock == "" && *perfetto == "" {
		s, err := trace.Analyze(tc, file, dir, filepath.Base(file))
		if err != nil {
			return err
		}
		s.WriteText(os.Stdout)
		if s.Steals+s.TimerSteals == 0 && len(s.Procs) == 0 {
			fmt.Println("\nno Steal events: was the trace taken with GODEBUG=tracesteal=1 and the patched toolchain?")
		}
		fmt.Printf("\nwrote %s, %s and %s in %s\n", trace.StealsCSVFile, trace.StealTextFile, trace.StealMatrixFile, dir)
	}
	if *stock != "" {
		size, same, err := trace.StockCopy(tc, file, *stock)
		if err != nil {
			return err
		}
		what := "without the Steal experiment's events, in the stock format"
		if same {
			what = "unchanged: the trace was in the stock format already"
		}
		fmt.Printf("wrote %s (%d bytes): %s, %s\n", *stock, size, file, what)
	}
	if !*tl && !*latency && *perfetto == "" {
		return nil
	}
	// The timeline, -latency and -perfetto share one reading of the
	// trace's runs and events.
	t, err := trace.Load(tc, file)
	if err != nil {
		return err
	}
	if *tl {
		what, err := trace.DrawLoadedTimeline(t, dir, filepath.Base(file), timeline.Options{From: from.Nanoseconds(), To: to.Nanoseconds(), Ps: ps})
		if err != nil {
			return err
		}
		fmt.Printf("wrote %s (and .png): %s\n", filepath.Join(dir, trace.TimelineFile), what)
	}
	if *perfetto != "" {
		if err := trace.WritePerfettoFile(*perfetto, t); err != nil {
			return err
		}
		fmt.Printf("wrote %s: %d goroutine runs on %d P tracks, %d scheduler events, %d stop-the-world pauses (open it in ui.perfetto.dev or chrome://tracing)\n",
			*perfetto, len(t.Runs), len(t.Procs()), len(t.Events), len(t.STWs))
	}
	if *latency {
		l, notes, err := trace.WriteLatency(t, dir, filepath.Base(file), ps)
		if err != nil {
			return err
		}
		l.WriteShort(os.Stdout)
		for _, n := range notes {
			fmt.Println(n)
		}
		fmt.Printf("wrote %s, %s, %s and %s (and .png) in %s\n", trace.LatencyCSVFile, trace.LatencySummaryFile, trace.LatencyHeatmapFile, trace.LatencyCreationFile, dir)
	}
	return nil
}

// parseInterleaved parses args with fs, flags before and after the
// positional arguments alike (schedlab trace FILE -latency), and returns
// the positional ones. After "--", everything is positional.
func parseInterleaved(fs *flag.FlagSet, args []string) []string {
	var pos []string
	for {
		fs.Parse(args)
		rest := fs.Args()
		// fs.Parse stops at the first non-flag, or after "--".
		if n := len(args) - len(rest); n > 0 && args[n-1] == "--" {
			return append(pos, rest...)
		}
		if len(rest) == 0 {
			return pos
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

func cmdIndex(args []string) error {
	fs := flag.NewFlagSet("index", flag.ExitOnError)
	check := fs.Bool("check", false, "do not write: fail if the committed index differs from a fresh one")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: schedlab index [-check]\n\n"+
			"Writes results/%s and %s: one line per results folder with its date, series,\n"+
			"runtime fingerprint (from the checkout's git history), status against the current\n"+
			"series, harness commit, later folder of the same study, and the docs citing it.\n\n", results.IndexFile, results.IndexJSONFile)
		fs.PrintDefaults()
	}
	fs.Parse(args)
	r, err := root()
	if err != nil {
		return err
	}
	es, current, runtime, err := results.BuildIndex(r)
	if err != nil {
		return err
	}
	var md, js bytes.Buffer
	results.WriteIndex(&md, es, current, runtime)
	if err := results.WriteIndexJSON(&js, es, current, runtime); err != nil {
		return err
	}
	for _, f := range []struct {
		name string
		data []byte
	}{{results.IndexFile, md.Bytes()}, {results.IndexJSONFile, js.Bytes()}} {
		path := filepath.Join(r, "results", f.name)
		if *check {
			old, err := os.ReadFile(path)
			if err != nil || !bytes.Equal(old, f.data) {
				return fmt.Errorf("%s is stale: run schedlab index (make index)", path)
			}
			continue
		}
		if err := os.WriteFile(path, f.data, 0o644); err != nil {
			return err
		}
	}
	if !*check {
		fmt.Printf("wrote results/%s and %s: %d folders\n", results.IndexFile, results.IndexJSONFile, len(es))
	}
	return nil
}
