package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/metrics"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/schedlab/schedlab/src/guesttest/pages"
)

// checkNumamem: with numa=1,numabind=1,numamem=1, the recycled heap pages
// a goroutine writes sit on its thread's (its P's) node, and the runtime
// counts the pages it moved; without numamem they sit wherever their
// first writer ran (reported, not checked: about 1/nodes by chance).
func checkNumamem(ns []node) error {
	var control string
	for _, godebug := range []string{"numa=1,numabind=1", "numa=1,numabind=1,numamem=1"} {
		out, err := run(godebug, nil, "child-numamem")
		if err != nil {
			return err
		}
		var recycled, onNode, moved, other, calls, spans uint64
		if _, err := fmt.Sscanf(out, "numamem %d %d %d %d %d %d", &recycled, &onNode, &moved, &other, &calls, &spans); err != nil {
			return fmt.Errorf("GODEBUG=%s: unexpected output %q", godebug, out)
		}
		share := float64(onNode) / float64(max(recycled, 1))
		if godebug == "numa=1,numabind=1" {
			if moved+other+calls+spans != 0 {
				return fmt.Errorf("GODEBUG=%s: /memory/numa counters %d moved, %d others, %d system calls, %d spans; want 0 without numamem", godebug, moved, other, calls, spans)
			}
			control = fmt.Sprintf("%.0f%% of %d recycled pages on the writer's node without numamem", 100*share, recycled)
			continue
		}
		// 80%: without numamem the share is about 1/nodes (48% and
		// 29-31% in 2- and 4-node guests); with it 94-99.8% there, less
		// with the kernel's balancer on, which moves some pages back
		// towards their other readers.
		// Each span taken costs at least its query (one per 64 pages).
		if spans == 0 || calls < spans {
			return fmt.Errorf("GODEBUG=%s: %d system calls for %d spans taken; want at least one per span", godebug, calls, spans)
		}
		if recycled < 500 || share < 0.8 || moved == 0 {
			return fmt.Errorf("GODEBUG=%s: %d of %d recycled pages (%.0f%%) on the writer's node, %d pages moved; want at least 500 pages, 80%% and some moved (%s)",
				godebug, onNode, recycled, 100*share, moved, control)
		}
		fmt.Printf("numamem: %.1f%% of %d recycled pages on the writer's node, %d moved, %.2f system calls per span (%d for %d spans) (%s)\n",
			100*share, recycled, moved, float64(calls)/float64(spans), calls, spans, control)
	}
	return nil
}

// childNumamem makes every P write recycled heap pages: each round,
// GOMAXPROCS goroutines fill 2048 fresh 4 KiB buffers each, which are
// then dropped and collected, so that the next round's buffers reuse
// pages other Ps wrote. It prints the recycled pages sampled (resident
// before the write), those on the writer's node, and the runtime's
// moved and other (local, fresh, unmoved) page counts, its system calls and
// the spans Ps took.
func childNumamem() {
	const rounds, bufs = 6, 2048
	var recycled, onNode [64]uint64
	g := runtime.GOMAXPROCS(0)
	for r := 0; r < rounds; r++ {
		var wg sync.WaitGroup
		for k := 0; k < g; k++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				keep := make([][]byte, 0, bufs)
				for range bufs {
					b := make([]byte, pages.Size)
					writer, ok1 := pages.CPUNode()
					res, ok2 := pages.Resident(unsafe.Pointer(&b[0]))
					b[0] = 1
					node, ok3 := pages.Node(unsafe.Pointer(&b[0]))
					switch {
					case !ok1 || !ok2 || !ok3:
						// not sampled: a system call failed
					case res:
						recycled[k%64]++
						if writer == node {
							onNode[k%64]++
						}
					}
					keep = append(keep, b)
				}
				runtime.KeepAlive(keep)
			}()
		}
		wg.Wait()
		runtime.GC()
	}
	var sumR, sumO uint64
	for k := range recycled {
		sumR += recycled[k]
		sumO += onNode[k]
	}
	s := []metrics.Sample{{Name: "/memory/numa/pages-moved:pages"}, {Name: "/memory/numa/pages-local:pages"},
		{Name: "/memory/numa/pages-fresh:pages"}, {Name: "/memory/numa/pages-unmoved:pages"},
		{Name: "/memory/numa/syscalls:calls"}, {Name: "/memory/numa/spans:spans"}}
	metrics.Read(s)
	value := func(x metrics.Sample) uint64 {
		if x.Value.Kind() == metrics.KindUint64 {
			return x.Value.Uint64()
		}
		return 0
	}
	other := value(s[1]) + value(s[2]) + value(s[3])
	fmt.Printf("numamem %d %d %d %d %d %d\n", sumR, sumO, value(s[0]), other, value(s[4]), value(s[5]))
}

// checkExempt: with numa=1,numaexempt=1 the heap's mappings carry the
// policy local in numa_maps, which the kernel's NUMA balancer does not
// scan; without the knob they carry the default policy.
func checkExempt(ns []node) error {
	for _, c := range []struct{ godebug, want string }{{"numa=1", "default"}, {"numa=1,numaexempt=1", "local"}} {
		out, err := run(c.godebug, nil, "child-exempt")
		if err != nil {
			return err
		}
		var policies []string
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			if p, ok := strings.CutPrefix(l, "heap policy "); ok {
				policies = append(policies, p)
			}
		}
		if len(policies) == 0 {
			return fmt.Errorf("GODEBUG=%s: no heap mapping found in numa_maps:\n%s", c.godebug, out)
		}
		for _, p := range policies {
			if p != c.want {
				return fmt.Errorf("GODEBUG=%s: heap mappings with policies %v, want all %s", c.godebug, policies, c.want)
			}
		}
	}
	return nil
}

// childExempt grows the heap past its first arena and prints the policy
// of every numa_maps line that holds one of its objects' pages.
func childExempt() {
	var keep [][]byte
	for range 96 {
		keep = append(keep, make([]byte, 1<<20)) // 96 MiB: more than one 64 MiB arena
		keep[len(keep)-1][0] = 1
	}
	data, err := os.ReadFile("/proc/self/numa_maps")
	if err != nil {
		fmt.Println("numa_maps:", err)
		return
	}
	type mapping struct {
		start  uint64
		policy string
	}
	var maps []mapping
	for _, l := range strings.Split(string(data), "\n") {
		f := strings.Fields(l)
		if len(f) < 2 {
			continue
		}
		a, err := strconv.ParseUint(f[0], 16, 64)
		if err == nil {
			maps = append(maps, mapping{a, f[1]})
		}
	}
	seen := map[uint64]bool{}
	for _, b := range keep {
		p := uint64(uintptr(unsafe.Pointer(&b[0])))
		// The mapping that holds p is the last one starting at or below it.
		i := sort.Search(len(maps), func(i int) bool { return maps[i].start > p }) - 1
		if i >= 0 && !seen[maps[i].start] {
			seen[maps[i].start] = true
			fmt.Println("heap policy", maps[i].policy)
		}
	}
	runtime.KeepAlive(keep)
}
