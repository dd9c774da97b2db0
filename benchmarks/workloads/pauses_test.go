package workloads

import (
	"math"
	"runtime/metrics"
	"testing"
)

// Histograms every Go runtime exports (stock and patched alike), reported
// per run as quantiles of what the timed loop added to them. Only the GC's
// stop-the-world pauses are kept: the "other" pauses include the two that
// the testing package itself makes around the timed loop for -benchmem
// (runtime.ReadMemStats in ResetTimer and StopTimer).
var pauseHistograms = []struct {
	name, what string
	max        bool // also report the largest bucket seen
}{
	{"/sched/pauses/stopping/gc:seconds", "gc-stopping", true}, // start of a GC stop-the-world until every P stopped
	{"/sched/pauses/total/gc:seconds", "gc-pause", true},       // start until the world runs again
	{"/sched/latencies:seconds", "sched-latency", false},       // runnable until running, sampled by the runtime (see below)
}

// The sched-latency units carry a caveat (golang/go#79391): since go1.26
// /sched/latencies:seconds samples a different population of scheduling
// events than go1.25 and earlier did, so its values are not comparable
// with numbers from go1.25 or older; nor is it the per-run delay from
// runnable to running, which `schedlab trace -latency` computes from an
// execution trace. Reports print it under the unit (stats.UnitNote).

// histSnapshot holds the cumulative counts of histograms (pauseHistograms,
// runqHistograms), one slice per sample, nil where the runtime has none.
type histSnapshot [][]uint64

// readHistograms reads samples and copies their counts.
func readHistograms(samples []metrics.Sample) histSnapshot {
	if len(samples) == 0 {
		return nil // metrics.Read indexes its argument's first element
	}
	metrics.Read(samples)
	snap := make(histSnapshot, len(samples))
	for i, s := range samples {
		if s.Value.Kind() == metrics.KindFloat64Histogram {
			snap[i] = append([]uint64(nil), s.Value.Float64Histogram().Counts...)
		}
	}
	return snap
}

// reportPauses reports p50 and p99 (and max) in nanoseconds of each
// histogram's growth between base and now. Each value is the upper bound
// of the runtime's bucket holding the quantile: the buckets are a quarter
// of a power of two wide, so a value is at most 25% above the truth and
// runs fall on a few discrete values. A histogram that did not grow (no GC during the loop) reports
// nothing rather than zero.
func reportPauses(b *testing.B, samples []metrics.Sample, base, now histSnapshot) {
	for i, h := range pauseHistograms {
		if base[i] == nil || now[i] == nil || len(base[i]) != len(now[i]) {
			continue
		}
		buckets := samples[i].Value.Float64Histogram().Buckets
		delta := make([]uint64, len(now[i]))
		var total uint64
		for j := range delta {
			delta[j] = now[i][j] - base[i][j]
			total += delta[j]
		}
		if total == 0 {
			continue
		}
		for _, q := range []float64{0.50, 0.99} {
			b.ReportMetric(histQuantile(buckets, delta, total, q)*1e9, "p"+fmtQ(q)+"-"+h.what+"-ns")
		}
		if h.max {
			b.ReportMetric(histQuantile(buckets, delta, total, 1)*1e9, "max-"+h.what+"-ns")
		}
	}
}

// histQuantile returns the upper bound of the bucket that holds quantile q
// of counts (total is their sum); an unbounded last bucket gives its lower
// bound. buckets has len(counts)+1 boundaries.
func histQuantile(buckets []float64, counts []uint64, total uint64, q float64) float64 {
	j := quantileBucket(counts, total, q)
	if j < 0 {
		return buckets[len(buckets)-1]
	}
	if math.IsInf(buckets[j+1], 1) {
		return buckets[j]
	}
	return buckets[j+1]
}

// quantileBucket returns the index of the bucket of counts (total is
// their sum) that holds quantile q, or -1 if counts hold fewer than
// total.
func quantileBucket(counts []uint64, total uint64, q float64) int {
	rank := uint64(math.Ceil(q * float64(total)))
	if rank == 0 {
		rank = 1
	}
	var seen uint64
	for j, c := range counts {
		seen += c
		if seen >= rank {
			return j
		}
	}
	return -1
}

func TestHistQuantile(t *testing.T) {
	buckets := []float64{math.Inf(-1), 1, 2, 4, math.Inf(1)}
	counts := []uint64{0, 10, 89, 1}
	for _, c := range []struct{ q, want float64 }{
		{0.05, 2}, {0.10, 2}, {0.11, 4}, {0.50, 4}, {0.99, 4}, {1, 4},
	} {
		if got := histQuantile(buckets, counts, 100, c.q); got != c.want {
			t.Errorf("q%.2f = %v, want %v", c.q, got, c.want)
		}
	}
	// The unbounded last bucket reports its lower bound.
	if got := histQuantile(buckets, []uint64{0, 0, 0, 3}, 3, 0.5); got != 4 {
		t.Errorf("q0.5 in the last bucket = %v, want 4", got)
	}
}
