package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/schedlab/schedlab/src/internal/bench"
	"github.com/schedlab/schedlab/src/internal/physical"
	"github.com/schedlab/schedlab/src/internal/plots"
	"github.com/schedlab/schedlab/src/internal/results"
	"github.com/schedlab/schedlab/src/internal/stats"
	"github.com/schedlab/schedlab/src/internal/tune"
)

const tuneUsage = `usage: schedlab tune [-pkg DIR] -bench REGEXP -minimize UNIT [-limit 'UNIT<=+3%%']... [-knob NAME=v1,v2,...]... [-hogs N] [-budget DURATION] [-out DIR]

Finds the knob settings of the patched runtime that help one benchmark:
every candidate setting (the product of the -knob values, or without
-knob the default space, one knob at a time) runs with stock and a stock2
control in interleaved rounds; candidates significantly worse than the
best (Mann-Whitney U, Holm over the live candidates) or outside a limit
are dropped, the survivors get more rounds, until one is left, the rest
cannot be told apart, or the budget nears its end. Then the survivors
(at most -confirm-max) run against stock and stock2 at -confirm rounds,
and the folder gets README.md, tune.json (best.godebug, its effect and
interval) and a figure of the trade-off. Run it again with the same -out
to resume an interrupted search.

`

func cmdTune(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("tune", flag.ExitOnError)
	pkg := fs.String("pkg", "", "the Go package directory whose benchmark to tune, in any module (default: schedlab's benchmarks/workloads)")
	benchRE := fs.String("bench", "", "the benchmark, as go test -bench selects it; it must select one benchmark (required)")
	minimize := fs.String("minimize", "", "the unit to minimise, as the benchmark reports it (sec/op, p99-wake-sec, ...)")
	maximize := fs.String("maximize", "", "instead of -minimize, the unit to maximise (e.g. hog-iters/s)")
	var limits, knobs listFlag
	fs.Var(&limits, "limit", "a bound on another unit against stock, 'UNIT<=+P%' or 'UNIT>=-P%' (repeat)")
	fs.Var(&knobs, "knob", "a knob and its values, NAME=v1,v2,...; the candidates are the product of every -knob's values and the default (repeat; default: "+defaultSpaceText()+")")
	hogs := fs.Int("hogs", 0, "CPU-bound processes to run beside every run, the load the scheduling literature injects")
	budget := fs.Duration("budget", 30*time.Minute, "time for the search and the confirmation together, builds included")
	out := fs.String("out", "", "results folder (default runs/<date>-<host>-tune-<pkg>); an existing one with "+tune.StateFile+" is resumed")
	benchtime := fs.String("benchtime", "", "-test.benchtime of every run (default: the benchmark's own, 1s)")
	cpu := fs.String("cpu", "", "GOMAXPROCS of every run, as -test.cpu (default: the machine's)")
	tags := fs.String("tags", "", "build tags for the package's test binaries")
	minRounds := fs.Int("min-rounds", 5, "rounds before the first cut (raised until a cut can reach α after Holm)")
	maxRounds := fs.Int("max-rounds", 20, "rounds after which the survivors are declared indistinguishable")
	confirm := fs.Int("confirm", 20, "rounds of the confirmation (at least 20)")
	confirmMax := fs.Int("confirm-max", 3, "at most this many survivors, best first, are confirmed")
	timeout := fs.Duration("timeout", 10*time.Minute, "time limit of one run")
	grid := fs.Bool("grid", false, "instead of the search, the full grid: every candidate -max-rounds rounds, one cut at the end, no budget and no separate confirmation (the grid's own rounds are compared with stock): what a search is measured against")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), tuneUsage)
		fs.PrintDefaults()
	}
	fs.Parse(args)
	if fs.NArg() > 0 {
		return fmt.Errorf("tune: unexpected arguments %q", fs.Args())
	}
	cfg := tune.Config{Objective: *minimize, MinRounds: *minRounds, MaxRounds: *maxRounds, ConfirmRounds: *confirm, ConfirmMax: *confirmMax, Budget: *budget, Grid: *grid}
	switch {
	case *minimize != "" && *maximize != "":
		return fmt.Errorf("tune: -minimize or -maximize, not both")
	case *maximize != "":
		cfg.Objective, cfg.Maximize = *maximize, true
	case *minimize == "":
		return fmt.Errorf("tune: give the unit to optimise, e.g. -minimize sec/op")
	}
	cfg.Objective = tune.TidyUnit(cfg.Objective)
	if *benchRE == "" {
		return fmt.Errorf("tune: give the benchmark with -bench")
	}
	if *confirm < 20 {
		return fmt.Errorf("tune: -confirm %d: the confirmation runs at least 20 rounds", *confirm)
	}
	if *minRounds < 3 || *maxRounds < *minRounds || *confirmMax < 1 || *hogs < 0 || *budget <= 0 {
		return fmt.Errorf("tune: want -min-rounds >= 3, -max-rounds >= -min-rounds, -confirm-max >= 1, -hogs >= 0, -budget > 0")
	}
	for _, l := range limits {
		lim, err := tune.ParseLimit(l)
		if err != nil {
			return err
		}
		cfg.Limits = append(cfg.Limits, lim)
	}
	cands, err := tuneCandidates(knobs)
	if err != nil {
		return err
	}

	r, err := root()
	if err != nil {
		return err
	}
	dir := *pkg
	if dir == "" {
		dir = filepath.Join(r, "benchmarks", "workloads")
	}
	f := &benchFlags{pkg: dir, bench: *benchRE, tags: *tags}
	suite, err := loadSuite(ctx, r, f)
	if err != nil {
		return err
	}
	if len(suite.Targets) != 1 {
		var names []string
		for _, t := range suite.Targets {
			names = append(names, t.Name)
		}
		return fmt.Errorf("tune: -bench %q selects %d benchmarks (%s): tune optimises one, narrow -bench", *benchRE, len(names), strings.Join(names, ", "))
	}
	target := suite.Targets[0]
	if *out == "" {
		*out = defaultOut(r, "tune-"+target.Pkg.Key)
	}
	outDir, err := filepath.Abs(*out)
	if err != nil {
		return err
	}
	statePath := filepath.Join(outDir, tune.StateFile)
	st, resume, err := loadOrStart(statePath, cfg, cands)
	if err != nil {
		return err
	}

	variants := []bench.Variant{{Name: tune.Stock, Toolchain: "stock"}, {Name: tune.Stock2, Toolchain: "stock"}}
	for _, a := range st.Arms {
		if !a.Control {
			variants = append(variants, bench.Variant{Name: a.Name, Toolchain: "patched", GODEBUG: a.GODEBUG})
		}
	}
	// The hogs start with the first run, so that a finished folder's
	// report is written again without them.
	load := &hogLoad{n: *hogs}
	defer load.stop()

	opt := bench.Options{Root: r, Suite: suite, Variants: variants, Count: st.Config.MaxRounds, Benchtime: *benchtime, CPU: *cpu,
		Timeout: *timeout, Out: outDir, Command: commandLine(os.Args), Stderr: os.Stderr}
	if *hogs > 0 {
		// The hogs are the experiment's load: count only what is
		// beyond them as contention.
		opt.ContendedCPUs = results.DefaultContendedCPUs + float64(*hogs)
	}
	if !st.Done {
		if err := load.start(); err != nil {
			return err
		}
		built := time.Now()
		s, err := bench.OpenSession(ctx, opt, resume)
		if err != nil {
			return err
		}
		// The budget covers the builds too.
		st.Elapsed += time.Since(built)
		rn := &sessionRunner{s: s, bench: target.Name, units: []string{st.Config.Objective}}
		for _, l := range st.Config.Limits {
			rn.units = append(rn.units, l.Unit)
		}
		err = st.Run(ctx, rn, tune.Options{Progress: os.Stderr, Save: func(st *tune.State) error { return st.Save(statePath) }})
		if _, cerr := s.Close(err); err == nil && cerr != nil && !errors.Is(cerr, bench.ErrFailures) {
			err = cerr
		}
		var ue unitError
		switch {
		case errors.As(err, &ue):
			return fmt.Errorf("tune: %v: give one of those, with another -out", ue.msg)
		case err != nil:
			return fmt.Errorf("tune: the search stopped (%v); rerun the same command to resume it from %s", err, statePath)
		}
	}
	if len(st.Survived) == 0 {
		return fmt.Errorf("tune: no candidate survived the search (%s); see %s", st.Reason, filepath.Join(outDir, "README.md"))
	}
	fmt.Fprintf(os.Stderr, "tune: search done after %d rounds (%s); survivors, best first: %s\n", st.Rounds, st.Reason, strings.Join(st.Survived, " "))

	// The confirmation: the best survivors against both controls.
	var confirmed []tune.Candidate
	cvs := variants[:2:2]
	for _, name := range st.Survived[:st.ConfirmCount()] {
		a := st.Arm(name)
		confirmed = append(confirmed, a.Candidate)
		cvs = append(cvs, bench.Variant{Name: a.Name, Toolchain: "patched", GODEBUG: a.GODEBUG})
	}
	confirmDir := filepath.Join(outDir, tune.ConfirmDir)
	if st.Config.Grid {
		// Every candidate ran every round: the grid's own rounds are
		// its comparison with stock.
		confirmDir = outDir
		confirmed = nil
		for _, a := range st.Arms {
			if !a.Control {
				confirmed = append(confirmed, a.Candidate)
			}
		}
	} else if m, err := results.ReadMetadata(confirmDir); err != nil || !m.Complete {
		// An interrupted confirmation starts again: its rounds are
		// only worth their interleaving if all of them ran together.
		os.RemoveAll(confirmDir)
		if err := load.start(); err != nil {
			return err
		}
		copt := opt
		copt.Variants, copt.Count, copt.Out = cvs, st.Config.ConfirmRounds, confirmDir
		copt.Command = commandLine(os.Args) + " # confirmation"
		fmt.Fprintf(os.Stderr, "tune: confirming %d candidate(s) against stock and stock2, %d rounds\n", len(confirmed), st.Config.ConfirmRounds)
		if _, err := bench.Run(ctx, copt); err != nil && !errors.Is(err, bench.ErrFailures) {
			return fmt.Errorf("tune: confirmation: %v (rerun the same command to confirm again)", err)
		}
	}
	if err := writeReport(confirmDir); err != nil {
		return fmt.Errorf("tune: confirmation report: %v", err)
	}
	c, err := stats.Compare([]string{filepath.Join(confirmDir, results.RawFile)}, stats.CompareOptions{Base: tune.Stock})
	if err != nil {
		return err
	}
	sum := &tune.Summary{Command: commandLine(os.Args), Benchmark: target.Name, Package: target.Pkg.Import, Objective: st.Config.Objective,
		Maximize: st.Config.Maximize, Hogs: *hogs, Search: st.Stats()}
	for _, l := range st.Config.Limits {
		sum.Limits = append(sum.Limits, l.String())
	}
	_, benchName, _ := strings.Cut(target.Name, ".") // key.Name
	if err := sum.Confirm(c, st, benchName, confirmed); err != nil {
		return err
	}
	if err := sum.WriteJSON(outDir); err != nil {
		return err
	}
	yUnit, limit := frontierUnit(st)
	meta, _ := results.ReadMetadata(outDir)
	series := ""
	if meta != nil {
		series = meta.Series
	}
	drawn, err := tune.PlotFrontier(outDir, plots.Caption(outDir, series), st, yUnit, limit)
	if err != nil {
		return err
	}
	var readme bytes.Buffer
	tune.WriteReadme(&readme, sum, st, drawn)
	if err := os.WriteFile(filepath.Join(outDir, results.ReadmeFile), readme.Bytes(), 0o644); err != nil {
		return err
	}
	fmt.Printf("\n%s.\n", sum.Verdict)
	if sum.Best != nil {
		fmt.Printf("\nGODEBUG=%s\n", sum.Best.GODEBUG)
	}
	fmt.Printf("\nresults: %s\n", outDir)
	return nil
}

