package physical

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/aclements/go-perfevent/events"
	"github.com/aclements/go-perfevent/perf"
	"golang.org/x/sys/unix"
)

// A Doctor report says what this machine can measure for a NUMA study
// and what will distort the measurement (`schedlab doctor`). Every field
// that could not be read says so ("not available: <reason>") rather than
// guessing.
type Doctor struct {
	Nodes          []DoctorNode  `json:"nodes"`
	CPUsOnline     string        `json:"cpus_online"`
	CPUsAllowed    string        `json:"cpus_allowed"`
	SMT            string        `json:"smt"`
	ThreadsPerCore int           `json:"threads_per_core"`
	NUMABalancing  string        `json:"numa_balancing"`
	Governor       string        `json:"cpufreq_governor"`
	Boost          string        `json:"cpufreq_boost"`
	PerfParanoid   string        `json:"perf_event_paranoid"`
	PerfEvents     []DoctorEvent `json:"perf_events"`
	Uncore         []string      `json:"uncore_pmus"`
	Numactl        string        `json:"numactl"`
	Virtualization string        `json:"virtualization"`
	Emulated       string        `json:"emulated,omitempty"` // set in a schedlab vm guest
	LoadAvg        string        `json:"loadavg"`
	OtherLoadCPUs  float64       `json:"other_load_cpus"` // -1 if not sampled
	Warnings       []string      `json:"warnings"`
}

// GuestEnv is set in the environment of every program schedlab vm runs
// (package guest), to the emulator's name.
const GuestEnv = "SCHEDLAB_VM"

// A DoctorNode is one NUMA node from sysfs.
type DoctorNode struct {
	ID        int    `json:"id"`
	CPUs      string `json:"cpus"`
	Distances string `json:"distances"`
}

// A DoctorEvent says whether a perf event opened for this process.
type DoctorEvent struct {
	Name string `json:"name"`
	OK   bool   `json:"ok"`
	Why  string `json:"why,omitempty"`
}

// DoctorOptions configures RunDoctor.
type DoctorOptions struct {
	Root   string        // file system root for /sys and /proc; "" means "/"
	Sample time.Duration // how long to sample other load; 0 skips it
	Perf   bool          // try to open perf events
}

// RunDoctor inspects the machine.
func RunDoctor(opt DoctorOptions) *Doctor {
	root := opt.Root
	if root == "" {
		root = "/"
	}
	path := func(p string) string { return filepath.Join(root, p) }
	read := func(p string) (string, error) {
		b, err := os.ReadFile(path(p))
		return strings.TrimSpace(string(b)), err
	}
	orNA := func(p string) string {
		s, err := read(p)
		if err != nil {
			return "not available: " + shortErr(err)
		}
		return s
	}
	d := &Doctor{OtherLoadCPUs: -1}

	nodes, _ := filepath.Glob(path("sys/devices/system/node/node[0-9]*"))
	for _, n := range nodes {
		id, err := strconv.Atoi(strings.TrimPrefix(filepath.Base(n), "node"))
		if err != nil {
			continue
		}
		cpus, _ := os.ReadFile(filepath.Join(n, "cpulist"))
		dist, _ := os.ReadFile(filepath.Join(n, "distance"))
		d.Nodes = append(d.Nodes, DoctorNode{ID: id, CPUs: strings.TrimSpace(string(cpus)), Distances: strings.TrimSpace(string(dist))})
	}
	sort.Slice(d.Nodes, func(i, j int) bool { return d.Nodes[i].ID < d.Nodes[j].ID })

	d.CPUsOnline = orNA("sys/devices/system/cpu/online")
	d.CPUsAllowed = "not available: no Cpus_allowed_list in /proc/self/status"
	if status, err := read("proc/self/status"); err == nil {
		for _, line := range strings.Split(status, "\n") {
			if v, ok := strings.CutPrefix(line, "Cpus_allowed_list:"); ok {
				d.CPUsAllowed = strings.TrimSpace(v)
			}
		}
	}
	d.SMT = orNA("sys/devices/system/cpu/smt/active")
	d.ThreadsPerCore = threadsPerCore(path("sys/devices/system/cpu/cpu0/topology/thread_siblings_list"))
	d.NUMABalancing = orNA("proc/sys/kernel/numa_balancing")
	d.Governor = orNA("sys/devices/system/cpu/cpu0/cpufreq/scaling_governor")
	d.Boost = orNA("sys/devices/system/cpu/cpufreq/boost")
	if v, err := read("sys/devices/system/cpu/intel_pstate/no_turbo"); err == nil {
		d.Boost = "intel_pstate no_turbo=" + v
	}
	d.PerfParanoid = orNA("proc/sys/kernel/perf_event_paranoid")
	pmus, _ := filepath.Glob(path("sys/bus/event_source/devices/uncore_imc*"))
	for _, p := range pmus {
		d.Uncore = append(d.Uncore, filepath.Base(p))
	}
	if p, err := exec.LookPath("numactl"); err == nil {
		d.Numactl = p
	} else {
		d.Numactl = "not installed"
	}
	d.Virtualization = virtualization(path("sys/hypervisor/type"), path("proc/cpuinfo"))
	if v := os.Getenv(GuestEnv); v != "" {
		d.Emulated = v
	}
	d.LoadAvg = orNA("proc/loadavg")
	if opt.Perf {
		d.PerfEvents = probePerfEvents()
	}
	if opt.Sample > 0 {
		d.OtherLoadCPUs = sampleLoad(path("proc/stat"), opt.Sample)
	}
	d.Warnings = d.warnings()
	return d
}

