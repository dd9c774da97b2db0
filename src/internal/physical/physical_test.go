package physical

import (
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func readFixture(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestParseNUMAMaps(t *testing.T) {
	got := parseNUMAMaps(readFixture(t, "numa_maps"))
	// Anonymous mappings only: the heap arena (768+256 pages of 4 KiB),
	// two 2 MiB huge pages, 256 pages of 4 KiB, and a 33-page stack.
	want := map[int]int64{
		0: (768 + 256) * 4096,
		1: 256*4096 + 2*2<<20 + 33*4096,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("parseNUMAMaps = %v, want %v", got, want)
	}
	if m := parseNUMAMaps([]byte("garbage\n\n7f00 default N0=x Nq=3 N-1=4 anon=1\n")); len(m) != 0 {
		t.Errorf("malformed numa_maps: %v, want nothing", m)
	}
}

func TestReadVMStat(t *testing.T) {
	m, err := readVMStat(filepath.Join("testdata", "vmstat-before"))
	if err != nil {
		t.Fatal(err)
	}
	if m["numa_hit"] != 1000000 || m["numa_other"] != 12000 || m["numa_pages_migrated"] != 7 {
		t.Errorf("readVMStat = %v", m)
	}
	if _, ok := m["nr_free_pages"]; ok {
		t.Errorf("readVMStat kept a counter that is not numa_*: %v", m)
	}
	bad := filepath.Join(t.TempDir(), "vmstat")
	os.WriteFile(bad, []byte("nr_free_pages 1\n"), 0o644)
	if _, err := readVMStat(bad); err == nil || !strings.Contains(err.Error(), "no numa_hit") {
		t.Errorf("vmstat without NUMA counters: err = %v", err)
	}
}

func TestParsePerfStat(t *testing.T) {
	got := parsePerfStat(readFixture(t, "perf-stat.csv"))
	want := map[string]float64{"node-loads": 12345678, "node-load-misses": 234567, "cpu-migrations": 17, "context-switches": 1203, "sched:sched_migrate_task": 29}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("parsePerfStat = %v, want %v (an unsupported event is left out)", got, want)
	}
}

// fakeProc builds a /proc with vmstat and one process, pid 42, whose
// parent (pid 41, a forking wrapper) runs another executable.
func fakeProc(t *testing.T, bin string) string {
	t.Helper()
	proc := t.TempDir()
	write := func(rel string, data []byte) {
		p := filepath.Join(proc, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("vmstat", readFixture(t, "vmstat-before"))
	write("stat", []byte("cpu  10 0 10 20 0 0 0 0 0 0\ncpu0 5 0 5 10 0 0 0 0 0 0\ncpu1 5 0 5 10 0 0 0 0 0 0\n"))
	write("self/numa_maps", nil)
	write("41/task/41/children", []byte("42 "))
	write("42/numa_maps", readFixture(t, "numa_maps"))
	if err := os.Symlink("/usr/bin/perf", filepath.Join(proc, "41", "exe")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(bin, filepath.Join(proc, "42", "exe")); err != nil {
		t.Fatal(err)
	}
	return proc
}

func TestFindProcess(t *testing.T) {
	proc := fakeProc(t, "/tmp/x/w.test")
	if got := findProcess(proc, 41, "/tmp/x/w.test", 4); got != 42 {
		t.Errorf("findProcess under a wrapper = %d, want 42", got)
	}
	if got := findProcess(proc, 42, "/tmp/x/w.test", 0); got != 42 {
		t.Errorf("findProcess of the process itself = %d, want 42", got)
	}
	if got := findProcess(proc, 41, "/tmp/x/other.test", 4); got != 0 {
		t.Errorf("findProcess of a binary nobody runs = %d, want 0", got)
	}
}

// TestPhysicalRun collects a run's evidence from fixture files: vmstat
// deltas and the local share, placement by node, and perf counts.
func TestPhysicalRun(t *testing.T) {
	bin := "/tmp/x/w.test"
	proc := fakeProc(t, bin)
	p := NewProbe(proc, &Doctor{PerfEvents: []DoctorEvent{{Name: "node-loads", Why: "no PMU"}, {Name: "cpu-migrations", Why: "paranoid"}}})
	if p.perf != "" || len(p.Info.Measured) != 3 || len(p.Info.Unavailable) != 3 || !strings.Contains(p.Info.Unavailable[0], "not available: no PMU") ||
		!strings.Contains(p.Info.Unavailable[1], "scheduler events (cpu-migrations, context-switches): not available: paranoid") ||
		!strings.Contains(p.Info.Unavailable[2], "tracepoints (sched:sched_migrate_task): not available: the doctor did not probe") {
		t.Fatalf("probe: perf %q, info %+v", p.perf, p.Info)
	}
	// Count as a machine with both kinds of events would.
	p.events = append(append(append([]string(nil), perfNUMAEvents...), perfSchedEvents...), perfTraceEvents...)
	// Two processes' perf counts (a run of -copies 2) are summed.
	tmp := t.TempDir()
	perfOuts := []string{filepath.Join(tmp, "perf-0.txt"), filepath.Join(tmp, "perf-1.txt")}
	for _, out := range perfOuts {
		os.WriteFile(out, readFixture(t, "perf-stat.csv"), 0o644)
	}
	r := p.Begin(bin, perfOuts)
	os.WriteFile(filepath.Join(proc, "vmstat"), readFixture(t, "vmstat-after"), 0o644)
	// CPU 0 busy 30 of 40 ticks, CPU 1 10 of 40.
	os.WriteFile(filepath.Join(proc, "stat"), []byte("cpu0 20 0 20 20 0 0 0 0 0 0\ncpu1 10 0 10 40 0 0 0 0 0 0\n"), 0o644)
	go r.Sample(41)
	deadline := time.Now().Add(10 * time.Second)
	for {
		r.mu.Lock()
		n := r.samples
		r.mu.Unlock()
		if n > 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	got := map[string]float64{}
	var units []string
	for _, m := range r.End() {
		got[m.Unit] = m.Value
		units = append(units, m.Unit)
	}
	want := map[string]float64{
		"numa-hit/run": 40000, "numa-miss/run": 500, "numa-foreign/run": 500, "numa-local/run": 30000, "numa-other/run": 10500,
		"numa-hint-faults/run": 30, "numa-pages-migrated/run": 12,
		"local-alloc-share": 30000.0 / 40500,
		"resident-MiB":      float64(1024*4096+256*4096+4<<20+33*4096) / (1 << 20),
		"node0-MiB":         4, "node1-MiB": float64(256*4096+4<<20+33*4096) / (1 << 20),
		"top-node-share":         float64(256*4096+4<<20+33*4096) / float64(1024*4096+256*4096+4<<20+33*4096),
		"node-loads/run":         2 * 12345678,
		"node-load-misses/run":   2 * 234567,
		"node-miss-share":        234567.0 / 12345678,
		"cpu-migrations/run":     2 * 17,
		"context-switches/run":   2 * 1203,
		"sched-migrate-task/run": 2 * 29,
		"cpu0-busy-share":        0.75,
		"cpu1-busy-share":        0.25,
		"cpu-busy-spread":        0.5,
	}
	for u, w := range want {
		if g, ok := got[u]; !ok || math.Abs(g-w) > 1e-9*math.Abs(w) {
			t.Errorf("%s = %v (present %v), want %v", u, g, ok, w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("units %v, want exactly %d", units, len(want))
	}
	line := Line("BenchmarkX", []Metric{{40000, "numa-hit/run"}, {30000.0 / 40500, "local-alloc-share"}})
	if want := "BenchmarkX 1 40000 numa-hit/run 0.740741 local-alloc-share\n"; line != want {
		t.Errorf("Line = %q, want %q", line, want)
	}
}

func TestPhysicalName(t *testing.T) {
	for in, want := range map[string]string{
		"workloads.ForkJoinTree":               "BenchmarkForkJoinTree",
		"runtime.WakeupParallelSpinning/10µs":  "BenchmarkWakeupParallelSpinning/10µs",
		"grpc.MapWithSyncMutexContention x":    "BenchmarkMapWithSyncMutexContention_x",
		"nodot":                                "Benchmarknodot",
		"external.github.com/x/y.BenchmarkFoo": "Benchmarkgithub.com/x/y.BenchmarkFoo",
	} {
		if got := BenchName(in); got != want {
			t.Errorf("BenchName(%q) = %q, want %q", in, got, want)
		}
	}
}

// sleepForPlacement returns the path of sleep, as /proc shows a process
// running it, or skips the test where the kernel has no numa_maps.
func sleepForPlacement(t *testing.T) string {
	t.Helper()
	if _, err := os.Stat("/proc/self/numa_maps"); err != nil {
		t.Skip("no /proc/self/numa_maps here:", err)
	}
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip(err)
	}
	sleep, _ = filepath.EvalSymlinks(sleep)
	return sleep
}

// TestPhysicalSampleRealProcess samples a real child process's numa_maps
// through this machine's /proc, where the kernel has NUMA.
func TestPhysicalSampleRealProcess(t *testing.T) {
	sleep := sleepForPlacement(t)
	p := NewProbe("/proc", nil)
	cmd := exec.Command(sleep, "0.5")
	r := p.Begin(sleep, nil)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go r.Sample(cmd.Process.Pid)
	cmd.Wait()
	got := map[string]bool{}
	for _, m := range r.End() {
		got[m.Unit] = true
	}
	for _, u := range []string{"numa-hit/run", "resident-MiB", "node0-MiB", "top-node-share", "cpu0-busy-share"} {
		if !got[u] {
			t.Errorf("no %s from a real process (got %v)", u, got)
		}
	}
}

// TestPhysicalPerfWrapper runs a real process under the perf stat
// wrapper, with a stand-in for perf that writes fixed counts where perf
// stat -x , -o FILE would, then runs the command: the counts reach the
// run's metrics, and placement is still sampled from the process under
// the wrapper.
func TestPhysicalPerfWrapper(t *testing.T) {
	sleep := sleepForPlacement(t)
	dir := t.TempDir()
	fake := filepath.Join(dir, "perf")
	script := `#!/bin/sh
# perf stat -x , -o FILE -e EVENTS -- CMD...
out=
while [ "$1" != "--" ]; do
	[ "$1" = "-o" ] && { shift; out=$1; }
	shift
done
shift
printf '1000,,node-loads,100,100.00,,\n250,,node-load-misses:u,100,100.00,,\n' > "$out"
"$@"
`
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	p := NewProbe("/proc", &Doctor{PerfEvents: []DoctorEvent{{Name: "node-loads", OK: true}}})
	p.perf = fake // the probe found no perf on PATH; use the stand-in
	perfOut := filepath.Join(dir, "perf.txt")
	argv := p.Wrap([]string{sleep, "0.5"}, perfOut)
	if argv[0] != fake || argv[len(argv)-2] != sleep {
		t.Fatalf("wrap = %q", argv)
	}
	r := p.Begin(sleep, []string{perfOut})
	cmd := exec.Command(argv[0], argv[1:]...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go r.Sample(cmd.Process.Pid)
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, m := range r.End() {
		got[m.Unit] = m.Value
	}
	if got["node-loads/run"] != 1000 || got["node-load-misses/run"] != 250 || got["node-miss-share"] != 0.25 {
		t.Errorf("perf metrics %v: want node-loads 1000, misses 250, share 0.25", got)
	}
	if _, ok := got["resident-MiB"]; !ok {
		t.Errorf("no placement sampled from the process under the wrapper: %v", got)
	}
}

func TestCPUBusyMetrics(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	// user nice system idle iowait irq softirq steal guest guest_nice
	before, err := readPerCPU(write("stat0", "cpu  300 0 100 900 0 0 0 0 0 0\n"+
		"cpu0 100 0 50 300 0 0 0 0 0 0\n"+
		"cpu1 200 0 50 600 0 0 0 0 0 0\n"+
		"cpu3 1 0 0 1 0 0 0 0 0 0\n"+
		"intr 12345\nctxt 99\n"))
	if err != nil {
		t.Fatal(err)
	}
	after, err := readPerCPU(write("stat1", "cpu  0 0 0 0 0 0 0 0 0 0\n"+
		"cpu0 160 0 60 310 0 5 5 3 0 0\n"+ // busy +80, idle +10
		"cpu1 210 0 50 690 0 0 0 0 0 0\n"+ // busy +10, idle +90
		"cpu2 5 0 0 5 0 0 0 0 0 0\n")) // not in the first reading
	if err != nil {
		t.Fatal(err)
	}
	got := cpuBusyMetrics(before, after)
	want := []Metric{
		{80.0 / 90, "cpu0-busy-share"},
		{10.0 / 100, "cpu1-busy-share"},
		{80.0/90 - 0.1, "cpu-busy-spread"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i].Unit != want[i].Unit || math.Abs(got[i].Value-want[i].Value) > 1e-12 {
			t.Errorf("metric %d: got %v, want %v", i, got[i], want[i])
		}
	}
	for _, bad := range []string{"", "cpu  1 2 3\n", "cpu0 1 2 x 4 5 6 7\n"} {
		if _, err := readPerCPU(write("bad", bad)); err == nil {
			t.Errorf("readPerCPU(%q): no error", bad)
		}
	}
	// The real file has a line per CPU.
	if cs, err := readPerCPU("/proc/stat"); err != nil || len(cs) == 0 {
		t.Errorf("readPerCPU(/proc/stat) = %v, %v", cs, err)
	}
}