// frontierUnit is the figure's second unit: the first limit's, else
// cpu-sec/op where the benchmark reports it, else sec/op (the time an
// operation takes, against a latency objective).
func frontierUnit(st *tune.State) (string, *tune.Limit) {
	if len(st.Config.Limits) > 0 {
		return st.Config.Limits[0].Unit, &st.Config.Limits[0]
	}
	for _, u := range []string{"cpu-sec/op", "sec/op"} {
		if u != st.Config.Objective && len(st.Arm(tune.Stock).Values[u]) > 0 {
			return u, nil
		}
	}
	return "", nil
}

// tuneCandidates is the search space: the product of the -knob values,
// or the default space one knob at a time.
func tuneCandidates(knobs []string) ([]tune.Candidate, error) {
	var ks []tune.Knob
	for _, s := range knobs {
		k, err := tune.ParseKnob(s)
		if err != nil {
			return nil, err
		}
		if slices.ContainsFunc(ks, func(o tune.Knob) bool { return o.Name == k.Name }) {
			return nil, fmt.Errorf("-knob %s given twice: give its values in one flag", k.Name)
		}
		ks = append(ks, k)
	}
	var cs []tune.Candidate
	if len(ks) == 0 {
		cs = tune.OneAtATime(tune.DefaultKnobs(physical.ProbeMachine().NUMANodes))
	} else {
		cs = tune.Product(ks)
	}
	for _, c := range cs {
		if err := bench.ValidateGODEBUG(c.GODEBUG); err != nil {
			return nil, fmt.Errorf("-knob: %v", err)
		}
	}
	if len(cs) > 64 {
		return nil, fmt.Errorf("-knob: %d candidates; give at most 64 (fewer values, or fewer knobs at once)", len(cs))
	}
	return cs, nil
}

