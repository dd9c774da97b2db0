// Package physical says what the machine under a benchmark is and what
// it can measure, and collects the physical evidence of each run: where
// the run's memory was allocated and placed, how busy each CPU was, and
// (with a PMU) how many loads went to another node, which the
// scheduler's own bookkeeping cannot say.
//
// The doctor (RunDoctor), the machine description (ProbeMachine) and the
// collectors (Probe) are one package because they read the same /proc
// and /sys files and because the collectors decide from the doctor's
// report what this machine allows (whether perf events open). It knows
// nothing of results folders: the runner (package bench) writes the
// lines it formats into physical.txt, and the report compares them.
package physical

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// vmstatKeys are the /proc/vmstat counters a run reports as deltas. They
// count page allocations by NUMA policy outcome (hit, miss, foreign,
// local, other) and the kernel's NUMA balancing (hint faults, pages
// migrated). They are machine-wide: another process's allocations during
// the run count too.
var vmstatKeys = []string{"numa_hit", "numa_miss", "numa_foreign", "numa_local", "numa_other", "numa_hint_faults", "numa_pages_migrated"}

// perfNUMAEvents are the hardware events a run counts over the whole
// benchmark process (all its threads) where the machine has them: reads
// that reached some node's memory, and those that missed the local node.
var perfNUMAEvents = []string{"node-loads", "node-load-misses"}

// perfSchedEvents are the kernel's software events a run counts over the
// whole benchmark process: how often its threads moved between CPUs and
// how often they were switched out. They open without a PMU.
var perfSchedEvents = []string{"cpu-migrations", "context-switches"}

// perfTraceEvents are scheduler tracepoints a run counts over the whole
// benchmark process where tracefs lets them open: sched_migrate_task
// fires for every task the kernel moves to another CPU, including the
// moves of a task that is not running (wake-up placement, load
// balancing), which cpu-migrations counts only from the task's side.
var perfTraceEvents = []string{"sched:sched_migrate_task"}

// traceUnit is the benchmark-format unit of tracepoint e:
// sched:sched_migrate_task counts as sched-migrate-task/run.
func traceUnit(e string) string {
	_, name, _ := strings.Cut(e, ":")
	return strings.ReplaceAll(name, "_", "-") + "/run"
}

// Info records what the physical collectors measured in a results
// folder and what they could not, with the reason.
type Info struct {
	Measured    []string `json:"measured"`
	Unavailable []string `json:"unavailable"`
}

// A Probe collects the physical evidence around benchmark runs.
type Probe struct {
	proc   string   // the proc file system, normally /proc
	perf   string   // perf binary, "" when no counter is collected
	events []string // what runs count under perf stat: perfNUMAEvents, perfSchedEvents or both
	// Info says what the probe collects on this machine; it is fixed
	// when NewProbe returns.
	Info Info
}