// warnings lists what will distort a NUMA study on this machine.
func (d *Doctor) warnings() []string {
	var w []string
	if len(d.Nodes) < 2 {
		w = append(w, fmt.Sprintf("%d NUMA node(s): `make study STUDY=numa` simulates two nodes (numafake=2); no figure is physical", len(d.Nodes)))
	}
	if d.NUMABalancing != "0" && !strings.HasPrefix(d.NUMABalancing, "not available") {
		w = append(w, "kernel.numa_balancing="+d.NUMABalancing+": the kernel migrates pages and tasks behind the scheduler's back; set it to 0 for NUMA studies")
	}
	if d.Governor != "performance" && !strings.HasPrefix(d.Governor, "not available") {
		w = append(w, "CPU frequency governor "+d.Governor+": clock speed varies with load; prefer performance")
	}
	if d.Boost == "1" || d.Boost == "intel_pstate no_turbo=0" {
		w = append(w, "frequency boost is on: run-to-run variation grows with temperature and load")
	}
	if d.ThreadsPerCore > 1 {
		w = append(w, fmt.Sprintf("SMT: %d threads per core share a core's caches and units", d.ThreadsPerCore))
	}
	if d.Emulated != "" {
		w = append(w, "emulated ("+d.Emulated+"): a schedlab vm guest; its topology, placement and kernel counters are real, its times decide nothing")
	}
	if d.Virtualization != "none seen" {
		w = append(w, "virtualised ("+d.Virtualization+"): vCPUs may move between host CPUs and nodes")
	}
	if d.Numactl == "not installed" {
		w = append(w, "numactl not installed: no --cpunodebind/--membind oracle runs")
	}
	if d.PerfEvents != nil {
		ok := false
		for _, e := range d.PerfEvents {
			ok = ok || e.OK
		}
		if !ok {
			w = append(w, "no perf event opens (perf_event_paranoid="+d.PerfParanoid+"): no hardware counters")
		}
	}
	if d.OtherLoadCPUs > 0.2 {
		w = append(w, fmt.Sprintf("other processes used %.2f CPUs while sampled: results will be noisy", d.OtherLoadCPUs))
	}
	return w
}

// nodeLoads counts reads that reach a NUMA node's memory (perf's
// node-loads: the hardware cache event NODE, read, access).
type nodeLoads struct{}

func (nodeLoads) SetAttrs(a *unix.PerfEventAttr) error {
	a.Type = unix.PERF_TYPE_HW_CACHE
	a.Config = unix.PERF_COUNT_HW_CACHE_NODE | unix.PERF_COUNT_HW_CACHE_OP_READ<<8 | unix.PERF_COUNT_HW_CACHE_RESULT_ACCESS<<16
	return nil
}

func (nodeLoads) String() string { return "node-loads" }

// cpuMigrations counts a thread's moves between CPUs (perf's software
// event cpu-migrations), which opens without a PMU, in a VM too.
type cpuMigrations struct{}

func (cpuMigrations) SetAttrs(a *unix.PerfEventAttr) error {
	a.Type = unix.PERF_TYPE_SOFTWARE
	a.Config = unix.PERF_COUNT_SW_CPU_MIGRATIONS
	return nil
}

func (cpuMigrations) String() string { return "cpu-migrations" }

// schedMigrateTask is the tracepoint sched:sched_migrate_task, whose
// perf config is its id in tracefs.
type schedMigrateTask struct{}

// tracefsDirs are where tracefs is mounted: its own mount point, and
// under debugfs on older systems.
var tracefsDirs = []string{"/sys/kernel/tracing", "/sys/kernel/debug/tracing"}

func (schedMigrateTask) SetAttrs(a *unix.PerfEventAttr) error {
	var err error
	for _, d := range tracefsDirs {
		var b []byte
		if b, err = os.ReadFile(filepath.Join(d, "events", "sched", "sched_migrate_task", "id")); err == nil {
			id, perr := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
			if perr != nil {
				return fmt.Errorf("tracepoint id %q: %v", b, perr)
			}
			a.Type = unix.PERF_TYPE_TRACEPOINT
			a.Config = id
			return nil
		}
	}
	return fmt.Errorf("tracefs: %v", err)
}

