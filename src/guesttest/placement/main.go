//go:build linux && amd64

// Command placement measures where a P's heap pages land on a real
// multi-node kernel: the baseline that heap placement by node (issue 30)
// builds on. Built with CGO_ENABLED=0 and run in a guest (schedlab vm
// -nodes 2 -- placement), it runs each allocation pattern below in a
// child process per variant (a GODEBUG setting) and round, on
// GOMAXPROCS goroutines. For sampled pages of what the goroutines
// allocate it records three things at the moment of the first write:
//
//   - the node of the CPU the allocating thread runs on (getcpu); with
//     numabind=1 that is its P's node, since the thread is bound there;
//   - whether the page was resident before the write (mincore): if not,
//     the page is fresh and this write faults it in, so the kernel's
//     first-touch policy puts it on the writer's node; if so, it is
//     recycled: heap memory an earlier GC cycle swept and the allocator
//     handed out again, which stays where it was first faulted. With
//     transparent huge pages, a write can also fault in the 2 MiB around
//     it, so a fresh page next to one another span touched first counts
//     as recycled too (and sits where that span's writer ran): a variant
//     named with nothp: runs with them off (prctl PR_SET_THP_DISABLE) to
//     tell the two apart;
//   - the node the page sits on after the write
//     (get_mempolicy(MPOL_F_NODE|MPOL_F_ADDR)).
//
// At the end of each child it adds the Go heap's resident pages by node
// from /proc/self/numa_maps. The patterns have the shapes of the four
// memory-bound workloads (benchmarks/workloads/memory_test.go):
//
//   - fanout: per op one goroutine allocates an 8 MiB []uint64 and fills
//     it, then 4*GOMAXPROCS goroutines read it (FanOutSharedData);
//   - chase: one goroutine allocates and fills a 64 MiB []uint32 once
//     (PointerChase's array);
//   - gcheavy: a 64 MiB live heap of 32-byte tree nodes in which every
//     goroutine keeps replacing trees (GCHeavy), so GC recycles spans;
//   - reqresp: clients allocate 4 KiB payloads, servers 1 KiB responses
//     (RequestResponse).
//
// Output ($OUT/placement.tsv, and a summary on stdout): rows of kind
// metric, the runtime's /memory/numa page counts (GODEBUG numamem) at the
// end of the child, in the class column; rows of kind sample, one per variant, round, pattern, class (fresh, recycled),
// writer's node and page's node, whose value is the number of pages
// sampled; and rows of kind numa_maps, whose value is the heap's MiB on
// the page_node column's node at the end of the child.
//
// Usage: placement [-rounds N] [-ops N] [-v name=GODEBUG]... (default
// variants: off, numa1, bind1).
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"unsafe"

	"github.com/schedlab/schedlab/src/guesttest/pages"
)

const (
	sysGetcpu       = 309 // amd64
	mpolFNode       = 1
	mpolFAddr       = 2
	pageSize        = 4096
	maxNodes        = 8
	arenaSize       = 64 << 20 // heapArenaBytes on linux/amd64
	childFlag       = "-child"
	noTHP           = "nothp:"
	prSetTHPDisable = 41
	outputFile      = "placement.tsv"
)

var patterns = []string{"fanout", "chase", "gcheavy", "reqresp"}

func main() {
	if len(os.Args) > 2 && os.Args[1] == childFlag {
		child(os.Args[2], os.Args[3:])
		return
	}
	rounds := flag.Int("rounds", 3, "child processes per variant and pattern")
	ops := flag.Int("ops", 0, "operations per child (0: each pattern's default)")
	var variants []string
	flag.Func("v", "a variant, name=[nothp:]GODEBUG (repeatable; nothp: with transparent huge pages off for the process; default off=, numa1=numa=1, bind1=numa=1,numabind=1)", func(s string) error {
		if !strings.Contains(s, "=") {
			return fmt.Errorf("%q: want name=GODEBUG", s)
		}
		variants = append(variants, s)
		return nil
	})
	flag.Parse()
	if len(variants) == 0 {
		variants = []string{"off=", "numa1=numa=1", "bind1=numa=1,numabind=1"}
	}
	var rows []string
	for r := 1; r <= *rounds; r++ {
		// Rounds outermost and variants interleaved within, as the
		// harness does: a drift in the guest hits every variant alike.
		for _, p := range patterns {
			for _, v := range variants {
				name, godebug, _ := strings.Cut(v, "=")
				thp := "default"
				if g, ok := strings.CutPrefix(godebug, noTHP); ok {
					godebug, thp = g, "off"
				}
				cmd := exec.Command(os.Args[0], childFlag, p, strconv.Itoa(*ops), thp)
				cmd.Env = append(os.Environ(), "GODEBUG="+godebug)
				cmd.Stderr = os.Stderr
				out, err := cmd.Output()
				if err != nil {
					fmt.Fprintf(os.Stderr, "placement: %s %s round %d: %v\n", name, p, r, err)
					os.Exit(1)
				}
				for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
					rows = append(rows, fmt.Sprintf("%s\t%d\t%s", name, r, l))
				}
			}
		}
	}
	header := "variant\tround\tkind\tpattern\tclass\twriter_node\tpage_node\tvalue\n"
	if dir := os.Getenv("OUT"); dir != "" {
		if err := os.WriteFile(filepath.Join(dir, outputFile), []byte(header+strings.Join(rows, "\n")+"\n"), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "placement:", err)
			os.Exit(1)
		}
	}
	fmt.Println("transparent huge pages:", thp())
	summarise(os.Stdout, variants, rows, *rounds)
}

