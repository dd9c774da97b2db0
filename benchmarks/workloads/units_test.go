package workloads

import (
	"math"
	"runtime/metrics"
	"slices"
	"testing"
	"time"
)

// units maps unitValues by unit, failing on a unit given twice.
func units(t *testing.T, us []unitValue) map[string]float64 {
	t.Helper()
	m := map[string]float64{}
	for _, u := range us {
		if _, dup := m[u.unit]; dup {
			t.Errorf("unit %s given twice", u.unit)
		}
		m[u.unit] = u.value
	}
	return m
}

func TestCounterUnits(t *testing.T) {
	base := map[string]uint64{
		mRunqOverflows: 10, mRunqOverflowGs: 1290, mSpinningStarts: 500,
		mSpinningFailed: 100, mStealFailed: 7, mStealOps: 3,
	}
	now := map[string]uint64{
		mRunqOverflows: 30, mRunqOverflowGs: 3870, mSpinningStarts: 900,
		mSpinningFailed: 100, mStealFailed: 57, mStealOps: 9,
	}
	got := units(t, counterUnits(base, now, 100))
	want := map[string]float64{
		"runq-overflows/op":           0.2,
		"runq-overflow-goroutines/op": 25.8,
		"spinning-starts/op":          4,
		"spinning-failed/op":          0, // zero is a result, not an absence
		"steal-failed/op":             0.5,
	}
	if len(got) != len(want) {
		t.Errorf("units %v, want %v", got, want)
	}
	for u, w := range want {
		if g, ok := got[u]; !ok || math.Abs(g-w) > 1e-12 {
			t.Errorf("%s = %v (present %v), want %v", u, g, ok, w)
		}
	}

	// A stock runtime exports none of them: probe.read returns nil
	// snapshots (no samples), or maps without these names.
	if us := counterUnits(nil, nil, 100); len(us) != 0 {
		t.Errorf("stock (no snapshot): %v, want no unit", us)
	}
	old := map[string]uint64{mStealOps: 3}
	if us := counterUnits(old, map[string]uint64{mStealOps: 9}, 100); len(us) != 0 {
		t.Errorf("a runtime without the new counters: %v, want no unit", us)
	}
	// One counter missing leaves out only its unit.
	delete(now, mStealFailed)
	if got := units(t, counterUnits(base, now, 100)); len(got) != 4 || slices.Contains(keys(got), "steal-failed/op") {
		t.Errorf("without %s: %v", mStealFailed, got)
	}
}

func keys(m map[string]float64) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}

// runqBuckets are the boundaries of the patched runtime's run-queue
// length histograms: 0, 1, 2, 4, … 2^31, +Inf.
func runqBuckets() []float64 {
	b := []float64{0}
	for k := 0; k < 32; k++ {
		b = append(b, float64(uint64(1)<<k))
	}
	return append(b, math.Inf(1))
}

func TestLengthUnits(t *testing.T) {
	b := runqBuckets()
	n := len(b) - 1
	base := make([]uint64, n)
	now := make([]uint64, n)
	base[0], base[1] = 1000, 50 // before the loop: not counted
	// During the loop: 60 samples of 0, 30 of 1, 9 in [2, 4), 1 in
	// [64, 128).
	now[0], now[1], now[2], now[7] = 1060, 80, 9, 1
	got := units(t, lengthUnits("global-runq-len", b, base, now))
	// Mean: (60*0 + 30*1 + 9*2.5 + 1*95.5) / 100.
	if w := (30 + 9*2.5 + 95.5) / 100; math.Abs(got["mean-global-runq-len"]-w) > 1e-12 {
		t.Errorf("mean = %v, want %v", got["mean-global-runq-len"], w)
	}
	// The 99th of 100 samples is in [2, 4): its largest integer.
	if got["p99-global-runq-len"] != 3 {
		t.Errorf("p99 = %v, want 3", got["p99-global-runq-len"])
	}
	if len(got) != 2 {
		t.Errorf("units %v, want mean and p99 only", got)
	}

	// All samples empty queues: 0 and 0, not the bucket's upper bound 1.
	z := make([]uint64, n)
	z[0] = 40
	got = units(t, lengthUnits("local-runq-len", b, make([]uint64, n), z))
	if got["mean-local-runq-len"] != 0 || got["p99-local-runq-len"] != 0 || len(got) != 2 {
		t.Errorf("empty queues: %v, want mean and p99 0", got)
	}

	// The unbounded last bucket counts as its lower bound.
	z = make([]uint64, n)
	z[n-1] = 2
	got = units(t, lengthUnits("local-runq-len", b, make([]uint64, n), z))
	if w := float64(uint64(1) << 31); got["mean-local-runq-len"] != w || got["p99-local-runq-len"] != w {
		t.Errorf("last bucket: %v, want %v", got, w)
	}

	// No sample during the loop: no unit rather than zero.
	if us := lengthUnits("global-runq-len", b, now, now); us != nil {
		t.Errorf("no growth: %v, want no unit", us)
	}
	// Counts that do not match the buckets: nothing.
	if us := lengthUnits("global-runq-len", b[:3], base, now); us != nil {
		t.Errorf("mismatched buckets: %v", us)
	}
}

