package workloads

import (
	"runtime/metrics"
	"time"
)

// schedGauges are the scheduler's gauges in runtime/metrics: every
// non-cumulative /sched/ metric of go1.27.4 (the goroutine-state counts
// and the thread count came with go1.26, so stock has them as the
// patched runtime does). Each is reported as mean-<unit>: the mean of
// the samples a sampler goroutine takes every gaugePeriod during the
// timed loop. A gauge is a level, not a count of events, so it is
// neither per op nor a difference between the start and the end.
//
// Why a mean of samples during the loop, not one sample at its end:
// most workloads wait for all their goroutines at the end of each op
// (fork-join, pipelines), so an end sample sees a drained scheduler
// (nothing runnable, one goroutine running) whatever happened during
// the loop. A sample every gaugePeriod costs a timer wake-up and one
// metrics.Read (which takes the scheduler lock) twenty times a second,
// the same in every variant, against sysmon's own wake-ups every 20 µs
// to 10 ms: too little to move the other units. A loop shorter than
// gaugePeriod gets no such sample; it reports one sample taken at its
// end instead (short runs, -benchtime Nx).
//
// The goroutine that reads (the sampler, or the benchmark's at the end)
// is always running when it reads: mean-running-goroutines leaves it
// out (self). The others include the harness's own goroutines (the
// testing package's, the sampler's).
var schedGauges = []struct {
	name, unit string
	self       bool // the reader counts itself: subtract one
}{
	{"/sched/goroutines/runnable:goroutines", "mean-runnable-goroutines", false},   // ready to run, not running
	{"/sched/goroutines/running:goroutines", "mean-running-goroutines", true},      // executing Go code on a P
	{"/sched/goroutines/waiting:goroutines", "mean-waiting-goroutines", false},     // blocked (channels, locks, I/O, timers)
	{"/sched/goroutines/not-in-go:goroutines", "mean-not-in-go-goroutines", false}, // in a system call or cgo call
	{"/sched/goroutines:goroutines", "mean-goroutines", false},                     // every live goroutine
	{"/sched/threads/total:threads", "mean-threads", false},                        // OS threads the runtime owns
	{"/sched/gomaxprocs:threads", "mean-gomaxprocs", false},                        // GOMAXPROCS (may change at run time since go1.25)
}

// gaugePeriod is how often the sampler reads schedGauges.
const gaugePeriod = 50 * time.Millisecond

// availableGauges is the subset of schedGauges this runtime exports.
var availableGauges = func() map[string]bool {
	var names []string
	for _, g := range schedGauges {
		names = append(names, g.name)
	}
	return exported(names, metrics.KindUint64)
}()

// A gaugeSampler reads schedGauges every gaugePeriod in a goroutine of
// its own until stopped.
type gaugeSampler struct {
	samples []metrics.Sample
	done    chan struct{}
	result  chan []map[string]uint64
}

// startGauges starts sampling the gauges this runtime exports; it
// returns nil if there are none.
func startGauges() *gaugeSampler {
	g := &gaugeSampler{done: make(chan struct{}), result: make(chan []map[string]uint64)}
	for _, sg := range schedGauges {
		if availableGauges[sg.name] {
			g.samples = append(g.samples, metrics.Sample{Name: sg.name})
		}
	}
	if len(g.samples) == 0 {
		return nil
	}
	go func() {
		t := time.NewTicker(gaugePeriod)
		defer t.Stop()
		var readings []map[string]uint64
		for {
			select {
			case <-t.C:
				readings = append(readings, g.read())
			case <-g.done:
				g.result <- readings
				return
			}
		}
	}()
	return g
}

// read reads the gauges once.
func (g *gaugeSampler) read() map[string]uint64 {
	metrics.Read(g.samples)
	m := make(map[string]uint64, len(g.samples))
	for _, s := range g.samples {
		if s.Value.Kind() == metrics.KindUint64 {
			m[s.Name] = s.Value.Uint64()
		}
	}
	return m
}

// stop ends the sampling and returns the readings: those taken during
// the loop, or, if there were none, one taken now. A nil g returns
// nothing.
func (g *gaugeSampler) stop() []map[string]uint64 {
	if g == nil {
		return nil
	}
	close(g.done)
	readings := <-g.result
	if len(readings) == 0 {
		readings = append(readings, g.read())
	}
	return readings
}

// gaugeUnits returns the mean of each gauge over readings, under its
// unit. A gauge that no reading holds gives no unit.
func gaugeUnits(readings []map[string]uint64) []unitValue {
	var out []unitValue
	for _, g := range schedGauges {
		var sum float64
		n := 0
		for _, r := range readings {
			v, ok := r[g.name]
			if !ok {
				continue
			}
			x := float64(v)
			if g.self {
				x = max(x-1, 0)
			}
			sum += x
			n++
		}
		if n > 0 {
			out = append(out, unitValue{sum / float64(n), g.unit})
		}
	}
	return out
}