// summarise prints, per variant, pattern and class, the share of sampled
// pages on their writer's node over all rounds, and the heap's split by
// node from numa_maps.
func summarise(w *os.File, variants []string, rows []string, rounds int) {
	type key struct{ v, p, c string }
	on, all := map[key]int{}, map[key]int{}
	heap := map[key][maxNodes]float64{}
	metric := map[key]float64{}
	for _, r := range rows {
		f := strings.Split(r, "\t")
		if len(f) != 8 {
			continue
		}
		k := key{f[0], f[3], f[4]}
		n, _ := strconv.ParseFloat(f[7], 64)
		switch f[2] {
		case "sample":
			all[k] += int(n)
			if f[5] == f[6] {
				on[k] += int(n)
			}
		case "metric":
			mv := metric[key{f[0], f[3], f[4]}]
			metric[key{f[0], f[3], f[4]}] = mv + n
		case "numa_maps":
			node, _ := strconv.Atoi(f[6])
			h := heap[k]
			h[node] += n
			heap[k] = h
		}
	}
	fmt.Fprintf(w, "%-20s %-8s %-9s %8s %8s\n", "variant", "pattern", "class", "pages", "on-node")
	for _, v := range variants {
		name, _, _ := strings.Cut(v, "=")
		for _, p := range patterns {
			for _, c := range []string{"fresh", "recycled"} {
				k := key{name, p, c}
				if all[k] == 0 {
					fmt.Fprintf(w, "%-20s %-8s %-9s %8d %8s\n", name, p, c, 0, "-")
					continue
				}
				fmt.Fprintf(w, "%-20s %-8s %-9s %8d %7.1f%%\n", name, p, c, all[k], 100*float64(on[k])/float64(all[k]))
			}
			h := heap[key{name, p, "heap"}]
			var parts []string
			for n, mib := range h {
				if mib > 0 {
					parts = append(parts, fmt.Sprintf("N%d %.1f MiB", n, mib/float64(rounds)))
				}
			}
			fmt.Fprintf(w, "%-20s %-8s heap (numa_maps, mean of rounds): %s\n", name, p, strings.Join(parts, ", "))
			var ms []string
			for _, m := range memMetrics {
				if v, ok := metric[key{name, p, "pages-" + m}]; ok {
					ms = append(ms, fmt.Sprintf("%s %.0f", m, v/float64(rounds)))
				}
			}
			if len(ms) > 0 {
				fmt.Fprintf(w, "%-20s %-8s /memory/numa pages (mean of rounds): %s\n", name, p, strings.Join(ms, ", "))
			}
		}
	}
}

// A tally counts sampled pages by class, writer's node and page's node.
type tally struct {
	n [2][maxNodes][maxNodes]atomic.Int64 // [recycled][writer][page]
	// lo and hi bound the sampled pages: the heap's arenas, whose base
	// the runtime randomises, are the mappings from lo's arena to hi.
	lo, hi atomic.Uintptr
}

// touch samples the page holding p just before its first write: the
// writer's node, whether the page was resident, then write, then the
// page's node. write must store to p.
func (t *tally) touch(p unsafe.Pointer, write func()) {
	page := uintptr(p) &^ (pageSize - 1)
	writer, ok := pages.CPUNode()
	res, ok2 := pages.Resident(p)
	write()
	node, ok3 := pages.Node(p)
	if !ok || !ok2 || !ok3 || writer >= maxNodes || node >= maxNodes {
		return
	}
	for l := t.lo.Load(); (l == 0 || page < l) && !t.lo.CompareAndSwap(l, page); l = t.lo.Load() {
	}
	for h := t.hi.Load(); page > h && !t.hi.CompareAndSwap(h, page); h = t.hi.Load() {
	}
	class := 0
	if res {
		class = 1
	}
	t.n[class][writer][node].Add(1)
}

