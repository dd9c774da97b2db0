package workloads

import (
	"fmt"
	"os"
	"runtime/metrics"
	"slices"
	"sort"
	"syscall"
	"testing"
	"time"

	"github.com/aclements/go-perfevent/perfbench"
)

// Scheduler metrics exported by the patched runtime (cumulative uint64).
const (
	mStealAttempts   = "/sched/steal/attempts:events"
	mStealGoroutines = "/sched/steal/goroutines:goroutines"
	mStealOps        = "/sched/steal/operations:events"
	mStealRunnext    = "/sched/steal/runnext:goroutines"
	mStealLocal      = "/sched/steal/local-node:goroutines"
	mStealRemote     = "/sched/steal/remote-node:goroutines"
	mSysmonWakeups   = "/sched/sysmon/wakeups:events"
	mSysmonPreempts  = "/sched/sysmon/preemptions:events"
	mExecOnNode      = "/sched/numa/execute-on-node:events"
	mExecOffNode     = "/sched/numa/execute-off-node:events"
	mNUMAHops        = "/sched/numa/hops:events"
	mNUMABinds       = "/sched/numa/binds:events"
	mWakeupsLocal    = "/sched/numa/wakeups-local:events"
	mWakeupsRemote   = "/sched/numa/wakeups-remote:events"
	mGlobrunq        = "/sched/globalrunq/goroutines:goroutines"
	mTimerGs         = "/sched/steal/timer-goroutines:goroutines"
	mMemLocal        = "/memory/numa/pages-local:pages"
	mMemMoved        = "/memory/numa/pages-moved:pages"
	mMemFresh        = "/memory/numa/pages-fresh:pages"
	mMemUnmoved      = "/memory/numa/pages-unmoved:pages"
	mMemSyscalls     = "/memory/numa/syscalls:calls"
	mMemSpans        = "/memory/numa/spans:spans"
	mRunqOverflows   = "/sched/runq/overflows:events"
	mRunqOverflowGs  = "/sched/runq/overflow-goroutines:goroutines"
	mSpinningStarts  = "/sched/spinning/starts:events"
	mSpinningFailed  = "/sched/spinning/failed:events"
	mStealFailed     = "/sched/steal/failed:events"
)

// perOpCounters are the counters of schedMetricNames reported plainly,
// as their growth over the timed loop per op, under their unit: always
// where the runtime exports them (zero included: a run-queue overflow
// that never happens is a result), never where it does not (stock).
var perOpCounters = []struct{ name, unit string }{
	{mRunqOverflows, "runq-overflows/op"},            // a full local run queue moved half of itself to the global one
	{mRunqOverflowGs, "runq-overflow-goroutines/op"}, // the goroutines those overflows moved
	{mSpinningStarts, "spinning-starts/op"},          // an M began spinning (looking for work to steal)
	{mSpinningFailed, "spinning-failed/op"},          // a spinning M gave up without finding work
	{mStealFailed, "steal-failed/op"},                // a full steal search found no goroutine, timer or GC work
}

var schedMetricNames = []string{
	mStealAttempts, mStealGoroutines, mStealOps, mStealRunnext, mStealLocal, mStealRemote, mSysmonWakeups, mSysmonPreempts,
	mExecOnNode, mExecOffNode, mNUMAHops, mNUMABinds, mWakeupsLocal, mWakeupsRemote,
	mGlobrunq, mTimerGs,
	mMemLocal, mMemMoved, mMemFresh, mMemUnmoved, mMemSyscalls, mMemSpans,
	mRunqOverflows, mRunqOverflowGs, mSpinningStarts, mSpinningFailed, mStealFailed,
}

// available is the subset of schedMetricNames this runtime exports (none
// on a stock runtime).
var available = exported(schedMetricNames, metrics.KindUint64)

// exported returns the names of the metrics of kind this runtime
// exports among names. A runtime without one (stock, for the patched
// runtime's metrics; a release older than the metric) leaves it out,
// and its units are then absent from the benchmark's results: neither
// zero nor an error.
func exported(names []string, kind metrics.ValueKind) map[string]bool {
	m := map[string]bool{}
	for _, d := range metrics.All() {
		if slices.Contains(names, d.Name) && d.Kind == kind {
			m[d.Name] = true
		}
	}
	return m
}

