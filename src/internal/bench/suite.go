package bench

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/schedlab/schedlab/src/internal/toolchain"
)

// PkgKind says where a benchmark package comes from.
type PkgKind int

const (
	StdPkg      PkgKind = iota // in the toolchain's own GOROOT (runtime)
	LocalPkg                   // in this module (benchmarks/...)
	ExternalPkg                // a pinned third-party module
	DirPkg                     // a directory given with -pkg, in any module
)

// A Pkg is a Go package whose test binary holds benchmarks.
type Pkg struct {
	Key     string // unique, used in file names: runtime, workloads, ext-grpc
	Kind    PkgKind
	Import  string // import path
	Module  string // external only: module path
	Version string // external only: module version
	Dir     string // DirPkg only: the package's directory, absolute
	Tags    string // DirPkg only: -tags for its build, "" for none
}

// A Target is one benchmark (regexp) run as one process per round and
// variant.
type Target struct {
	Name      string // shown in progress and errors, e.g. runtime.PingPongHog
	Pkg       *Pkg
	Bench     string // -test.bench regexp
	Benchtime string // -test.benchtime, "" = default of the run
	Timeout   time.Duration
	// Subs names the sub-benchmarks Bench runs, where it runs several
	// (b.Run): a run that must see one benchmark per process
	// (-measure instructions) runs each as a target of its own.
	Subs []string
}

// OneBenchmarkEach returns the suite with every target that has
// sub-benchmarks split into one target per sub-benchmark, named
// Name/sub and matching only it.
func (s *Suite) OneBenchmarkEach() *Suite {
	out := &Suite{Name: s.Name}
	for _, t := range s.Targets {
		if len(t.Subs) == 0 {
			out.Targets = append(out.Targets, t)
			continue
		}
		for _, sub := range t.Subs {
			st := t
			st.Name, st.Bench, st.Subs = t.Name+"/"+sub, t.Bench+"/^"+regexp.QuoteMeta(sub)+"$", nil
			out.Targets = append(out.Targets, st)
		}
	}
	return out
}

// A Suite is a named list of targets.
type Suite struct {
	Name    string
	Targets []Target
}

// SuiteNames lists the suites LoadSuite knows.
var SuiteNames = []string{"quick", "sched", "workloads", "external", "all", "cgo", "smoke"}

var runtimePkg = &Pkg{Key: "runtime", Kind: StdPkg, Import: "runtime"}
var workloadsPkg = &Pkg{Key: "workloads", Kind: LocalPkg, Import: toolchain.ModulePath + "/benchmarks/workloads"}
var cgocallPkg = &Pkg{Key: "cgocall", Kind: LocalPkg, Import: toolchain.ModulePath + "/benchmarks/cgocall"}

// SchedBenchmarks are the runtime's own scheduler benchmarks.
var SchedBenchmarks = []string{
	"PingPongHog",
	"CreateGoroutines", "CreateGoroutinesParallel", "CreateGoroutinesCapture", "CreateGoroutinesSingle",
	"WakeupParallelSpinning", "WakeupParallelSyscall",
	"ChanProdCons0", "ChanProdCons10", "ChanProdCons100", "ChanSync",
	"Matmult",
	"GoroutineSelect", "GoroutineBlocking", "GoroutineForRange",
	"MutexHandoff",
	"Syscall", "SyscallWork", "SyscallExcess", "SyscallExcessWork",
}

// timeBound are the benchmarks whose operations wait on time (sleeps, a
// hog that runs until sysmon preempts it, a spin until a deadline):
// what one does follows the clock, so its instruction count measures
// time, not work (results/2026-12-01-vm-cost-quick-instructions: runs
// of the same binary 79% to 491% apart), and under valgrind, which runs
// a program tens of times slower, it can take hours to calibrate.
var timeBound = map[string]bool{
	"runtime.PingPongHog":            true,
	"runtime.WakeupParallelSpinning": true,
	"runtime.WakeupParallelSyscall":  true,
	"workloads.LatencyProbe":         true,
}