func (t *tally) print(pattern string) {
	for c, class := range []string{"fresh", "recycled"} {
		for w := range maxNodes {
			for n := range maxNodes {
				if v := t.n[c][w][n].Load(); v > 0 {
					fmt.Printf("sample\t%s\t%s\t%d\t%d\t%d\n", pattern, class, w, n, v)
				}
			}
		}
	}
}

// child runs one pattern and prints its samples and the heap's numa_maps.
func child(pattern string, args []string) {
	ops := 0
	if len(args) > 0 {
		ops, _ = strconv.Atoi(args[0])
	}
	if len(args) > 1 && args[1] == "off" {
		// Before the heap grows: the flag holds for mappings faulted
		// from now on.
		if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prSetTHPDisable, 1, 0); e != 0 {
			fmt.Fprintln(os.Stderr, "placement: prctl(PR_SET_THP_DISABLE):", e)
			os.Exit(1)
		}
	}
	t := new(tally)
	switch pattern {
	case "fanout":
		fanout(t, or(ops, 24))
	case "chase":
		chase(t)
	case "gcheavy":
		gcheavy(t, or(ops, 200))
	case "reqresp":
		reqresp(t, or(ops, 200))
	default:
		fmt.Fprintf(os.Stderr, "placement: unknown pattern %q\n", pattern)
		os.Exit(2)
	}
	t.print(pattern)
	mib, err := heapByNode(t.lo.Load()&^(arenaSize-1), t.hi.Load())
	if err != nil {
		fmt.Fprintln(os.Stderr, "placement: numa_maps:", err)
		os.Exit(1)
	}
	for n, v := range mib {
		if v > 0 {
			fmt.Printf("numa_maps\t%s\theap\t-\t%d\t%.2f\n", pattern, n, v)
		}
	}
	// The runtime's own count of what numamem did (0 without it, and
	// absent from a runtime without the knob).
	for _, name := range memMetrics {
		s := []metrics.Sample{{Name: "/memory/numa/pages-" + name + ":pages"}}
		if metrics.Read(s); s[0].Value.Kind() == metrics.KindUint64 {
			fmt.Printf("metric\t%s\tpages-%s\t-\t-\t%d\n", pattern, name, s[0].Value.Uint64())
		}
	}
}

// memMetrics are the /memory/numa/pages-*:pages metrics of GODEBUG numamem.
var memMetrics = []string{"local", "moved", "fresh", "unmoved"}

func or(v, def int) int {
	if v > 0 {
		return v
	}
	return def
}

var sink atomic.Uint64

func fanout(t *tally, ops int) {
	const words = 8 << 20 / 8
	g := runtime.GOMAXPROCS(0)
	for i := 0; i < ops; i++ {
		slab := make([]uint64, words)
		for j := 0; j < words; j += pageSize / 8 {
			if j%(16*pageSize/8) == 0 { // every 16th page
				t.touch(unsafe.Pointer(&slab[j]), func() { slab[j] = uint64(i) })
			}
			for k := j; k < j+pageSize/8; k++ {
				slab[k] = uint64(k) * 0x9e3779b97f4a7c15
			}
		}
		var wg sync.WaitGroup
		chunk := words / (4 * g)
		for c := 0; c < 4*g; c++ {
			wg.Add(1)
			go func(part []uint64) {
				defer wg.Done()
				var s uint64
				for _, v := range part {
					s += v
				}
				sink.Add(s)
			}(slab[c*chunk : (c+1)*chunk])
		}
		wg.Wait()
	}
}

func chase(t *tally) {
	const n = 64 << 20 / 4
	next := make([]uint32, n)
	for j := 0; j < n; j += pageSize / 4 {
		t.touch(unsafe.Pointer(&next[j]), func() { next[j] = uint32(j + 1) })
		for k := j + 1; k < j+pageSize/4; k++ {
			next[k] = uint32(k + 1)
		}
	}
	sink.Add(uint64(next[n-1]))
}

type gcNode struct {
	left, right *gcNode
	payload     [2]uint64
}

