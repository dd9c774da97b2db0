package workloads

import (
	"fmt"
	"runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"
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
//
// starving-locks/op is how many of an op's acquisitions were made with
// the mutex in starvation mode: sync.Mutex switches to it when a waiter
// has waited over 1 ms and then hands the lock to waiters in order
// instead of letting the running goroutine take it again, a switch by
// time that may decide which of the two states a run is in. It is read
// from the mutex's state word (mutexState).
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
			var starving atomic.Int64
			wg.Add(g)
			for range g {
				go func() {
					defer wg.Done()
					var n int64
					for range b.N {
						mu.Lock()
						if mutexState(&mu)&mutexStarving != 0 {
							n++
						}
						m["cat"]++
						mu.Unlock()
					}
					starving.Add(n)
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
			b.ReportMetric(float64(starving.Load())/float64(b.N), "starving-locks/op")
		})
	}
}

// The bits of sync.Mutex's state word (internal/sync's mutexLocked and
// mutexStarving, go1.24 and later).
const (
	mutexLocked   = 1
	mutexStarving = 4
)

// mutexState returns mu's state word. A sync.Mutex is an internal/sync
// Mutex whose first field is the state; TestMutexState checks that this
// still holds.
func mutexState(mu *sync.Mutex) int32 {
	return atomic.LoadInt32((*int32)(unsafe.Pointer(mu)))
}

// TestMutexState checks mutexState against sync.Mutex's behaviour: the
// locked bit follows Lock and Unlock, and a waiter that has waited over
// 1 ms and then finds the mutex taken again sets the starving bit.
func TestMutexState(t *testing.T) {
	var mu sync.Mutex
	if s := mutexState(&mu); s != 0 {
		t.Fatalf("state of a new mutex is %#x, want 0", s)
	}
	mu.Lock()
	if s := mutexState(&mu); s&mutexLocked == 0 {
		t.Fatalf("state of a locked mutex is %#x, want the locked bit %#x: the layout of sync.Mutex changed", s, mutexLocked)
	}
	mu.Unlock()
	if s := mutexState(&mu); s&mutexLocked != 0 {
		t.Fatalf("state of an unlocked mutex is %#x", s)
	}

	// The waiter may take the mutex between Unlock and Lock, or block
	// only after the Unlock (a loaded machine); try again then. An
	// attempt ends when the starving bit shows, when the waiter has
	// taken the mutex and gone, or after 100 ms.
	for attempt := 0; attempt < 100; attempt++ {
		mu.Lock()
		done := make(chan struct{})
		go func() {
			mu.Lock()
			mu.Unlock()
			close(done)
		}()
		time.Sleep(3 * time.Millisecond) // the waiter waits over 1 ms
		mu.Unlock()
		mu.Lock()
		starving := false
		for end := time.Now().Add(100 * time.Millisecond); time.Now().Before(end); runtime.Gosched() {
			if mutexState(&mu)&mutexStarving != 0 {
				starving = true
				break
			}
		}
		mu.Unlock()
		<-done
		if starving {
			return
		}
	}
	t.Fatal("the starving bit never showed in 100 attempts: the layout of sync.Mutex's state changed")
}
