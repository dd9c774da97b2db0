package workloads

import (
	"math"
	"runtime/metrics"
)

// runqHistograms are the patched runtime's histograms of run-queue
// lengths (cumulative Float64Histograms; stock has none): sysmon samples
// the global run queue and each running P's local one (runnext
// included) at most once per millisecond while some P is busy, less often
// when it has little to do, never while every P is idle.
//
// They are reported per run, from what the timed loop added to them,
// as levels, not per op: mean-<what> (the mean sampled length) and
// p99-<what> (its 99th percentile), where <what> is global-runq-len or
// local-runq-len. A loop during which sysmon took no sample reports
// neither.
var runqHistograms = []struct{ name, what string }{
	{"/sched/runq/global-length:goroutines", "global-runq-len"},
	{"/sched/runq/local-length:goroutines", "local-runq-len"},
}

// availableHist is the subset of runqHistograms this runtime exports.
var availableHist = func() map[string]bool {
	var names []string
	for _, h := range runqHistograms {
		names = append(names, h.name)
	}
	return exported(names, metrics.KindFloat64Histogram)
}()

// runqLengthUnits returns the units of the runqHistograms in samples
// (read by readHistograms into base before the loop and into now
// after it): for each histogram that grew, the mean and the 99th
// percentile of the lengths sampled in between.
//
// The histograms count integers in buckets (today 0, 1, [2, 4), [4, 8),
// … powers of two), so each value is an integer estimate: the mean
// counts every sample as the middle of the integers its bucket holds
// (exact for the lengths 0 and 1, within half a bucket beyond), the
// percentile is the largest integer of its bucket (an upper bound, as
// for the pause percentiles: exact for 0 and 1, at most twice the
// truth beyond). An unbounded last bucket counts as its lower bound.
func runqLengthUnits(samples []metrics.Sample, base, now histSnapshot) []unitValue {
	var out []unitValue
	for i, s := range samples {
		if i >= len(base) || i >= len(now) || base[i] == nil || now[i] == nil || len(base[i]) != len(now[i]) {
			continue
		}
		what := ""
		for _, h := range runqHistograms {
			if h.name == s.Name {
				what = h.what
			}
		}
		if what == "" || s.Value.Kind() != metrics.KindFloat64Histogram {
			continue
		}
		out = append(out, lengthUnits(what, s.Value.Float64Histogram().Buckets, base[i], now[i])...)
	}
	return out
}

// lengthUnits returns mean-<what> and p99-<what> of the integer
// histogram that grew from base to now (counts over buckets, which has
// one boundary more), or nothing if it did not grow.
func lengthUnits(what string, buckets []float64, base, now []uint64) []unitValue {
	if len(buckets) != len(now)+1 {
		return nil
	}
	delta := make([]uint64, len(now))
	var total uint64
	var sum float64
	for j := range delta {
		if now[j] < base[j] { // not cumulative after all: no delta to take
			return nil
		}
		delta[j] = now[j] - base[j]
		total += delta[j]
		lo, hi := intBucket(buckets[j], buckets[j+1])
		sum += float64(delta[j]) * (lo + hi) / 2
	}
	if total == 0 {
		return nil
	}
	j := quantileBucket(delta, total, 0.99) // ≥ 0: total is delta's sum
	_, p99 := intBucket(buckets[j], buckets[j+1])
	return []unitValue{
		{sum / float64(total), "mean-" + what},
		{p99, "p99-" + what},
	}
}

// intBucket returns the smallest and largest integer of the bucket
// [lo, hi); an unbounded side gives the other side's integer.
func intBucket(lo, hi float64) (first, last float64) {
	first, last = math.Ceil(lo), math.Ceil(hi)-1
	switch {
	case math.IsInf(lo, -1) && math.IsInf(hi, 1):
		return 0, 0
	case math.IsInf(hi, 1):
		last = first
	case math.IsInf(lo, -1):
		first = last
	}
	if last < first { // a bucket narrower than one integer
		last = first
	}
	return first, last
}