// Countable returns the suite without the targets whose operations
// wait on time, and the names of those it left out.
func (s *Suite) Countable() (*Suite, []string) {
	out := &Suite{Name: s.Name}
	var left []string
	for _, t := range s.Targets {
		if base, _, _ := strings.Cut(t.Name, "/"); timeBound[base] {
			left = append(left, t.Name)
			continue
		}
		out.Targets = append(out.Targets, t)
	}
	return out, left
}

// WorkloadBenchmarks are schedlab's own workloads in benchmarks/workloads,
// with the -benchtime each needs and the sub-benchmarks each runs.
var WorkloadBenchmarks = []struct {
	Name, Benchtime string
	Subs            []string
}{
	{"ForkJoinTree", "", nil},
	{"BurstyProducer", "", nil},
	{"ChanPipeline", "", nil},
	{"TimerStorm", "", nil},
	{"BlockingSyscall", "", nil},
	{"ParallelAlloc", "", nil},
	{"LatencyProbe", "400x", nil},
	{"HTTPLoopback", "", nil},
	{"FanOutSharedData", "", nil},
	{"PointerChase", "", nil},
	{"GCHeavy", "", nil},
	{"RequestResponse", "", nil},
	{"MutexContention", "", mutexContentionSubs},
}

// mutexContentionSubs are BenchmarkMutexContention's sub-benchmarks.
var mutexContentionSubs = []string{"goroutines=10", "goroutines=100"}

func benchRE(name string) string { return "^Benchmark" + name + "$" }

func schedTarget(name, benchtime string) Target {
	return Target{Name: "runtime." + name, Pkg: runtimePkg, Bench: benchRE(name), Benchtime: benchtime}
}

func workloadTarget(name, benchtime string) Target {
	return Target{Name: "workloads." + name, Pkg: workloadsPkg, Bench: benchRE(name), Benchtime: benchtime}
}

// LoadSuite returns the named suite; root is the repository root (the
// external suite is read from benchmarks/external/modules.txt).
func LoadSuite(root, name string) (*Suite, error) {
	s := &Suite{Name: name}
	switch name {
	case "sched":
		for _, n := range SchedBenchmarks {
			s.Targets = append(s.Targets, schedTarget(n, ""))
		}
	case "workloads":
		for _, w := range WorkloadBenchmarks {
			t := workloadTarget(w.Name, w.Benchtime)
			t.Subs = w.Subs
			s.Targets = append(s.Targets, t)
		}
	case "external":
		ts, err := LoadExternal(filepath.Join(root, ExternalFile))
		if err != nil {
			return nil, err
		}
		s.Targets = ts
	case "all":
		for _, n := range []string{"sched", "workloads", "external"} {
			sub, err := LoadSuite(root, n)
			if err != nil {
				return nil, err
			}
			s.Targets = append(s.Targets, sub.Targets...)
		}
	case "quick":
		mutex := workloadTarget("MutexContention", "200ms")
		mutex.Subs = mutexContentionSubs
		// The main job runs it with stock, patched and a stock2
		// control, -count 10: 270 runs, about 2.5 minutes on 2 cores,
		// plus about 80 s of test-binary builds on a cold cache.
		// MutexContention guards the default mode's cost on the
		// contended mutex hand-off (issue 19).
		s.Targets = []Target{
			schedTarget("PingPongHog", "200ms"),
			schedTarget("ChanProdCons10", "200ms"),
			schedTarget("CreateGoroutinesParallel", "200ms"),
			{Name: "runtime.WakeupParallelSpinning/10µs", Pkg: runtimePkg, Bench: "^BenchmarkWakeupParallelSpinning$/^10µs$", Benchtime: "200ms"},
			workloadTarget("ForkJoinTree", "200ms"),
			workloadTarget("TimerStorm", "200ms"),
			workloadTarget("LatencyProbe", "60x"),
			workloadTarget("HTTPLoopback", "200ms"),
			mutex,
		}
	case "cgo":
		// Needs a C compiler, so it is not part of "all".
		for _, n := range []string{"CgoCall", "CgoCallParallel", "CgoCallYield", "Yield"} {
			s.Targets = append(s.Targets, Target{Name: "cgocall." + n, Pkg: cgocallPkg, Bench: benchRE(n)})
		}
	case "smoke":
		// A trivial suite for tests of the harness itself.
		s.Targets = []Target{workloadTarget("Smoke", "2000x")}
	default:
		return nil, fmt.Errorf("unknown suite %q (known: %s)", name, strings.Join(SuiteNames, ", "))
	}
	return s, nil
}