// tree builds a tree of depth d, sampling the page of each node that
// starts a new page for this goroutine (*last): one sample a page, not
// 128.
func (t *tally) tree(d int, v uint64, last *uintptr) *gcNode {
	n := new(gcNode)
	if pg := uintptr(unsafe.Pointer(n)) &^ (pageSize - 1); pg != *last {
		*last = pg
		t.touch(unsafe.Pointer(n), func() { n.payload[0] = v })
	}
	n.payload = [2]uint64{v, uint64(d)}
	if d > 0 {
		n.left = t.tree(d-1, 2*v, last)
		n.right = t.tree(d-1, 2*v+1, last)
	}
	return n
}

func gcheavy(t *tally, ops int) {
	const depth, nroots, perOp = 10, 1024, 32
	g := runtime.GOMAXPROCS(0)
	roots := make([]*gcNode, nroots)
	var last uintptr
	for i := range roots {
		roots[i] = t.tree(depth, uint64(i), &last)
	}
	for i := 0; i < ops; i++ {
		var wg sync.WaitGroup
		for k := 0; k < g; k++ {
			region := roots[k*nroots/g : (k+1)*nroots/g]
			wg.Add(1)
			go func() {
				defer wg.Done()
				var last uintptr
				x := uint64(i*g + k + 1)
				for range perOp {
					x ^= x << 13
					x ^= x >> 7
					x ^= x << 17
					region[x%uint64(len(region))] = t.tree(depth, x, &last)
				}
			}()
		}
		wg.Wait()
	}
	runtime.KeepAlive(roots)
}

func reqresp(t *tally, ops int) {
	type request struct {
		payload []byte
		reply   chan []byte
	}
	g := runtime.GOMAXPROCS(0)
	reqs := make(chan request)
	var servers sync.WaitGroup
	for range 2 * g {
		servers.Add(1)
		go func() {
			defer servers.Done()
			var last uintptr
			for rq := range reqs {
				var x uint64 = 14695981039346656037
				for _, c := range rq.payload {
					x = (x ^ uint64(c)) * 1099511628211
				}
				resp := make([]byte, 1<<10)
				if pg := uintptr(unsafe.Pointer(&resp[0])) &^ (pageSize - 1); pg != last {
					last = pg
					t.touch(unsafe.Pointer(&resp[0]), func() { resp[0] = byte(x) })
				}
				for j := 1; j < len(resp); j++ {
					resp[j] = byte(x >> (j % 8 * 8))
				}
				rq.reply <- resp
			}
		}()
	}
	var wg sync.WaitGroup
	for c := 0; c < 4*g; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			reply := make(chan []byte, 1)
			for i := 0; i < ops; i++ {
				payload := make([]byte, 4<<10)
				t.touch(unsafe.Pointer(&payload[0]), func() { payload[0] = byte(i) })
				for j := 1; j < len(payload); j++ {
					payload[j] = byte(i + j + c)
				}
				reqs <- request{payload, reply}
				sink.Add(uint64((<-reply)[0]))
			}
		}()
	}
	wg.Wait()
	close(reqs)
	servers.Wait()
}

// heapByNode sums the N<node>= pages of the mappings in
// /proc/self/numa_maps that start in [lo, hi] (the Go heap's), in MiB.
func heapByNode(lo, hi uintptr) ([maxNodes]float64, error) {
	var mib [maxNodes]float64
	f, err := os.Open("/proc/self/numa_maps")
	if err != nil {
		return mib, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 2 {
			continue
		}
		addr, err := strconv.ParseUint(fields[0], 16, 64)
		if err != nil || uintptr(addr) < lo || uintptr(addr) > hi {
			continue
		}
		psize := 4.0
		for _, kv := range fields[2:] {
			if v, ok := strings.CutPrefix(kv, "kernelpagesize_kB="); ok {
				psize, _ = strconv.ParseFloat(v, 64)
			}
		}
		for _, kv := range fields[2:] {
			k, v, ok := strings.Cut(kv, "=")
			if !ok || len(k) < 2 || k[0] != 'N' {
				continue
			}
			n, err1 := strconv.Atoi(k[1:])
			pages, err2 := strconv.ParseFloat(v, 64)
			if err1 == nil && err2 == nil && n < maxNodes {
				mib[n] += pages * psize / 1024
			}
		}
	}
	return mib, sc.Err()
}

// thp is the kernel's transparent huge page mode: with "always", a first
// touch can fault in a 2 MiB page, and the pages after the first in it
// count as resident (recycled) though they are fresh.
func thp() string {
	b, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if err != nil {
		return "unknown (" + err.Error() + ")"
	}
	return strings.TrimSpace(string(b))
}