func (schedMigrateTask) String() string { return "sched:sched_migrate_task" }

// probePerfEvents tries each event this project reports or a NUMA study
// needs, on the calling goroutine's thread.
func probePerfEvents() []DoctorEvent {
	var out []DoctorEvent
	for _, e := range []events.Event{events.EventCPUCycles, events.EventInstructions, events.EventCacheMisses, nodeLoads{}, cpuMigrations{}, schedMigrateTask{}} {
		de := DoctorEvent{Name: fmt.Sprint(e)}
		c, err := perf.OpenCounter(perf.TargetThisGoroutine, e)
		if err != nil {
			de.Why = perfWhy(err)
		} else {
			de.OK = true
			c.Close()
		}
		out = append(out, de)
	}
	return out
}

// sampleLoad returns how many CPUs' worth of time was busy over d,
// minus this process's own (which is idle while it sleeps).
func sampleLoad(stat string, d time.Duration) float64 {
	read := func() (busy, total int64) {
		b, err := os.ReadFile(stat)
		if err != nil {
			return -1, -1
		}
		f := strings.Fields(firstLine(b))
		if len(f) < 9 || f[0] != "cpu" {
			return -1, -1
		}
		for i, s := range f[1:9] {
			v, _ := strconv.ParseInt(s, 10, 64)
			total += v
			if i != 3 && i != 4 { // idle, iowait
				busy += v
			}
		}
		return busy, total
	}
	b0, t0 := read()
	time.Sleep(d)
	b1, t1 := read()
	if b0 < 0 || b1 < 0 || t1 <= t0 {
		return -1
	}
	return float64(runtime.NumCPU()) * float64(b1-b0) / float64(t1-t0)
}

// perfWhy explains a perf_event_open failure.
func perfWhy(err error) string {
	switch {
	case errors.Is(err, unix.ENOENT), errors.Is(err, unix.EOPNOTSUPP):
		return "the kernel offers no such event here (no PMU, as in most VMs): " + err.Error()
	case errors.Is(err, unix.EACCES), errors.Is(err, unix.EPERM):
		return "permission denied (see perf_event_paranoid): " + err.Error()
	}
	return err.Error()
}

func shortErr(err error) string {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err.Error()
	}
	return err.Error()
}

// WriteJSON writes d as indented JSON.
func (d *Doctor) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(d)
}

// WriteText writes d for a person.
func (d *Doctor) WriteText(w io.Writer) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	p("NUMA nodes:           %d\n", len(d.Nodes))
	for _, n := range d.Nodes {
		p("  node %d: cpus %s, distances %s\n", n.ID, n.CPUs, n.Distances)
	}
	p("CPUs online:          %s\n", d.CPUsOnline)
	p("CPUs allowed:         %s\n", d.CPUsAllowed)
	p("SMT active:           %s (threads per core %d)\n", d.SMT, d.ThreadsPerCore)
	p("numa_balancing:       %s\n", d.NUMABalancing)
	p("cpufreq governor:     %s\n", d.Governor)
	p("cpufreq boost:        %s\n", d.Boost)
	p("perf_event_paranoid:  %s\n", d.PerfParanoid)
	for _, e := range d.PerfEvents {
		if e.OK {
			p("  perf event %-16s opens\n", e.Name)
		} else {
			p("  perf event %-16s not available: %s\n", e.Name, e.Why)
		}
	}
	if len(d.Uncore) > 0 {
		p("uncore memory PMUs:   %s\n", strings.Join(d.Uncore, " "))
	} else {
		p("uncore memory PMUs:   none (no uncore_imc* in /sys/bus/event_source/devices)\n")
	}
	p("numactl:              %s\n", d.Numactl)
	p("virtualisation:       %s\n", d.Virtualization)
	if d.Emulated != "" {
		p("emulated:             %s (a schedlab vm guest: times decide nothing)\n", d.Emulated)
	}
	p("load average:         %s\n", d.LoadAvg)
	if d.OtherLoadCPUs >= 0 {
		p("other load (sampled): %.2f CPUs\n", d.OtherLoadCPUs)
	}
	if len(d.Warnings) == 0 {
		p("\nNothing found that would distort a NUMA study.\n")
		return
	}
	p("\nWhat will distort a study here:\n")
	for _, w := range d.Warnings {
		p("- %s\n", w)
	}
}

func firstLine(b []byte) string {
	b, _, _ = bytes.Cut(b, []byte("\n"))
	return strings.TrimSpace(string(b))
}