func TestIntBucket(t *testing.T) {
	for _, c := range []struct{ lo, hi, first, last float64 }{
		{0, 1, 0, 0},
		{1, 2, 1, 1},
		{2, 4, 2, 3},
		{1024, 2048, 1024, 2047},
		{8, math.Inf(1), 8, 8},
		{math.Inf(-1), 0, -1, -1},
		{0.5, 0.75, 1, 1},
	} {
		if f, l := intBucket(c.lo, c.hi); f != c.first || l != c.last {
			t.Errorf("intBucket(%v, %v) = %v, %v; want %v, %v", c.lo, c.hi, f, l, c.first, c.last)
		}
	}
}

// TestRunqLengthUnitsAbsent: on a runtime without the histograms (stock)
// the probe has no samples, and a sample the runtime does not know
// reads as KindBad and is skipped. Neither gives a unit or a panic.
func TestRunqLengthUnitsAbsent(t *testing.T) {
	if us := runqLengthUnits(nil, nil, nil); len(us) != 0 {
		t.Errorf("no samples: %v", us)
	}
	s := []metrics.Sample{{Name: "/sched/runq/no-such-histogram:goroutines"}}
	snap := readHistograms(s)
	if snap[0] != nil {
		t.Errorf("an unknown metric read as a histogram: %v", snap[0])
	}
	if us := runqLengthUnits(s, snap, readHistograms(s)); len(us) != 0 {
		t.Errorf("unknown metric: %v", us)
	}
	for _, h := range runqHistograms {
		if availableHist[h.name] {
			t.Logf("this runtime exports %s", h.name)
		}
	}
}

func TestGaugeUnits(t *testing.T) {
	readings := []map[string]uint64{
		{"/sched/goroutines/runnable:goroutines": 10, "/sched/goroutines/running:goroutines": 4, "/sched/threads/total:threads": 6},
		{"/sched/goroutines/runnable:goroutines": 20, "/sched/goroutines/running:goroutines": 2, "/sched/threads/total:threads": 8},
		{"/sched/goroutines/runnable:goroutines": 0, "/sched/goroutines/running:goroutines": 1, "/sched/threads/total:threads": 8},
	}
	got := units(t, gaugeUnits(readings))
	want := map[string]float64{
		"mean-runnable-goroutines": 10,
		"mean-running-goroutines":  (3 + 1 + 0) / 3.0, // the reader left out
		"mean-threads":             22 / 3.0,
	}
	if len(got) != len(want) {
		t.Errorf("units %v, want %v", got, want)
	}
	for u, w := range want {
		if g, ok := got[u]; !ok || math.Abs(g-w) > 1e-12 {
			t.Errorf("%s = %v (present %v), want %v", u, g, ok, w)
		}
	}
	// A runtime without the gauges (before go1.26): no readings, or
	// readings without them, give no unit.
	if us := gaugeUnits(nil); len(us) != 0 {
		t.Errorf("no readings: %v", us)
	}
	if us := gaugeUnits([]map[string]uint64{{}}); len(us) != 0 {
		t.Errorf("readings without gauges: %v", us)
	}
}

// TestGaugeSampler runs the sampler on this runtime (go1.26 or later
// has every gauge): a stop before the first tick still gives one
// reading, and a stop after a few ticks gives those.
func TestGaugeSampler(t *testing.T) {
	var nilSampler *gaugeSampler
	if r := nilSampler.stop(); r != nil {
		t.Errorf("nil sampler: %v", r)
	}
	g := startGauges()
	if g == nil {
		t.Skip("this runtime exports none of the gauges")
	}
	if r := g.stop(); len(r) != 1 {
		t.Errorf("stopped at once: %d readings, want the one taken at the end", len(r))
	}
	if testing.Short() {
		return
	}
	g = startGauges()
	time.Sleep(3*gaugePeriod + gaugePeriod/2)
	r := g.stop()
	if len(r) < 2 {
		t.Errorf("after 3.5 periods: %d readings", len(r))
	}
	got := units(t, gaugeUnits(r))
	if got["mean-goroutines"] < 1 || got["mean-threads"] < 1 || got["mean-gomaxprocs"] < 1 {
		t.Errorf("gauges %v", got)
	}
}
