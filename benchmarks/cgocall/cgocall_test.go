//go:build cgo

package cgocall

import (
	"runtime"
	"testing"
)

// BenchmarkCgoCall calls an empty C function in a loop. Under numabind
// only the first call of a scheduling round unbinds the thread.
func BenchmarkCgoCall(b *testing.B) {
	for b.Loop() {
		Noop()
	}
}

// BenchmarkCgoCallParallel is BenchmarkCgoCall on every P.
func BenchmarkCgoCallParallel(b *testing.B) {
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			Noop()
		}
	})
}

// BenchmarkCgoCallYield yields after every call, so that under numabind
// every iteration re-binds the thread in execute and unbinds it in the
// next call: the worst case, two sched_setaffinity calls per iteration
// when another goroutine is runnable.
func BenchmarkCgoCallYield(b *testing.B) {
	stop := make(chan struct{})
	defer close(stop)
	go func() { // something to yield to, on the same P
		for {
			select {
			case <-stop:
				return
			default:
				runtime.Gosched()
			}
		}
	}()
	for b.Loop() {
		Noop()
		runtime.Gosched()
	}
}
