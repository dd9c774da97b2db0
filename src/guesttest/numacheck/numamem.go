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

// checkNumamem: with numa=1,numabind=1 and numamem=1 or 2, the heap pages
// a goroutine writes sit on its thread's (its P's) node. numamem=1 moves
// recycled pages there, a system call or more per span taken; numamem=2
// takes them from the node's heap window, fresh and recycled, small and
// large objects, with almost no system call once the windows have grown.
// Without numamem recycled pages sit wherever their first writer ran
// (reported, not checked: about 1/nodes by chance).
func checkNumamem(ns []node) error {
	var control string
	var controlShare float64
	for _, godebug := range []string{"numa=1,numabind=1", "numa=1,numabind=1,numamem=1", "numa=1,numabind=1,numamem=2"} {
		out, err := run(godebug, nil, "child-numamem")
		if err != nil {
			return err
		}
		var r numamemReport
		if _, err := fmt.Sscanf(out, "numamem %d %d %d %d %d %d %d %d %d %d %d %d %d %d",
			&r.pages[0][0], &r.on[0][0], &r.pages[0][1], &r.on[0][1], &r.pages[1][0], &r.on[1][0], &r.pages[1][1], &r.on[1][1],
			&r.moved, &r.other, &r.calls, &r.spans, &r.recycledCalls, &r.recycledSpans); err != nil {
			return fmt.Errorf("GODEBUG=%s: unexpected output %q", godebug, out)
		}
		switch godebug {
		case "numa=1,numabind=1":
			if r.moved+r.other+r.calls+r.spans != 0 {
				return fmt.Errorf("GODEBUG=%s: /memory/numa counters %d moved, %d others, %d system calls, %d spans; want 0 without numamem", godebug, r.moved, r.other, r.calls, r.spans)
			}
			control = fmt.Sprintf("without numamem: %s", r.shares())
			controlShare = float64(r.on[0][1]) / float64(max(r.pages[0][1], 1))
			continue
		case "numa=1,numabind=1,numamem=1":
			// Without numamem the recycled share is 1/nodes or a little
			// more (pages a P frees and takes again stay put); with it
			// 75-99.8% in these guests, depending on how the GC's
			// timing in the emulator interleaves sweeps and moves, and
			// less with the kernel's balancer on, which moves some
			// pages back towards their other readers. So: more than
			// the control by 5 points, or 80%, and pages moved.
			// Each span taken costs at least its query (one per 64 pages).
			if r.spans == 0 || r.calls < r.spans {
				return fmt.Errorf("GODEBUG=%s: %d system calls for %d spans taken; want at least one per span", godebug, r.calls, r.spans)
			}
			p, on := r.pages[0][1], r.on[0][1]
			share := float64(on) / float64(max(p, 1))
			if p < 500 || (share < 0.8 && share < controlShare+0.05) || r.moved == 0 {
				return fmt.Errorf("GODEBUG=%s: %d of %d recycled small-object pages on the writer's node, %d pages moved; want at least 500 pages, 80%% or 5 points more than without numamem, and some moved (%s)",
					godebug, on, p, r.moved, control)
			}
		default:
			// numamem=2 moves nothing and asks the kernel nothing per
			// span: its system calls are one mbind per heap growth in a
			// window. 95% of every kind of page on the writer's node,
			// at most 0.05 system calls per span once the windows
			// have grown (the rounds after the first).
			if r.moved != 0 || r.spans == 0 || r.recycledSpans == 0 {
				return fmt.Errorf("GODEBUG=%s: %d pages moved, %d spans taken (%d after the first round); want none moved and spans counted", godebug, r.moved, r.spans, r.recycledSpans)
			}
			if perSpan := float64(r.recycledCalls) / float64(r.recycledSpans); perSpan > 0.05 {
				return fmt.Errorf("GODEBUG=%s: %d system calls for %d spans after the first round (%.3f per span); want at most 0.05", godebug, r.recycledCalls, r.recycledSpans, perSpan)
			}
			// Each kind with 100 samples or more, and fresh and
			// recycled pages of both sizes together, must be 95% on
			// the writer's node. Fresh pages can be few: in the
			// 4-node guest most first-round pages are touched by the
			// allocator's zeroing before the sample looks, and a
			// goroutine that moves to another node's P between its
			// allocation and its write counts against the share.
			for phase := range 2 {
				p, on := r.pages[0][phase]+r.pages[1][phase], r.on[0][phase]+r.on[1][phase]
				if p < 100 || float64(on) < 0.95*float64(p) {
					return fmt.Errorf("GODEBUG=%s: %d of %d %s pages on the writer's node; want at least 100 pages and 95%% (%s)",
						godebug, on, p, []string{"fresh", "recycled"}[phase], control)
				}
				for size := range 2 {
					if p, on := r.pages[size][phase], r.on[size][phase]; p >= 100 && float64(on) < 0.95*float64(p) {
						return fmt.Errorf("GODEBUG=%s: %d of %d %s pages on the writer's node; want 95%% (%s)",
							godebug, on, p, numamemKinds[size][phase], control)
					}
				}
			}
		}
		fmt.Printf("numamem: GODEBUG=%s: %s, %d moved, %.3f system calls per span (%d for %d spans), %.3f after the first round (%d for %d) (%s)\n",
			godebug, r.shares(), r.moved, float64(r.calls)/float64(max(r.spans, 1)), r.calls, r.spans,
			float64(r.recycledCalls)/float64(max(r.recycledSpans, 1)), r.recycledCalls, r.recycledSpans, control)
	}
	return nil
}

