package workloads

// Memory-bound workloads for the NUMA study: in each, which node's DRAM a
// goroutine's data sits on (decided by the thread that first touched the
// page) matters as much as which P runs the goroutine.

import (
	"encoding/binary"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// BenchmarkFanOutSharedData: per op the parent goroutine allocates a fresh
// 8 MiB []uint64 slab and fills it (first touch), then fans out
// 4*GOMAXPROCS children that each sum their own contiguous chunk 4 times.
// It stresses where spawned goroutines run relative to their parent's
// data: children read memory their parent first touched, so on a NUMA
// machine a child stolen by a remote node's P reads remote DRAM, while a
// child run on the parent's node reads local DRAM (or the parent's
// caches). (A slab reused from the Go heap keeps the node of whoever
// first faulted its pages in an earlier op.)
func BenchmarkFanOutSharedData(b *testing.B) {
	const words = 8 << 20 / 8 // 8 MiB
	const passes = 4
	children := 4 * runtime.GOMAXPROCS(0)
	sums := make([]uint64, children)
	p := start(b)
	for i := 0; i < b.N; i++ {
		slab := make([]uint64, words)
		x := uint64(i)*0x9e3779b97f4a7c15 + 1
		for j := range slab {
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
			slab[j] = x
		}
		var wg sync.WaitGroup
		chunk := words / children
		for c := 0; c < children; c++ {
			lo, hi := c*chunk, (c+1)*chunk
			if c == children-1 {
				hi = words
			}
			wg.Add(1)
			go func(part []uint64) {
				defer wg.Done()
				var s uint64
				for pass := 0; pass < passes; pass++ {
					for _, v := range part {
						s += v
					}
					s = s<<1 | s>>63 // keep the passes from folding into one
				}
				sums[c] = s
			}(slab[lo:hi])
		}
		wg.Wait()
		var t uint64
		for _, s := range sums {
			t += s
		}
		sink.Add(t)
	}
	p.stop()
}

// Pointer-chase sizing: 4x the last-level cache, clamped to
// [minChase, maxChase] bytes.
const (
	fallbackLLC = 32 << 20
	minChase    = 64 << 20
	maxChase    = 512 << 20
	chaseSteps  = 1 << 14
)

// llcBytes returns the size of cpu0's highest-level data or unified cache
// from sysfs, or fallbackLLC when it cannot be read or makes no sense.
func llcBytes() int64 {
	dirs, _ := filepath.Glob("/sys/devices/system/cpu/cpu0/cache/index*")
	best, bestLevel := int64(0), 0
	for _, d := range dirs {
		read := func(name string) string {
			data, err := os.ReadFile(filepath.Join(d, name))
			if err != nil {
				return ""
			}
			return strings.TrimSpace(string(data))
		}
		if t := read("type"); t != "Unified" && t != "Data" {
			continue
		}
		level, err := strconv.Atoi(read("level"))
		if err != nil || level < bestLevel {
			continue
		}
		size, ok := parseCacheSize(read("size"))
		if !ok {
			continue
		}
		if level > bestLevel || size > best {
			best, bestLevel = size, level
		}
	}
	if best <= 0 {
		return fallbackLLC
	}
	return best
}

// parseCacheSize parses sysfs cache sizes such as "32768K", "1M" or
// "65536" (bytes).
func parseCacheSize(s string) (int64, bool) {
	mult := int64(1)
	switch {
	case strings.HasSuffix(s, "K"):
		mult, s = 1<<10, strings.TrimSuffix(s, "K")
	case strings.HasSuffix(s, "M"):
		mult, s = 1<<20, strings.TrimSuffix(s, "M")
	case strings.HasSuffix(s, "G"):
		mult, s = 1<<30, strings.TrimSuffix(s, "G")
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 || n > 1<<40/mult {
		return 0, false
	}
	return n * mult, true
}

// chaseBytes is the size of the pointer-chase array: 4x the LLC, clamped.
func chaseBytes() int64 {
	return min(max(4*llcBytes(), minChase), maxChase)
}

// sattolo returns a random cyclic permutation of n elements (a single
// n-cycle: following next[i] from any i visits every index), built with
// Sattolo's algorithm from a fixed seed.
func sattolo(n int) []uint32 {
	next := make([]uint32, n)
	for i := range next {
		next[i] = uint32(i)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for i := n - 1; i > 0; i-- {
		j := r.Uint32N(uint32(i)) // j < i: that makes it one cycle
		next[i], next[j] = next[j], next[i]
	}
	return next
}

// BenchmarkPointerChase: GOMAXPROCS goroutines per op each follow a
// random single-cycle permutation (Sattolo) for 1<<14 dependent loads,
// over an array 4x the last-level cache (64-512 MiB), so nearly every
// step is a DRAM (and TLB) miss and nothing hides its latency. It
// stresses pure memory latency: the array is first touched by the
// benchmark goroutine's thread, so on a NUMA machine its pages sit on one
// node and a goroutine whose P runs on another node pays the remote-DRAM
// latency on every step; ns/step (the per-goroutine latency of one step,
// since the goroutines chase in parallel) shows it directly. Each
// goroutine carries on from where it stopped in the previous op, so an op
// never re-reads lines a previous op left in the cache.
//
// The permutation takes about a second to build for 128 MiB, and the
// testing package calls a benchmark several times while it sizes b.N,
// so it is built once per process and kept: a process that runs other
// benchmarks after this one (go test -bench .) carries it as live heap,
// which slows their GC pacing. The harness runs one benchmark a process.
func BenchmarkPointerChase(b *testing.B) {
	next := chasePermutation()
	g := runtime.GOMAXPROCS(0)
	pos := make([]uint32, g)
	for k := range pos {
		pos[k] = uint32(k * (len(next) / g))
	}
	p := start(b)
	t0 := time.Now()
	for i := 0; i < b.N; i++ {
		var wg sync.WaitGroup
		for k := 0; k < g; k++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				x := pos[k]
				for s := 0; s < chaseSteps; s++ {
					x = next[x]
				}
				pos[k] = x
			}()
		}
		wg.Wait()
	}
	elapsed := time.Since(t0)
	p.stop()
	var t uint64
	for _, x := range pos {
		t += uint64(x)
	}
	sink.Add(t)
	b.ReportMetric(float64(elapsed.Nanoseconds())/(float64(b.N)*chaseSteps), "ns/step")
}

var chasePermutation = sync.OnceValue(func() []uint32 { return sattolo(int(chaseBytes() / 4)) })

// gcNode is a small binary-tree node: two pointers and a 16-byte payload
// (32 bytes).
type gcNode struct {
	left, right *gcNode
	payload     [2]uint64
}

func gcTree(depth int, v uint64) *gcNode {
	n := &gcNode{payload: [2]uint64{v, uint64(depth)}}
	if depth > 0 {
		n.left = gcTree(depth-1, 2*v)
		n.right = gcTree(depth-1, 2*v+1)
	}
	return n
}

// GCHeavy sizing: gcRoots trees of depth gcDepth (2047 nodes, 64 KiB)
// make a live heap of about 64 MiB.
const (
	gcDepth      = 10
	gcRoots      = 1024
	gcTreesPerOp = 32
	mGCCycles    = "/gc/cycles/total:gc-cycles"
)

// BenchmarkGCHeavy has the shape of golang.org/x/benchmarks' "garbage": a
// live heap of about 64 MiB of small binary-tree nodes hangs off a slice
// of tree roots; per op each of GOMAXPROCS goroutines builds 32 new trees
// (depth 10) and replaces random roots in its own disjoint region of the
// slice, so the live heap stays at 64 MiB while every 64 MiB or so of
// allocation (GOGC=100) starts a GC cycle that marks it all. It stresses
// the GC's parallel marking and the allocator: the initial heap is first
// touched by the benchmark goroutine's thread, and each replacement tree
// by whichever thread allocated it, so on a NUMA machine mark workers (and
// the mutators' allocations from their P's mcache) read and write memory
// scattered across nodes, and which node a P's spans came from decides
// how much of that traffic is remote. Reports gc-cycles/op.
func BenchmarkGCHeavy(b *testing.B) {
	g := runtime.GOMAXPROCS(0)
	nroots := max(gcRoots, g)
	roots := make([]*gcNode, nroots)
	for i := range roots {
		roots[i] = gcTree(gcDepth, uint64(i))
	}
	rngs := make([]*rand.Rand, g)
	for k := range rngs {
		rngs[k] = rand.New(rand.NewPCG(uint64(k), 3))
	}
	gc := []metrics.Sample{{Name: mGCCycles}}
	metrics.Read(gc)
	gc0 := gc[0].Value.Uint64()
	p := start(b)
	for i := 0; i < b.N; i++ {
		var wg sync.WaitGroup
		for k := 0; k < g; k++ {
			lo, hi := k*nroots/g, (k+1)*nroots/g
			wg.Add(1)
			go func(region []*gcNode, r *rand.Rand) {
				defer wg.Done()
				for t := 0; t < gcTreesPerOp; t++ {
					region[r.IntN(len(region))] = gcTree(gcDepth, uint64(i))
				}
			}(roots[lo:hi], rngs[k])
		}
		wg.Wait()
	}
	p.stop()
	metrics.Read(gc)
	b.ReportMetric(float64(gc[0].Value.Uint64()-gc0)/float64(b.N), "gc-cycles/op")
	runtime.KeepAlive(roots)
}

// request is one RequestResponse request: a payload the client filled
// and the channel the server replies on.
type request struct {
	payload []byte
	reply   chan []byte
}

// RequestResponse sizing.
const (
	rrRequests = 16      // per client per op
	rrReqSize  = 4 << 10 // request payload
	rrRespSize = 1 << 10 // response
	rrMaxLat   = 1 << 16 // latency samples kept (reservoir)
)

// BenchmarkRequestResponse: a request/response server without the
// network stack. 2*GOMAXPROCS server goroutines read requests from one
// shared channel; per op 4*GOMAXPROCS clients each send 16 requests, one
// at a time, waiting for each reply. A request carries a 4 KiB payload
// the client allocated and filled; the server hashes it (FNV-1a), fills a
// fresh 1 KiB response and replies on the request's channel. It stresses
// wake-up placement and data hand-off: the payload is first touched on
// the client's node and the response on the server's, so on a NUMA
// machine a server goroutine woken on a remote node's P reads the payload
// from remote memory (or a remote cache), and the client then reads the
// response back across nodes. Reports p50/p99-latency-ns of the round
// trips (a reservoir sample of at most 1<<16).
func BenchmarkRequestResponse(b *testing.B) {
	g := runtime.GOMAXPROCS(0)
	reqs := make(chan *request)
	var servers sync.WaitGroup
	for s := 0; s < 2*g; s++ {
		servers.Add(1)
		go func() {
			defer servers.Done()
			for rq := range reqs {
				x := uint64(14695981039346656037) // FNV-1a
				for _, c := range rq.payload {
					x = (x ^ uint64(c)) * 1099511628211
				}
				resp := make([]byte, rrRespSize)
				for j := range resp {
					resp[j] = byte(x >> (j % 8 * 8))
				}
				rq.reply <- resp
			}
		}()
	}
	clients := 4 * g
	lat := make([][rrRequests]time.Duration, clients)
	replies := make([]chan []byte, clients)
	for c := range replies {
		replies[c] = make(chan []byte, 1)
	}
	samples := make([]time.Duration, 0, rrMaxLat)
	seen := 0
	rr := rand.New(rand.NewPCG(4, 5))
	p := start(b)
	for i := 0; i < b.N; i++ {
		var wg sync.WaitGroup
		for c := 0; c < clients; c++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var got uint64
				x := uint64(i)<<32 | uint64(c) | 1
				for r := 0; r < rrRequests; r++ {
					payload := make([]byte, rrReqSize)
					for j := 0; j < len(payload); j += 8 {
						x ^= x << 13
						x ^= x >> 7
						x ^= x << 17
						binary.LittleEndian.PutUint64(payload[j:], x)
					}
					t0 := time.Now()
					reqs <- &request{payload: payload, reply: replies[c]}
					resp := <-replies[c]
					lat[c][r] = time.Since(t0)
					got += uint64(resp[0]) + uint64(resp[len(resp)-1])
				}
				sink.Add(got)
			}()
		}
		wg.Wait()
		for c := range lat {
			for _, d := range lat[c] {
				seen++
				if len(samples) < rrMaxLat {
					samples = append(samples, d)
				} else if j := rr.IntN(seen); j < rrMaxLat {
					samples[j] = d
				}
			}
		}
	}
	p.stop()
	close(reqs)
	servers.Wait()
	reportQuantiles(b, samples, "latency", 0.5, 0.99)
}

func TestParseCacheSize(t *testing.T) {
	for s, want := range map[string]int64{"32768K": 32 << 20, "1M": 1 << 20, "65536": 65536, "2G": 2 << 30, "": 0, "K": 0, "12X": 0, "-1K": 0} {
		if got, ok := parseCacheSize(s); got != want || ok != (want > 0) {
			t.Errorf("parseCacheSize(%q) = %d, %v; want %d", s, got, ok, want)
		}
	}
	if n := chaseBytes(); n < minChase || n > maxChase {
		t.Errorf("chaseBytes() = %d, outside [%d, %d]", n, minChase, maxChase)
	}
	next := sattolo(1000)
	x, steps := uint32(0), 0
	for {
		x = next[x]
		steps++
		if x == 0 {
			break
		}
	}
	if steps != len(next) {
		t.Errorf("sattolo(1000) has a cycle of %d, not one of 1000", steps)
	}
}