// NewProbe decides, from the doctor's report, what can be collected on
// this machine, and says so in Info. proc is the proc file system,
// normally /proc.
func NewProbe(proc string, d *Doctor) *Probe {
	p := &Probe{proc: proc}
	if _, err := readVMStat(filepath.Join(proc, "vmstat")); err != nil {
		p.Info.Unavailable = append(p.Info.Unavailable, "/proc/vmstat NUMA counters: not available: "+shortErr(err))
	} else {
		p.Info.Measured = append(p.Info.Measured, "/proc/vmstat deltas over each run (machine-wide): "+strings.Join(vmstatKeys, ", ")+
			"; local-alloc-share = numa_local / (numa_local + numa_other)")
	}
	if _, err := readPerCPU(filepath.Join(proc, "stat")); err != nil {
		p.Info.Unavailable = append(p.Info.Unavailable, "per-CPU busy time: not available: "+shortErr(err))
	} else {
		p.Info.Measured = append(p.Info.Measured, "each CPU's busy share over each run, from /proc/stat (machine-wide): cpu<N>-busy-share; cpu-busy-spread = the busiest CPU's share minus the idlest's")
	}
	if _, err := os.Stat(filepath.Join(proc, "self", "numa_maps")); err != nil {
		p.Info.Unavailable = append(p.Info.Unavailable, "page placement (/proc/<pid>/numa_maps): not available: "+shortErr(err)+" (a kernel without CONFIG_NUMA)")
	} else {
		p.Info.Measured = append(p.Info.Measured, "page placement of the benchmark process's anonymous memory (Go heap, stacks) by node, from /proc/<pid>/numa_maps sampled every "+
			numaMapsPeriod.String()+" (the last sample before the process exits): resident-MiB, node<N>-MiB, top-node-share")
	}
	path, lookErr := exec.LookPath("perf")
	noTool := "the events open but the perf tool is not installed (it counts every thread of the process from exec on)"
	why := perfUnavailable(d, "node-loads")
	if why == "" && lookErr != nil {
		why = noTool
	}
	if why == "" {
		p.events = append(p.events, perfNUMAEvents...)
		p.Info.Measured = append(p.Info.Measured, "hardware counters over the whole benchmark process (perf stat): "+strings.Join(perfNUMAEvents, ", ")+
			"; node-miss-share = node-load-misses / node-loads")
	} else {
		p.Info.Unavailable = append(p.Info.Unavailable, "hardware counters ("+strings.Join(perfNUMAEvents, ", ")+"): not available: "+why)
	}
	why = perfUnavailable(d, "cpu-migrations")
	if why == "" && lookErr != nil {
		why = noTool
	}
	if why == "" {
		p.events = append(p.events, perfSchedEvents...)
		p.Info.Measured = append(p.Info.Measured, "kernel scheduler events over the whole benchmark process (perf stat software events): "+strings.Join(perfSchedEvents, ", ")+" (per run)")
	} else {
		p.Info.Unavailable = append(p.Info.Unavailable, "kernel scheduler events ("+strings.Join(perfSchedEvents, ", ")+"): not available: "+why)
	}
	why = perfUnavailable(d, perfTraceEvents[0])
	if why == "" && lookErr != nil {
		why = noTool
	}
	if why == "" {
		p.events = append(p.events, perfTraceEvents...)
		p.Info.Measured = append(p.Info.Measured, "kernel scheduler tracepoints over the whole benchmark process (perf stat): "+strings.Join(perfTraceEvents, ", ")+" (per run, as "+traceUnit(perfTraceEvents[0])+")")
	} else {
		p.Info.Unavailable = append(p.Info.Unavailable, "kernel scheduler tracepoints ("+strings.Join(perfTraceEvents, ", ")+"): not available: "+why)
	}
	if len(p.events) > 0 {
		p.perf = path
	}
	return p
}

// perfUnavailable says why the doctor's event name (and those counted
// with it) cannot be counted, from its probe; "" when it opens.
func perfUnavailable(d *Doctor, name string) string {
	if d == nil || d.PerfEvents == nil {
		return "perf events were not probed"
	}
	for _, e := range d.PerfEvents {
		if e.Name == name {
			if e.OK {
				return ""
			}
			return e.Why
		}
	}
	return "the doctor did not probe " + name
}

// PerfStat reports whether runs go under perf stat: then Wrap writes
// each process's counts to a file, and Begin must be given those files.
func (p *Probe) PerfStat() bool { return p.perf != "" }

// Wrap returns the command line that runs argv under perf stat, writing
// the counts to out, or argv itself when counters are not collected.
func (p *Probe) Wrap(argv []string, out string) []string {
	if p.perf == "" {
		return argv
	}
	return append([]string{p.perf, "stat", "-x", ",", "-o", out, "-e", strings.Join(p.events, ","), "--"}, argv...)
}

// A Run collects one run's evidence: vmstat before and after, and the
// last numa_maps sample of the benchmark process.
type Run struct {
	p        *Probe
	bin      string   // the benchmark binary, to find its process under wrappers
	perfOuts []string // perf stat output of each process of the run
	before   map[string]int64
	cpuStart []cpuTimes
	stop     chan struct{}
	done     chan struct{}

	mu       sync.Mutex
	lastMaps map[int]int64 // bytes by node
	samples  int
}