func defaultSpaceText() string {
	var parts []string
	for _, k := range tune.DefaultKnobs(2) {
		parts = append(parts, k.Name+"="+strings.Join(k.Values, ","))
	}
	return "one at a time, " + strings.Join(parts, " ") + " (numa only on 2+ nodes, also with numabind=1)"
}

// loadOrStart resumes the search saved at path if there is one (it must
// be the same search), or starts a new one.
func loadOrStart(path string, cfg tune.Config, cands []tune.Candidate) (*tune.State, bool, error) {
	fresh, err := tune.Start(cfg, cands)
	if err != nil {
		return nil, false, err
	}
	old, err := tune.Load(path)
	if os.IsNotExist(err) {
		if _, err := os.Stat(filepath.Join(filepath.Dir(path), results.RawFile)); err == nil {
			return nil, false, fmt.Errorf("%s holds results but no %s: name another -out", filepath.Dir(path), tune.StateFile)
		}
		return fresh, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	same := old.Config.Objective == fresh.Config.Objective && old.Config.Maximize == fresh.Config.Maximize &&
		slices.Equal(old.Config.Limits, fresh.Config.Limits) && len(old.Arms) == len(fresh.Arms)
	for i := range fresh.Arms {
		if same && old.Arms[i].Candidate != fresh.Arms[i].Candidate {
			same = false
		}
	}
	if !same {
		return nil, false, fmt.Errorf("%s is a search with another objective, limits or candidates: name another -out", path)
	}
	old.Config.Budget = cfg.Budget // a resumed search may be given more time
	if !old.Done {
		fmt.Fprintf(os.Stderr, "tune: resuming the search of %s after round %d\n", path, old.Rounds)
	}
	return old, true, nil
}

// unitError is a unit to optimise or limit that the benchmark does not
// report: no rerun of the same search can help.
type unitError struct{ msg string }

func (e unitError) Error() string { return e.msg }

// sessionRunner runs the search's rounds through a harness session: one
// benchmark, each arm a variant of the session.
type sessionRunner struct {
	s       *bench.Session
	bench   string
	units   []string // the objective's and the limits', checked in the first round stock reports
	checked bool
}

func (sr *sessionRunner) Round(ctx context.Context, round int, arms []string) (map[string]tune.Obs, error) {
	runs, err := sr.s.Round(ctx, round, arms)
	if err != nil {
		return nil, err
	}
	out := map[string]tune.Obs{}
	for _, run := range runs {
		if run.Status != "ok" {
			continue
		}
		if len(run.Values) != 1 {
			var names []string
			for n := range run.Values {
				names = append(names, n)
			}
			slices.Sort(names)
			return nil, fmt.Errorf("%s reported %d benchmarks (%s): tune optimises one; narrow -bench to one sub-benchmark", sr.bench, len(names), strings.Join(names, ", "))
		}
		for _, vals := range run.Values {
			out[run.Variant] = tune.Obs{Values: vals, Wall: run.Wall}
		}
	}
	// A unit the benchmark does not report would drop every
	// candidate; say so at once instead.
	if stock, ok := out[tune.Stock]; ok && !sr.checked {
		sr.checked = true
		for _, u := range sr.units {
			if _, ok := stock.Values[u]; !ok {
				var have []string
				for h := range stock.Values {
					have = append(have, h)
				}
				slices.Sort(have)
				return nil, unitError{fmt.Sprintf("%s does not report %s; it reports %s", sr.bench, u, strings.Join(have, ", "))}
			}
		}
	}
	return out, nil
}

// hogLoad is tune -hogs: n CPU-bound processes (this binary's hidden
// hog command) beside every run, each killed with schedlab too.
type hogLoad struct {
	n    int
	cmds []*exec.Cmd
	on   bool
}

// start starts the hogs, once.
func (h *hogLoad) start() error {
	if h.on || h.n == 0 {
		return nil
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	h.on = true
	for range h.n {
		c := exec.Command(exe, "hog")
		c.SysProcAttr = hogAttr()
		if err := c.Start(); err != nil {
			h.stop()
			return fmt.Errorf("starting a hog: %v", err)
		}
		h.cmds = append(h.cmds, c)
	}
	fmt.Fprintf(os.Stderr, "tune: %d CPU hog(s) running beside every run\n", h.n)
	return nil
}

// stop kills the hogs and waits for them.
func (h *hogLoad) stop() {
	for _, c := range h.cmds {
		c.Process.Kill()
		c.Wait()
	}
	h.cmds = nil
}

// hogAttr kills a hog when schedlab dies (Linux), so that no hog
// outlives an interrupted search.
func hogAttr() *syscall.SysProcAttr {
	if runtime.GOOS == "linux" {
		return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	}
	return nil
}

// cmdHog spins one thread until killed: the load of tune -hogs.
func cmdHog() {
	runtime.GOMAXPROCS(1)
	x := uint64(1)
	for {
		for i := 0; i < 1<<20; i++ {
			x = x*6364136223846793005 + 1
		}
		if x == 0 {
			fmt.Println(x)
		}
	}
}