// Filter keeps the targets whose name matches re.
func (s *Suite) Filter(re string) error {
	if re == "" {
		return nil
	}
	rx, err := regexp.Compile(re)
	if err != nil {
		return fmt.Errorf("-bench %q: %v", re, err)
	}
	var keep []Target
	for _, t := range s.Targets {
		if rx.MatchString(t.Name) {
			keep = append(keep, t)
		}
	}
	if len(keep) == 0 {
		var names []string
		for _, t := range s.Targets {
			names = append(names, t.Name)
		}
		return fmt.Errorf("-bench %q matches no benchmark of suite %s (it has: %s)", re, s.Name, strings.Join(names, ", "))
	}
	s.Targets = keep
	return nil
}

// Pkgs lists the distinct packages of the suite in first-use order.
func (s *Suite) Pkgs() []*Pkg {
	seen := map[*Pkg]bool{}
	var ps []*Pkg
	for _, t := range s.Targets {
		if !seen[t.Pkg] {
			seen[t.Pkg] = true
			ps = append(ps, t.Pkg)
		}
	}
	return ps
}

// ExternalFile is the data file listing the external suite.
const ExternalFile = "benchmarks/external/modules.txt"

// LoadExternal reads the external suite's data file. Each non-comment
// line is
//
//	name module@version package bench-regexp [benchtime]
//
// where name labels the target (ext-NAME) and package is the import path
// whose test binary holds the benchmarks.
func LoadExternal(path string) ([]Target, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	pkgs := map[string]*Pkg{}
	var ts []Target
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fs := strings.Fields(line)
		if len(fs) != 4 && len(fs) != 5 {
			return nil, fmt.Errorf("%s:%d: want: name module@version package bench-regexp [benchtime]", path, n)
		}
		mod, ver, ok := strings.Cut(fs[1], "@")
		if !ok || ver == "" {
			return nil, fmt.Errorf("%s:%d: %q: want module@version", path, n, fs[1])
		}
		if !strings.HasPrefix(fs[2], mod) {
			return nil, fmt.Errorf("%s:%d: package %s is not in module %s", path, n, fs[2], mod)
		}
		if _, err := regexp.Compile(fs[3]); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, n, err)
		}
		key := "ext-" + strings.NewReplacer("/", "_", ".", "_", "@", "_").Replace(fs[2])
		p := pkgs[fs[2]]
		if p == nil {
			p = &Pkg{Key: key, Kind: ExternalPkg, Import: fs[2], Module: mod, Version: ver}
			pkgs[fs[2]] = p
		} else if p.Version != ver {
			return nil, fmt.Errorf("%s:%d: %s pinned at both %s and %s", path, n, mod, p.Version, ver)
		}
		t := Target{Name: fs[0] + "." + strings.Trim(fs[3], "^$"), Pkg: p, Bench: fs[3]}
		t.Name = strings.NewReplacer("Benchmark", "", "$", "", "^", "").Replace(t.Name)
		if len(fs) == 5 {
			t.Benchtime = fs[4]
		}
		ts = append(ts, t)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(ts) == 0 {
		return nil, fmt.Errorf("%s: no benchmarks listed", path)
	}
	return ts, nil
}