// numaMapsPeriod is how often a run's page placement is sampled. Reading
// numa_maps walks the process's page tables, so it is not free, and the
// sampler shares the machine with the benchmark; its cost has not been
// measured. At ten times a second, the last sample of a run is at most
// a tenth of a second old when the process exits.
const numaMapsPeriod = 100 * time.Millisecond

// Begin starts collecting a run of the benchmark binary bin (the path
// /proc shows for its executable, every symbolic link resolved), before
// its processes start; perfOuts are the perf stat outputs of its
// processes (see Wrap), nil without PerfStat. Sample must follow once
// the first process has started, and End once all have exited.
func (p *Probe) Begin(bin string, perfOuts []string) *Run {
	r := &Run{p: p, bin: bin, perfOuts: perfOuts, stop: make(chan struct{}), done: make(chan struct{})}
	r.before, _ = readVMStat(filepath.Join(p.proc, "vmstat"))
	r.cpuStart, _ = readPerCPU(filepath.Join(p.proc, "stat"))
	return r
}

// Sample polls the numa_maps of the benchmark process, which is pid or,
// under wrappers that fork (perf stat), one of its descendants, until
// End. It runs on a goroutine of its own.
func (r *Run) Sample(pid int) {
	defer close(r.done)
	t := time.NewTicker(numaMapsPeriod)
	defer t.Stop()
	target := 0
	for {
		select {
		case <-r.stop:
			return
		case <-t.C:
		}
		if target == 0 {
			target = findProcess(r.p.proc, pid, r.bin, 4)
			if target == 0 {
				continue
			}
		}
		data, err := os.ReadFile(filepath.Join(r.p.proc, strconv.Itoa(target), "numa_maps"))
		if err != nil || len(data) == 0 {
			continue // exiting, or not yet exec'd
		}
		if m := parseNUMAMaps(data); len(m) > 0 {
			r.mu.Lock()
			r.lastMaps, r.samples = m, r.samples+1
			r.mu.Unlock()
		}
	}
}

// End stops sampling and returns the run's metrics as "value unit"
// pairs, in a fixed order.
func (r *Run) End() []Metric {
	close(r.stop)
	<-r.done
	var ms []Metric
	after, err := readVMStat(filepath.Join(r.p.proc, "vmstat"))
	if err == nil && r.before != nil {
		d := map[string]int64{}
		for _, k := range vmstatKeys {
			a, ok1 := r.before[k]
			z, ok2 := after[k]
			if ok1 && ok2 {
				d[k] = z - a
				ms = append(ms, Metric{float64(z - a), strings.ReplaceAll(k, "_", "-") + "/run"})
			}
		}
		if l, o := d["numa_local"], d["numa_other"]; l+o > 0 {
			ms = append(ms, Metric{float64(l) / float64(l+o), "local-alloc-share"})
		}
	}
	if end, err := readPerCPU(filepath.Join(r.p.proc, "stat")); err == nil {
		ms = append(ms, cpuBusyMetrics(r.cpuStart, end)...)
	}
	r.mu.Lock()
	maps := r.lastMaps
	r.mu.Unlock()
	if len(maps) > 0 {
		var total, top int64
		nodes := make([]int, 0, len(maps))
		for n, b := range maps {
			nodes = append(nodes, n)
			total += b
			top = max(top, b)
		}
		sort.Ints(nodes)
		ms = append(ms, Metric{float64(total) / (1 << 20), "resident-MiB"})
		for _, n := range nodes {
			ms = append(ms, Metric{float64(maps[n]) / (1 << 20), fmt.Sprintf("node%d-MiB", n)})
		}
		if total > 0 {
			ms = append(ms, Metric{float64(top) / float64(total), "top-node-share"})
		}
	}
	if len(r.perfOuts) > 0 {
		// The counts of every process of the run, summed; an event
		// counts only if every process reported it.
		sum := map[string]float64{}
		ok := map[string]bool{}
		for _, e := range r.p.events {
			ok[e] = true
		}
		for _, out := range r.perfOuts {
			data, err := os.ReadFile(out)
			if err != nil {
				ok = map[string]bool{}
				break
			}
			counts := parsePerfStat(data)
			for _, e := range r.p.events {
				v, found := counts[e]
				sum[e] += v
				ok[e] = ok[e] && found
			}
		}
		loads, misses := sum["node-loads"], sum["node-load-misses"]
		if ok["node-loads"] {
			ms = append(ms, Metric{loads, "node-loads/run"})
		}
		if ok["node-load-misses"] {
			ms = append(ms, Metric{misses, "node-load-misses/run"})
		}
		if ok["node-loads"] && ok["node-load-misses"] && loads > 0 {
			ms = append(ms, Metric{misses / loads, "node-miss-share"})
		}
		for _, e := range perfSchedEvents {
			if ok[e] {
				ms = append(ms, Metric{sum[e], e + "/run"})
			}
		}
		for _, e := range perfTraceEvents {
			if ok[e] {
				ms = append(ms, Metric{sum[e], traceUnit(e)})
			}
		}
	}
	return ms
}

