//go:build cgo

package cgocall

import (
	"runtime"
	"runtime/metrics"
	"testing"
)

// BenchmarkCgoCall calls an empty C function in a loop. Under numabind
// only the first call of a scheduling round unbinds the thread.
func BenchmarkCgoCall(b *testing.B) {
	defer reportBinds(b)()
	for b.Loop() {
		Noop()
	}
}

// BenchmarkCgoCallParallel is BenchmarkCgoCall on every P.
func BenchmarkCgoCallParallel(b *testing.B) {
	defer reportBinds(b)()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			Noop()
		}
	})
}

// BenchmarkCgoCallYield yields after every call, so that under numabind
// every iteration could re-bind the thread in execute and unbind it in
// the next call: the worst case for the unbind on the way into C.
func BenchmarkCgoCallYield(b *testing.B) {
	defer reportBinds(b)()
	defer yielder()()
	for b.Loop() {
		Noop()
		runtime.Gosched()
	}
}

// BenchmarkYield is BenchmarkCgoCallYield without the C call: what the
// goroutine switches cost under each variant by themselves. The ratio of
// a variant's CgoCallYield change to its Yield change is the part of
// the cost that comes from the C call (the unbind), not from binding.
func BenchmarkYield(b *testing.B) {
	defer reportBinds(b)()
	defer yielder()()
	for b.Loop() {
		runtime.Gosched()
	}
}

// yielder starts a goroutine that yields in a loop, something for the
// benchmark's goroutine to switch to, and returns a function that stops
// it.
func yielder() (stop func()) {
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-done:
				return
			default:
				runtime.Gosched()
			}
		}
	}()
	return func() { close(done) }
}

// reportBinds reports the sched_setaffinity calls of GODEBUG numabind
// per op (/sched/numa/binds:events; stock runtimes lack the metric and
// report nothing). Use as defer reportBinds(b)().
func reportBinds(b *testing.B) func() {
	s := []metrics.Sample{{Name: "/sched/numa/binds:events"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return func() {}
	}
	before := s[0].Value.Uint64()
	return func() {
		metrics.Read(s)
		if b.N > 0 {
			b.ReportMetric(float64(s[0].Value.Uint64()-before)/float64(b.N), "binds/op")
		}
	}
}
