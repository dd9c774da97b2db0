// Package mutants checks that the tests of `make test` can fail: it
// disables each headline mechanism of the patch series in turn (a
// mutant: one exact edit of the patched GOROOT's source) and runs the
// runtime tests that guard it, which must then fail. A mutant that the
// tests survive marks a mechanism that `make test` would let break
// unnoticed.
//
// Each mutant is applied to a scratch worktree of toolchain/goroot at
// HEAD, never to toolchain/goroot itself, and the tests run with the
// built toolchain's go command, which compiles the runtime from the
// worktree's source (as make test-prefixes does).
package mutants

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
)

// A Mutant is one mechanism disabled by one edit.
type Mutant struct {
	Name  string // short, unique
	Patch string // the patch whose mechanism it disables, e.g. "0013"
	What  string // the mechanism, as the patch names it
	File  string // relative to GOROOT
	Old   string // must occur exactly once in File
	New   string // what replaces it: the mechanism off, the code compiling
	Tests string // the -run pattern of the tests expected to kill it
}

// All lists the mutants of `make test-mutants`, in series order. Each
// Old is checked against the source by TestMutantsApply when the
// patched GOROOT is there, so that the list cannot go stale silently.
var All = []Mutant{
	{
		Name: "timeslice-recorded-start", Patch: "0006",
		What:  "sysmon counts a slice from the start execute recorded",
		File:  "src/runtime/sysmonknobs.go",
		Old:   "\t\tif pp.timeslice.tick.LoadAcquire() == schedt {",
		New:   "\t\tif false && pp.timeslice.tick.LoadAcquire() == schedt {",
		Tests: "^TestTimeslice",
	},
	{
		Name: "timeslice-record", Patch: "0006",
		What:  "execute records the start of each new slice",
		File:  "src/runtime/sysmonknobs.go",
		Old:   "\t\tpp.timeslice.record(pp.schedtick)",
		New:   "\t\t_ = pp.schedtick",
		Tests: "^TestTimeslice",
	},
	{
		Name: "steal-count-node", Patch: "0009",
		What:  "steals count as local or remote by the thief's and victim's nodes",
		File:  "src/runtime/schedstats.go",
		Old:   "\tif pp.statsNode() == victim.statsNode() {",
		New:   "\tif true || pp.statsNode() == victim.statsNode() {",
		Tests: "^TestNUMA",
	},
	{
		Name: "steal-order", Patch: "0010",
		What:  "a thief with numasteal set enumerates victims in its node's order, its own node first",
		File:  "src/runtime/numa_steal.go",
		Old:   "\tif numaActive && debug.numasteal != 0 {\n\t\treturn numaSteal.start(pp.numaNode, localOnly)",
		New:   "\tif false {\n\t\treturn numaSteal.start(pp.numaNode, localOnly)",
		Tests: "^TestNUMA",
	},
	{
		Name: "wakep-repick", Patch: "0011",
		What:  "wakep takes an idle P on the waker's node",
		File:  "src/runtime/proc.go",
		Old:   "\t\tpp = numaRepick(pp, mp.p.ptr())",
		New:   "\t\t_ = mp.p.ptr()",
		Tests: "^TestNUMA",
	},
	{
		Name: "wakeup-count", Patch: "0014",
		What:  "a wakeup counts as local or remote to the work's node",
		File:  "src/runtime/numa.go",
		Old:   "\tif pp.numaNode != node {\n\t\ts.numaWakeupsRemote++",
		New:   "\tif false {\n\t\ts.numaWakeupsRemote++",
		Tests: "^TestNUMA",
	},
	{
		Name: "leave-remote", Patch: "0014",
		What:  "a thief leaves remote work to an idle P of its node",
		File:  "src/runtime/numa_steal.go",
		Old:   "\tif debug.numasteal < 2 || p2.numaNode == pp.numaNode {",
		New:   "\tif true {",
		Tests: "^TestNUMA",
	},
	{
		Name: "lock-unbind", Patch: "0013",
		What:  "a locked thread gets the process's mask",
		File:  "src/runtime/proc.go",
		Old:   "\t\tnumaUnbindForLock(gp.m) // a locked thread has the process's mask",
		New:   "\t\t_ = gp.m",
		Tests: "^TestNUMA",
	},
	{
		Name: "cgo-unbind", Patch: "0013",
		What:  "a thread calling C gets the process's mask, for threads C creates",
		File:  "src/runtime/cgocall.go",
		Old:   "\t\tnumaUnbindHold(mp) // threads that C creates inherit the mask",
		New:   "\t\t_ = mp",
		Tests: "^TestNUMA",
	},
	{
		Name: "cgo-rebind-hold", Patch: "0013",
		What:  "a thread stays unbound for a millisecond after a C call",
		File:  "src/runtime/cgocall.go",
		Old:   "\t\tnumaUnbindHold(mp) // threads that C creates inherit the mask",
		New:   "\t\tnumaUnbind(mp) // threads that C creates inherit the mask",
		Tests: "^TestNUMA",
	},
	{
		Name: "exec-unbind", Patch: "0013",
		What:  "syscall.Exec runs execve from a thread with the process's mask",
		File:  "src/runtime/numa_linux.go",
		Old:   "func numaBeforeExec() {\n\tlockOSThread()\n}",
		New:   "func numaBeforeExec() {\n\tgetg().m.lockedInt++\n\tgetg().m.lockedg.set(getg())\n\tgetg().lockedm.set(getg().m)\n}",
		Tests: "^TestNUMABind",
	},
	{
		Name: "fork-child-unbind", Patch: "0013",
		What:  "the child of a fork from a bound thread gets the process's mask",
		File:  "src/runtime/numa_linux.go",
		Old:   "\tif getg().m.numaBound {\n\t\t// Linux's forkExec",
		New:   "\tif false {\n\t\t// Linux's forkExec",
		Tests: "^TestNUMABind",
	},
	{
		Name: "mask-generation-check", Patch: "0013",
		What:  "a reader of the process's mask detects a rewritten buffer",
		File:  "src/runtime/numa_linux.go",
		Old:   "\treturn pm.begun.Load()-gen <= 1",
		New:   "\treturn true",
		Tests: "^TestNUMAProcMask",
	},
	{
		Name: "new-thread-unbind", Patch: "0013",
		What:  "a new thread starts with the process's mask, not its creator's binding",
		File:  "src/runtime/numa_linux.go",
		Old:   "\tif !numaThreadsOn || mp.isextra {\n\t\treturn\n\t}\n\tkey := numaIdleKey()",
		New:   "\tif true {\n\t\treturn\n\t}\n\tkey := numaIdleKey()",
		Tests: "^TestNUMA",
	},
	{
		Name: "widen-rederive", Patch: "0013",
		What:  "a widened mask rebuilds the topology and re-homes the Ps",
		File:  "src/runtime/numa_linux.go",
		Old:   "\tif !numaThreadsOn || numaSysfsDir != \"\" {",
		New:   "\tif true {",
		Tests: "^TestNUMA(Widen|Narrow)",
	},
	{
		Name: "left-work-kept", Patch: "0014",
		What:  "a wakeup by a thread that left remote work follows numawake",
		File:  "src/runtime/numa.go",
		Old:   "\tnumaPreferIdle(near, 0)",
		New:   "\tnumaPreferIdle(near, numaTakeLeft())",
		Tests: "^TestNUMA",
	},
	{
		Name: "runq-overflow-count", Patch: "0020",
		What:  "runqputslow counts an overflow and the goroutines it moved",
		File:  "src/runtime/schedstats.go",
		Old:   "\tschedStatAdd(&pp.schedStats.runqOverflows, 1)",
		New:   "\t_ = &pp.schedStats.runqOverflows",
		Tests: "^TestSchedStats",
	},
	{
		Name: "confine-decision", Patch: "0022",
		What:  "a process whose GOMAXPROCS fits one node is confined to it",
		File:  "src/runtime/numa_confine_linux.go",
		Old:   "\t\tif i := (first + k) % t.nodes; t.ncpu[i] >= nprocs {",
		New:   "\t\tif i := (first + k) % t.nodes; false && t.ncpu[i] >= nprocs {",
		Tests: "^TestNUMAConfine",
	},
	{
		Name: "confine-sysmon", Patch: "0022",
		What:  "sysmon keeps to the confined node and follows a new decision",
		File:  "src/runtime/numa_linux.go",
		Old:   "\t\tnumaBindTo(mp, key)\n\t}\n\tif now-numaProc.last",
		New:   "\t\t_ = key\n\t}\n\tif now-numaProc.last",
		Tests: "^TestNUMAConfine",
	},
	{
		Name: "confine-idle-threads", Patch: "0022",
		What:  "idle Ms are restricted or widened when the decision changes",
		File:  "src/runtime/numa_confine_linux.go",
		Old:   "\t\tif numaSetThreadAffinity(mp.procid, &mask) {",
		New:   "\t\tif false {",
		Tests: "^TestNUMAConfine",
	},
	{
		Name: "heap-window-pages", Patch: "0024",
		What:  "a P's page cache comes from its node's heap window (numamem=2)",
		File:  "src/runtime/mheap.go",
		Old:   "\t\t\tif numaHeapOn && numaHeapNodeOfP(pp) >= 0 {",
		New:   "\t\t\tif false && numaHeapNodeOfP(pp) >= 0 {",
		Tests: "^TestNUMAHeap",
	},
	{
		Name: "heap-window-return", Patch: "0024",
		What:  "a swept or uncached span goes back to its window's mcentral (numamem=2)",
		File:  "src/runtime/numa_heap.go",
		Old:   "\tif numaHeapOn {\n\t\treturn numaSpanCentral(s)",
		New:   "\tif false {\n\t\treturn numaSpanCentral(s)",
		Tests: "^TestNUMAHeap",
	},
	{
		Name: "heap-window-refill", Patch: "0024",
		What:  "a P refills its mcache from its node's window's mcentrals (numamem=2)",
		File:  "src/runtime/numa_heap.go",
		Old:   "\t\tif w := numaHeap.winOf[pp.numaNode]; w >= 0 {",
		New:   "\t\tif w := numaHeap.winOf[pp.numaNode]; false && w >= 0 {",
		Tests: "^TestNUMAHeap",
	},
}