// A unitValue is one custom metric of a benchmark result line.
type unitValue struct {
	value float64
	unit  string
}

// report reports each of us with b.ReportMetric.
func report(b *testing.B, us []unitValue) {
	for _, u := range us {
		b.ReportMetric(u.value, u.unit)
	}
}

// counterUnits returns the units of perOpCounters: each counter's growth
// from base to now over n ops. A counter that either snapshot lacks
// (the runtime does not export it) gives no unit.
func counterUnits(base, now map[string]uint64, n float64) []unitValue {
	var out []unitValue
	for _, c := range perOpCounters {
		a, ok1 := base[c.name]
		z, ok2 := now[c.name]
		if !ok1 || !ok2 || n <= 0 {
			continue
		}
		out = append(out, unitValue{float64(z-a) / n, c.unit})
	}
	return out
}

func TestMain(m *testing.M) {
	// Unit metadata for benchstat; printed before any benchmark line.
	for _, u := range []string{"req/s", "hog-iters/s", "local-steal-share", "on-node-share", "local-wakeup-share"} {
		fmt.Printf("Unit %s better=higher\n", u)
	}
	os.Exit(m.Run())
}

// probe reports scheduler metrics, process CPU time and hardware
// counters for a benchmark.
type probe struct {
	b       *testing.B
	samples []metrics.Sample
	base    map[string]uint64
	hists   []metrics.Sample // pauseHistograms
	hbase   histSnapshot
	rhists  []metrics.Sample // runqHistograms the runtime exports
	rbase   histSnapshot
	gauges  *gaugeSampler // nil where the runtime exports no schedGauges
	wall    time.Time
	cpu     time.Duration
}

// processCPU returns the user plus system CPU time of the process so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// start begins measuring; call stop after the timed loop.
func start(b *testing.B) *probe {
	p := &probe{b: b}
	for name := range available {
		p.samples = append(p.samples, metrics.Sample{Name: name})
	}
	p.base = p.read()
	for _, h := range pauseHistograms {
		p.hists = append(p.hists, metrics.Sample{Name: h.name})
	}
	p.hbase = readHistograms(p.hists)
	for _, h := range runqHistograms {
		if availableHist[h.name] {
			p.rhists = append(p.rhists, metrics.Sample{Name: h.name})
		}
	}
	p.rbase = readHistograms(p.rhists)
	perfbench.Open(b) // omits its units where there is no PMU
	p.gauges = startGauges()
	b.ResetTimer()
	p.wall, p.cpu = time.Now(), processCPU()
	return p
}

func (p *probe) read() map[string]uint64 {
	if len(p.samples) == 0 {
		return nil
	}
	metrics.Read(p.samples)
	m := map[string]uint64{}
	for _, s := range p.samples {
		if s.Value.Kind() == metrics.KindUint64 {
			m[s.Name] = s.Value.Uint64()
		}
	}
	return m
}