// numamemReport is what childNumamem prints: pages sampled and those on
// the writer's node, by object size (small, large) and phase (fresh,
// recycled); the runtime's /memory/numa counters; and the system calls
// and spans after the first round.
type numamemReport struct {
	pages, on                    [2][2]uint64
	moved, other, calls, spans   uint64
	recycledCalls, recycledSpans uint64
}

var numamemKinds = [2][2]string{{"fresh small-object", "recycled small-object"}, {"fresh large-object", "recycled large-object"}}

func (r *numamemReport) shares() string {
	var b strings.Builder
	for size := range 2 {
		for phase := range 2 {
			if b.Len() > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%s pages %.1f%% of %d on the writer's node", numamemKinds[size][phase],
				100*float64(r.on[size][phase])/float64(max(r.pages[size][phase], 1)), r.pages[size][phase])
		}
	}
	return b.String()
}

// childNumamem makes every P write fresh and recycled heap pages of small
// and large objects: each round, GOMAXPROCS goroutines fill 2048 fresh
// 4 KiB buffers (small objects) and 128 64 KiB ones (large objects) each,
// which are then dropped and collected, so that the next round's buffers
// reuse pages other Ps wrote. For each buffer it samples the first page
// (and every page of a large one), before the write (resident:
// recycled, else fresh) and after it (its node), against the node of the
// CPU that wrote it. It prints the pages
// sampled and those on the writer's node (numamemReport), the runtime's
// moved and other (local, fresh, unmoved) page counts, its system calls
// and the spans Ps took, in all and after the first round.
func childNumamem() {
	const rounds, bufs, large = 6, 2048, 128
	var sampled, onNode [64][2][2]uint64
	g := runtime.GOMAXPROCS(0)
	var firstCalls, firstSpans uint64
	for r := 0; r < rounds; r++ {
		var wg sync.WaitGroup
		for k := 0; k < g; k++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				keep := make([][]byte, 0, bufs+large)
				for i := range bufs + large {
					size, kind := pages.Size, 0
					if i%17 == 16 && i/17 < large {
						size, kind = 64<<10, 1
					}
					b := make([]byte, size)
					// Every page of a large object, so that its
					// fresh pages, far fewer than the small
					// objects' (freed large objects' pages are
					// reused resident), are sampled enough.
					for off := 0; off < size; off += pages.Size {
						writer, ok1 := pages.CPUNode()
						res, ok2 := pages.Resident(unsafe.Pointer(&b[off]))
						b[off] = 1
						node, ok3 := pages.Node(unsafe.Pointer(&b[off]))
						if ok1 && ok2 && ok3 {
							phase := 0
							if res {
								phase = 1
							}
							sampled[k%64][kind][phase]++
							if writer == node {
								onNode[k%64][kind][phase]++
							}
						}
					}
					keep = append(keep, b)
				}
				runtime.KeepAlive(keep)
			}()
		}
		wg.Wait()
		runtime.GC()
		if r == 0 {
			firstCalls, firstSpans = numamemCounter("/memory/numa/syscalls:calls"), numamemCounter("/memory/numa/spans:spans")
		}
	}
	var r numamemReport
	for k := range sampled {
		for size := range 2 {
			for phase := range 2 {
				r.pages[size][phase] += sampled[k][size][phase]
				r.on[size][phase] += onNode[k][size][phase]
			}
		}
	}
	r.moved = numamemCounter("/memory/numa/pages-moved:pages")
	r.other = numamemCounter("/memory/numa/pages-local:pages") + numamemCounter("/memory/numa/pages-fresh:pages") + numamemCounter("/memory/numa/pages-unmoved:pages")
	r.calls, r.spans = numamemCounter("/memory/numa/syscalls:calls"), numamemCounter("/memory/numa/spans:spans")
	fmt.Printf("numamem %d %d %d %d %d %d %d %d %d %d %d %d %d %d\n",
		r.pages[0][0], r.on[0][0], r.pages[0][1], r.on[0][1], r.pages[1][0], r.on[1][0], r.pages[1][1], r.on[1][1],
		r.moved, r.other, r.calls, r.spans, r.calls-firstCalls, r.spans-firstSpans)
}

// numamemCounter reads one uint64 runtime metric, 0 if it is not one.
func numamemCounter(name string) uint64 {
	s := []metrics.Sample{{Name: name}}
	metrics.Read(s)
	if s[0].Value.Kind() == metrics.KindUint64 {
		return s[0].Value.Uint64()
	}
	return 0
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
