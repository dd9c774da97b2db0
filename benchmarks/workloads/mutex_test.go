package workloads

import (
	"fmt"
	"runtime/metrics"
	"sync"
	"testing"
)

// BenchmarkMutexContention: G goroutines (10 and 100) each increment one
// map entry b.N times under one sync.Mutex, the shape of grpc's
// benchmark/primitives MapWithSyncMutexContention (issue 19); as there,
// an op is one increment by every goroutine. It stresses the contended
// mutex hand-off: waiters spin, then park on the semaphore, and each
// Unlock that wakes one readies it through the scheduler (ready,
// runnext, wakep), so a change to those paths, or to the cache lines
// they share with other counters, shows up here before anywhere else.
// It is in the quick suite as a guard for the default mode's cost.
//
// mutex-wait-ns/op is the time goroutines spent blocked on the mutex
// (runtime/metrics /sync/mutex/wait/total:seconds) per op. On a shared
// VM the runs of this benchmark can be bimodal, a run fast or about
// twice as slow (results/2026-11-30-vm-mutex-bisect), and the wait time
// is one way to look at what differs between the two.
func BenchmarkMutexContention(b *testing.B) {
	for _, g := range []int{10, 100} {
		b.Run(fmt.Sprintf("goroutines=%d", g), func(b *testing.B) {
			var mu sync.Mutex
			m := map[string]uint64{}
			var wg sync.WaitGroup
			wait := []metrics.Sample{{Name: "/sync/mutex/wait/total:seconds"}}
			metrics.Read(wait)
			before := wait[0].Value
			p := start(b)
			wg.Add(g)
			for range g {
				go func() {
					defer wg.Done()
					for range b.N {
						mu.Lock()
						m["cat"]++
						mu.Unlock()
					}
				}()
			}
			wg.Wait()
			p.stop()
			if got, want := m["cat"], uint64(g*b.N); got != want {
				b.Fatalf("count %d, want %d", got, want)
			}
			metrics.Read(wait)
			if before.Kind() == metrics.KindFloat64 && wait[0].Value.Kind() == metrics.KindFloat64 {
				b.ReportMetric((wait[0].Value.Float64()-before.Float64())*1e9/float64(b.N), "mutex-wait-ns/op")
			}
		})
	}
}