// A Metric is one value of a run with its benchmark-format unit.
type Metric struct {
	Value float64
	Unit  string
}

// cpuTimes is one CPU's busy and idle time, in clock ticks, from a
// cpuN line of /proc/stat.
type cpuTimes struct {
	cpu        int
	busy, idle int64
}

// readPerCPU reads every CPU's busy and idle time from a /proc/stat file.
// Busy is user, nice, system, irq and softirq time; idle is idle and
// iowait time; steal, which the CPU did not run at all, is in neither.
func readPerCPU(path string) ([]cpuTimes, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var cs []cpuTimes
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) < 8 || !strings.HasPrefix(f[0], "cpu") || f[0] == "cpu" {
			continue
		}
		c, err := strconv.Atoi(f[0][len("cpu"):])
		if err != nil {
			continue
		}
		var v [7]int64
		for i := range v {
			if v[i], err = strconv.ParseInt(f[i+1], 10, 64); err != nil {
				return nil, fmt.Errorf("%s: bad %s line %q", path, f[0], line)
			}
		}
		// user nice system idle iowait irq softirq
		cs = append(cs, cpuTimes{cpu: c, busy: v[0] + v[1] + v[2] + v[5] + v[6], idle: v[3] + v[4]})
	}
	if len(cs) == 0 {
		return nil, fmt.Errorf("%s: no cpuN lines", path)
	}
	return cs, nil
}

// cpuBusyMetrics returns, from two readings of every CPU's times, each
// CPU's busy share of the interval (cpuN-busy-share, machine-wide: every
// process counts), and the spread between the busiest and the idlest CPU
// (cpu-busy-spread): where the load of a run went, and how unevenly.
// CPUs missing from either reading, or without ticks, are left out.
func cpuBusyMetrics(start, end []cpuTimes) []Metric {
	before := map[int]cpuTimes{}
	for _, c := range start {
		before[c.cpu] = c
	}
	var ms []Metric
	lo, hi := 2.0, -1.0
	for _, c := range end {
		b, ok := before[c.cpu]
		busy, idle := c.busy-b.busy, c.idle-b.idle
		if !ok || busy < 0 || idle < 0 || busy+idle == 0 {
			continue
		}
		share := float64(busy) / float64(busy+idle)
		ms = append(ms, Metric{share, fmt.Sprintf("cpu%d-busy-share", c.cpu)})
		lo, hi = min(lo, share), max(hi, share)
	}
	if len(ms) > 1 {
		ms = append(ms, Metric{hi - lo, "cpu-busy-spread"})
	}
	return ms
}

