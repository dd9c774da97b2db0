package workloads

import (
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

var sink atomic.Uint64

// work burns about n small iterations of CPU.
func work(n int) uint64 {
	x := uint64(n)
	for i := 0; i < n; i++ {
		x = x*6364136223846793005 + 1442695040888963407
	}
	return x
}

// BenchmarkSmoke is a trivial benchmark for testing the harness.
func BenchmarkSmoke(b *testing.B) {
	p := start(b)
	done := make(chan struct{})
	for i := 0; i < b.N; i++ {
		go func() { done <- struct{}{} }()
		<-done
	}
	p.stop()
}

// BenchmarkForkJoinTree spawns a binary tree of goroutines (depth 10) per
// op; the leaves do a little work. New goroutines pile up on the spawning
// P's run queue, so the other Ps live by stealing.
func BenchmarkForkJoinTree(b *testing.B) {
	p := start(b)
	for i := 0; i < b.N; i++ {
		sink.Add(forkJoin(10))
	}
	p.stop()
}

func forkJoin(depth int) uint64 {
	if depth == 0 {
		return work(500)
	}
	var wg sync.WaitGroup
	var left uint64
	wg.Add(1)
	go func() {
		left = forkJoin(depth - 1)
		wg.Done()
	}()
	right := forkJoin(depth - 1)
	wg.Wait()
	return left + right
}

// BenchmarkBurstyProducer: one producer goroutine releases bursts of 64
// goroutines of very unequal size (a few large, many tiny), with idle gaps
// between bursts, 8 bursts per op.
func BenchmarkBurstyProducer(b *testing.B) {
	p := start(b)
	for i := 0; i < b.N; i++ {
		var wg sync.WaitGroup
		for burst := 0; burst < 8; burst++ {
			for j := 0; j < 64; j++ {
				n := 100
				if j%16 == 0 {
					n = 20000
				}
				wg.Add(1)
				go func() {
					sink.Add(work(n))
					wg.Done()
				}()
			}
			time.Sleep(20 * time.Microsecond)
		}
		wg.Wait()
	}
	p.stop()
}

// BenchmarkChanPipeline pushes items through a 4-stage pipeline of
// goroutines connected by small buffered channels; one op is one item.
func BenchmarkChanPipeline(b *testing.B) {
	const stages = 4
	in := make(chan uint64, 8)
	var c chan uint64 = in
	for s := 0; s < stages; s++ {
		out := make(chan uint64, 8)
		go func(in <-chan uint64, out chan<- uint64) {
			for v := range in {
				out <- v + work(50)
			}
			close(out)
		}(c, out)
		c = out
	}
	var got uint64
	done := make(chan struct{})
	go func() {
		for v := range c {
			got += v
		}
		close(done)
	}()
	p := start(b)
	for i := 0; i < b.N; i++ {
		in <- uint64(i)
	}
	close(in)
	<-done
	p.stop()
	sink.Add(got)
}

// BenchmarkTimerStorm: per op, 256 goroutines each sleep a short, varied
// time (0-49µs) and then join.
func BenchmarkTimerStorm(b *testing.B) {
	p := start(b)
	for i := 0; i < b.N; i++ {
		var wg sync.WaitGroup
		for j := 0; j < 256; j++ {
			wg.Add(1)
			go func(d time.Duration) {
				time.Sleep(d)
				wg.Done()
			}(time.Duration(j%50) * time.Microsecond)
		}
		wg.Wait()
	}
	p.stop()
}

// BenchmarkBlockingSyscall: 4 goroutines per P alternate a little CPU work
// with a 20µs blocking nanosleep system call, so Ps are handed off
// (retaken by sysmon) around blocked threads.
func BenchmarkBlockingSyscall(b *testing.B) {
	p := start(b)
	b.SetParallelism(4)
	ts := syscall.Timespec{Nsec: 20_000}
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			sink.Add(work(2000))
			syscall.Nanosleep(&ts, nil)
		}
	})
	p.stop()
}

type node struct {
	left, right *node
	val         [4]uint64
}

func tree(d int) *node {
	if d == 0 {
		return &node{}
	}
	return &node{left: tree(d - 1), right: tree(d - 1)}
}

// BenchmarkParallelAlloc: every P builds and drops small trees of heap
// objects while a retained set keeps the GC busy marking.
func BenchmarkParallelAlloc(b *testing.B) {
	keep := make([]*node, 64)
	var mu sync.Mutex
	p := start(b)
	var k atomic.Uint64
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			t := tree(6)
			if i := k.Add(1); i%16 == 0 {
				mu.Lock()
				keep[i/16%uint64(len(keep))] = t
				mu.Unlock()
			}
		}
	})
	p.stop()
}

// BenchmarkLatencyProbe: a goroutine wakes every 1ms while GOMAXPROCS
// CPU hogs keep every P busy; the wake-to-run delay (how late it runs
// after its timer expired) is reported as p50/p99/p99.9, and the hogs'
// throughput as hog-iters/s. One op is one wake-up.
func BenchmarkLatencyProbe(b *testing.B) {
	var stop atomic.Bool
	var wg sync.WaitGroup
	var hogIters atomic.Uint64 // thousands of iterations done by the hogs
	for h := 0; h < runtime.GOMAXPROCS(0); h++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			x := uint64(h)
			for !stop.Load() {
				for i := 0; i < 1000; i++ {
					x = x*6364136223846793005 + 1
				}
				hogIters.Add(1)
			}
			sink.Add(x)
		}()
	}
	delays := make([]time.Duration, 0, b.N)
	p := start(b)
	begin, iters0 := time.Now(), hogIters.Load()
	for i := 0; i < b.N; i++ {
		deadline := time.Now().Add(time.Millisecond)
		time.Sleep(time.Millisecond)
		delays = append(delays, time.Since(deadline))
	}
	iters, elapsed := hogIters.Load()-iters0, time.Since(begin)
	p.stop()
	stop.Store(true)
	wg.Wait()
	reportQuantiles(b, delays, "wake", 0.5, 0.99, 0.999)
	// The hogs' throughput: what a shorter time slice costs them.
	b.ReportMetric(float64(iters)*1000/elapsed.Seconds(), "hog-iters/s")
}

// BenchmarkHTTPLoopback: a net/http server on loopback under a
// closed-loop client (4 connections per P, each sending its next request
// when the previous answer arrived). Reports req/s and p50/p99 latency;
// one op is one request.
func BenchmarkHTTPLoopback(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sink.Add(work(1000))
		io.WriteString(w, "hello, scheduler\n")
	}))
	defer srv.Close()
	conns := 4 * runtime.GOMAXPROCS(0)
	tr := &http.Transport{MaxIdleConnsPerHost: conns, MaxConnsPerHost: conns}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	get := func() error {
		resp, err := client.Get(srv.URL)
		if err != nil {
			return err
		}
		io.Copy(io.Discard, resp.Body)
		return resp.Body.Close()
	}
	if err := get(); err != nil { // warm up one connection
		b.Fatal(err)
	}
	var next atomic.Int64
	lat := make([][]time.Duration, conns)
	var wg sync.WaitGroup
	p := start(b)
	t0 := time.Now()
	for c := 0; c < conns; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= int64(b.N) {
				s := time.Now()
				if err := get(); err != nil {
					b.Error(err)
					return
				}
				lat[c] = append(lat[c], time.Since(s))
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(t0)
	p.stop()
	var all []time.Duration
	for _, l := range lat {
		all = append(all, l...)
	}
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "req/s")
	reportQuantiles(b, all, "latency", 0.5, 0.99)
}