// A Result is the outcome of one mutant.
type Result struct {
	Mutant
	Killed  bool     // some test failed
	Failed  []string // the tests that failed
	Invalid string   // why the mutant could not be tested (edit not found, build failed)
	Elapsed time.Duration
}

// Apply returns src with m's edit made, or an error if m.Old does not
// occur exactly once.
func Apply(src []byte, m Mutant) ([]byte, error) {
	if n := bytes.Count(src, []byte(m.Old)); n != 1 {
		return nil, fmt.Errorf("mutant %s: %q occurs %d times in %s, want once", m.Name, m.Old, n, m.File)
	}
	return bytes.Replace(src, []byte(m.Old), []byte(m.New), 1), nil
}

var failLine = regexp.MustCompile(`(?m)^\s*--- FAIL: (\S+)`)

// Baseline runs the tests of every mutant in ms on the unmutated tree
// at dir, which must pass: a test that fails anyway would kill every
// mutant it is run for.
func Baseline(ctx context.Context, dir, gocmd string, ms []Mutant) ([]byte, error) {
	var pats []string
	seen := map[string]bool{}
	for _, m := range ms {
		if !seen[m.Tests] {
			seen[m.Tests] = true
			pats = append(pats, m.Tests)
		}
	}
	return runTests(ctx, dir, gocmd, strings.Join(pats, "|"))
}