// Line formats a run's metrics as one Go benchmark result line.
func Line(name string, ms []Metric) string {
	var b strings.Builder
	b.WriteString(name + " 1")
	for _, m := range ms {
		fmt.Fprintf(&b, " %s %s", strconv.FormatFloat(m.Value, 'g', 6, 64), m.Unit)
	}
	return b.String() + "\n"
}

// Units is the Unit metadata that heads physical.txt: which direction
// is better for the shares (more locality is better).
const Units = "Unit local-alloc-share better=higher\nUnit top-node-share better=higher\nUnit node-miss-share better=lower\nUnit cpu-busy-spread better=lower\n"

// BenchName is the benchmark name of a target's physical line: its name
// without the package, as Go benchmark lines name it.
func BenchName(target string) string {
	_, name, ok := strings.Cut(target, ".")
	if !ok {
		name = target
	}
	return "Benchmark" + strings.Join(strings.Fields(name), "_")
}

// readVMStat reads the vmstatKeys counters from a /proc/vmstat file.
func readVMStat(path string) (map[string]int64, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	m := map[string]int64{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), " ")
		if !ok || !strings.HasPrefix(k, "numa_") {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil {
			continue
		}
		m[k] = n
	}
	if _, ok := m["numa_hit"]; !ok {
		return nil, fmt.Errorf("%s has no numa_hit counter (a kernel without CONFIG_NUMA)", path)
	}
	return m, nil
}

// parseNUMAMaps sums the resident pages of the anonymous mappings in a
// numa_maps file by node, in bytes. A mapping's "N<node>=<pages>" fields
// count its pages on each node, in units of its kernelpagesize_kB (huge
// pages included). File-backed mappings (the binary, shared libraries)
// are left out: the heap and the goroutine stacks are anonymous, and
// they are what a scheduler's placement can make local or remote.
func parseNUMAMaps(data []byte) map[int]int64 {
	m := map[int]int64{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		pageKB := int64(4)
		pages := map[int]int64{}
		file := false
		for _, tok := range f[min(2, len(f)):] {
			k, v, ok := strings.Cut(tok, "=")
			if !ok {
				continue
			}
			switch {
			case k == "file":
				file = true
			case k == "kernelpagesize_kB":
				if n, err := strconv.ParseInt(v, 10, 64); err == nil && n > 0 {
					pageKB = n
				}
			case len(k) > 1 && k[0] == 'N':
				node, err1 := strconv.Atoi(k[1:])
				n, err2 := strconv.ParseInt(v, 10, 64)
				if err1 == nil && err2 == nil && node >= 0 && n >= 0 {
					pages[node] += n
				}
			}
		}
		if file {
			continue
		}
		for node, n := range pages {
			m[node] += n * pageKB << 10
		}
	}
	return m
}

// parsePerfStat reads `perf stat -x ,` output: "value,unit,event,..."
// lines. Events the machine does not count ("<not supported>", "<not
// counted>") are left out.
func parsePerfStat(data []byte) map[string]float64 {
	m := map[string]float64{}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Split(line, ",")
		if len(f) < 3 || strings.HasPrefix(line, "#") {
			continue
		}
		v, err := strconv.ParseFloat(f[0], 64)
		if err != nil {
			continue
		}
		m[strings.TrimSuffix(f[2], ":u")] = v
	}
	return m
}

// findProcess returns pid if it runs bin, else the first descendant
// (depth levels down) that does; 0 if none does yet.
func findProcess(proc string, pid int, bin string, depth int) int {
	if exe, err := os.Readlink(filepath.Join(proc, strconv.Itoa(pid), "exe")); err == nil && exe == bin {
		return pid
	}
	if depth == 0 {
		return 0
	}
	data, err := os.ReadFile(filepath.Join(proc, strconv.Itoa(pid), "task", strconv.Itoa(pid), "children"))
	if err != nil {
		return 0
	}
	for _, c := range strings.Fields(string(data)) {
		if child, err := strconv.Atoi(c); err == nil {
			if t := findProcess(proc, child, bin, depth-1); t != 0 {
				return t
			}
		}
	}
	return 0
}