func (p *probe) stop() {
	p.b.StopTimer()
	wall, cpu := time.Since(p.wall), processCPU()-p.cpu
	gauges := p.gauges.stop()
	if p.b.N == 0 {
		return
	}
	n := float64(p.b.N)
	p.b.ReportMetric(float64(cpu.Nanoseconds())/n, "cpu-ns/op")
	reportPauses(p.b, p.hists, p.hbase, readHistograms(p.hists))
	report(p.b, runqLengthUnits(p.rhists, p.rbase, readHistograms(p.rhists)))
	report(p.b, gaugeUnits(gauges))
	if len(p.samples) == 0 {
		return
	}
	now := p.read()
	report(p.b, counterUnits(p.base, now, n))
	d := func(name string) (float64, bool) {
		a, ok1 := p.base[name]
		z, ok2 := now[name]
		return float64(z - a), ok1 && ok2
	}
	g, okG := d(mStealGoroutines)
	ops, okO := d(mStealOps)
	if okG {
		p.b.ReportMetric(g/n, "steals/op")
	}
	if okO {
		p.b.ReportMetric(ops/n, "steal-ops/op")
	}
	// The other ways goroutines reach a P that did not make them
	// runnable: the global run queue, and running another P's timers.
	if v, ok := d(mGlobrunq); ok {
		p.b.ReportMetric(v/n, "globrunq/op")
	}
	if v, ok := d(mTimerGs); ok {
		p.b.ReportMetric(v/n, "timer-goroutines/op")
	}
	// The shape of stealing: how many victims a thief probes per
	// successful steal, how many goroutines one steal moves, and how
	// many of them came from a victim's runnext slot.
	if a, ok := d(mStealAttempts); ok && okO && ops > 0 {
		p.b.ReportMetric(a/ops, "attempts/steal")
	}
	if okG && okO && ops > 0 {
		p.b.ReportMetric(g/ops, "goroutines/steal")
	}
	if rn, ok := d(mStealRunnext); ok && okG && g > 0 {
		p.b.ReportMetric(rn/g, "runnext-share")
	}
	l, ok1 := d(mStealLocal)
	r, ok2 := d(mStealRemote)
	if ok1 && ok2 && l+r > 0 {
		p.b.ReportMetric(l/(l+r), "local-steal-share")
	}
	// NUMA (zero, and not reported, unless NUMA-aware scheduling is
	// active): the share of sampled executes whose thread ran on its
	// P's node, which is physical locality where local-steal-share is
	// judged by P index; wakeups on the work's node; thread moves to
	// the work's node; affinity system calls.
	on, ok1 := d(mExecOnNode)
	off, ok2 := d(mExecOffNode)
	if ok1 && ok2 && on+off > 0 {
		p.b.ReportMetric(on/(on+off), "on-node-share")
	}
	wl, ok1 := d(mWakeupsLocal)
	wr, ok2 := d(mWakeupsRemote)
	if ok1 && ok2 && wl+wr > 0 {
		p.b.ReportMetric(wl/(wl+wr), "local-wakeup-share")
		if v, ok := d(mNUMAHops); ok {
			p.b.ReportMetric(v/n, "hops/op")
		}
		if v, ok := d(mNUMABinds); ok {
			p.b.ReportMetric(v/n, "binds/op")
		}
	}
	// Heap placement by node (zero, and not reported, unless numamem=1
	// is in effect): the pages of the spans Ps took that the runtime
	// looked up with move_pages, per op, and how many of them it moved;
	// its system calls and the spans Ps took, per op (their ratio is
	// the calls per span, the price a cost model multiplies by the
	// kernel's cost of a call).
	ml, ok1 := d(mMemLocal)
	mm, ok2 := d(mMemMoved)
	mf, ok3 := d(mMemFresh)
	mu, ok4 := d(mMemUnmoved)
	if ok1 && ok2 && ok3 && ok4 && ml+mm+mf+mu > 0 {
		p.b.ReportMetric((ml+mm+mf+mu)/n, "numamem-pages/op")
		p.b.ReportMetric(mm/n, "numamem-moved/op")
	}
	if v, ok := d(mMemSpans); ok && v > 0 {
		p.b.ReportMetric(v/n, "numamem-spans/op")
		if c, ok := d(mMemSyscalls); ok {
			p.b.ReportMetric(c/n, "numamem-syscalls/op")
		}
	}
	if v, ok := d(mSysmonWakeups); ok {
		p.b.ReportMetric(v/n, "sysmon-wakeups/op")
		p.b.ReportMetric(v/wall.Seconds(), "sysmon-wakeups/s")
	}
	if v, ok := d(mSysmonPreempts); ok {
		p.b.ReportMetric(v/n, "sysmon-preemptions/op")
	}
}

// reportQuantiles reports the given quantiles of ds as custom metrics
// named prefix-pNN-ns.
func reportQuantiles(b *testing.B, ds []time.Duration, what string, qs ...float64) {
	if len(ds) == 0 {
		return
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	for _, q := range qs {
		i := int(q * float64(len(ds)))
		if i >= len(ds) {
			i = len(ds) - 1
		}
		b.ReportMetric(float64(ds[i].Nanoseconds()), fmt.Sprintf("p%s-%s-ns", fmtQ(q), what))
	}
}

func fmtQ(q float64) string {
	s := fmt.Sprintf("%g", q*100)
	return s
}