// Run applies each mutant in turn to the source tree at dir (a worktree
// of the patched GOROOT, restored after each) and runs go test -short
// -run m.Tests on the runtime package with gocmd, GOROOT=dir. It writes
// a line per mutant to log, and each test run's output to
// logdir/<name>.log if logdir is not empty.
func Run(ctx context.Context, dir, gocmd string, ms []Mutant, log io.Writer, logdir string) []Result {
	var rs []Result
	for _, m := range ms {
		r := Result{Mutant: m}
		start := time.Now()
		path := filepath.Join(dir, m.File)
		orig, err := os.ReadFile(path)
		if err == nil {
			var mutated []byte
			if mutated, err = Apply(orig, m); err == nil {
				err = os.WriteFile(path, mutated, 0o644)
			}
		}
		if err != nil {
			r.Invalid = err.Error()
		} else {
			out, runErr := runTests(ctx, dir, gocmd, m.Tests)
			if werr := os.WriteFile(path, orig, 0o644); werr != nil {
				r.Invalid = "restoring " + m.File + ": " + werr.Error()
			}
			if logdir != "" {
				os.WriteFile(filepath.Join(logdir, m.Name+".log"), out, 0o644)
			}
			switch {
			case runErr == nil:
			case bytes.Contains(out, []byte("[build failed]")) || bytes.Contains(out, []byte("[setup failed]")):
				r.Invalid = "the mutant does not compile"
			default:
				r.Killed = true
				for _, f := range failLine.FindAllSubmatch(out, -1) {
					// A test that reruns the test binary prints
					// its child's FAIL line too: name it once.
					if name := string(f[1]); !slices.Contains(r.Failed, name) {
						r.Failed = append(r.Failed, name)
					}
				}
			}
		}
		r.Elapsed = time.Since(start).Round(time.Second)
		fmt.Fprintf(log, "mutants: %-24s %s %s\n", m.Name, verdict(r), r.Elapsed)
		rs = append(rs, r)
	}
	return rs
}

func runTests(ctx context.Context, dir, gocmd, pattern string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, gocmd, "test", "-short", "-count=1", "-run", pattern, "runtime")
	cmd.Dir = filepath.Join(dir, "src")
	env := []string{"GOROOT=" + dir, "GOTOOLCHAIN=local"}
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); k != "GOROOT" && k != "GOTOOLCHAIN" && k != "GOFLAGS" && k != "GODEBUG" {
			env = append(env, kv)
		}
	}
	cmd.Env = env
	return cmd.CombinedOutput()
}

func verdict(r Result) string {
	switch {
	case r.Invalid != "":
		return "INVALID: " + r.Invalid
	case r.Killed:
		if len(r.Failed) == 0 {
			return "killed (the test binary failed)"
		}
		return "killed by " + strings.Join(r.Failed, ", ")
	}
	return "SURVIVED"
}

// Report writes the results as a Markdown table, one row per mutant.
func Report(w io.Writer, rs []Result) {
	fmt.Fprintln(w, "| mutant | patch | mechanism disabled | file | tests run | verdict |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|")
	for _, r := range rs {
		fmt.Fprintf(w, "| %s | %s | %s | `%s` | `%s` | %s |\n", r.Name, r.Patch, r.What, r.File, r.Tests, verdict(r))
	}
}

// AllKilled reports whether every mutant was killed.
func AllKilled(rs []Result) bool {
	for _, r := range rs {
		if !r.Killed || r.Invalid != "" {
			return false
		}
	}
	return true
}
