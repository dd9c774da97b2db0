package main

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/schedlab/schedlab/src/guesttest/pages"
)

// checkConfine: with numa=1 (numaconfine=1, the default) and a GOMAXPROCS
// that fits one node's CPUs, every thread's mask is that node's CPUs and
// at least 99% of the heap pages the process writes, fresh and recycled,
// small and large objects, sit on it; raising GOMAXPROCS past the node
// at run time widens every thread to the process's mask again. A wider
// GOMAXPROCS, numaconfine=0 and a mask narrowed by taskset are not
// confined. It needs two or more CPUs per node (schedlab vm -cpus), and
// says "skip" without them.
func checkConfine(ns []node) error {
	k := len(expand(ns[0].cpus))
	for _, n := range ns {
		k = min(k, len(expand(n.cpus)))
	}
	if k < 2 {
		fmt.Println("skip confine: a node has fewer than two CPUs")
		return nil
	}
	procs := "GOMAXPROCS=" + strconv.Itoa(k)
	out, err := runEnv("numa=1", []string{procs}, nil, "child-confine", "raise")
	if err != nil {
		return err
	}
	var confined *node
	masks, _, err := parseMasks(out)
	if err != nil {
		return err
	}
	for i := range ns {
		if masks[0] == ns[i].cpus {
			confined = &ns[i]
		}
	}
	if confined == nil {
		return fmt.Errorf("%s: a thread's mask is %s, no node's CPUs:\n%s", procs, masks[0], out)
	}
	for _, m := range masks {
		if m != confined.cpus {
			return fmt.Errorf("%s: threads on %s and %s, want all on node %d's:\n%s", procs, masks[0], m, confined.id, out)
		}
	}
	for _, what := range []string{"fresh small", "fresh large", "recycled small", "recycled large"} {
		var on, all int
		if i := strings.Index(out, "heap "+what+" "); i < 0 {
			return fmt.Errorf("no heap %s line:\n%s", what, out)
		} else {
			fmt.Sscanf(out[i+len("heap "+what+" "):], "%d/%d", &on, &all)
		}
		fmt.Printf("confine: %s pages on node %d: %d of %d\n", what, confined.id, on, all)
		if all == 0 || float64(on) < 0.99*float64(all) {
			return fmt.Errorf("%s: %d of %d %s heap pages on node %d, want 99%%:\n%s", procs, on, all, what, confined.id, out)
		}
	}
	for _, l := range strings.Split(out, "\n") {
		if m, ok := strings.CutPrefix(l, "raised "); ok && m != processMask {
			return fmt.Errorf("after GOMAXPROCS was raised a thread's mask is %s, want %s:\n%s", m, processMask, out)
		}
	}
	if !strings.Contains(out, "raised ") {
		return fmt.Errorf("no masks after GOMAXPROCS was raised:\n%s", out)
	}

	// Not confined: too many Ps, the knob off, a narrowed mask.
	narrow := ns[0].cpus + "," + strconv.Itoa(expand(ns[1].cpus)[0])
	for _, c := range []struct {
		godebug, procs string
		prefix         []string
		want           string
	}{
		{"numa=1", "GOMAXPROCS=" + strconv.Itoa(len(expand(confined.cpus))+1), nil, processMask},
		{"numa=1,numaconfine=0", procs, nil, processMask},
		{"numa=1", "GOMAXPROCS=1", []string{"taskset", "-c", narrow}, ""},
	} {
		out, err := runEnv(c.godebug, []string{c.procs}, c.prefix, "child-threads")
		if err != nil {
			return err
		}
		masks, start, err := parseMasks(out)
		if err != nil {
			return err
		}
		want := c.want
		if want == "" {
			want = start // taskset's list, as the kernel writes it
		}
		for _, m := range masks {
			if m != want {
				return fmt.Errorf("%s %s %v: a thread's mask is %s, want %s", c.godebug, c.procs, c.prefix, m, want)
			}
		}
	}
	return nil
}

// runEnv is run with env added to the child's environment.
func runEnv(godebug string, env, prefix []string, mode string, args ...string) (string, error) {
	self, err := os.Executable()
	if err != nil {
		return "", err
	}
	argv := append(append(append([]string{}, prefix...), self, mode), args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(childEnv(godebug), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("%s: %v\n%s", strings.Join(argv, " "), err, out)
	}
	return string(out), nil
}

// childConfine writes heap memory from every P, fresh and then recycled
// (collected and allocated again), in small (64-byte) and large (64 KiB)
// objects, and prints the share of the pages written on the node of the
// calling thread's mask, then every thread's mask ("thread"). With
// "raise" it then raises GOMAXPROCS to the CPU count and prints every
// thread's mask once all have widened, or after a minute ("raised").
func childConfine(args []string) {
	stop := spin()
	node := myNode()
	for _, round := range []string{"fresh", "recycled"} {
		small, large := writeHeap()
		fmt.Printf("heap %s small %s\n", round, onNode(small, node))
		fmt.Printf("heap %s large %s\n", round, onNode(large, node))
		heapSink = nil
		runtime.GC()
		runtime.GC()
	}
	for _, m := range allMasks() {
		fmt.Println("thread", m)
	}
	stop()
	if !slices.Contains(args, "raise") {
		return
	}
	runtime.GOMAXPROCS(runtime.NumCPU())
	stop = spin()
	defer stop()
	masks := allMasks()
	for end := time.Now().Add(time.Minute); time.Now().Before(end); masks = allMasks() {
		if !slices.ContainsFunc(masks, func(m string) bool { return m != processMask }) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, m := range masks {
		fmt.Println("raised", m)
	}
}

// myNode is the node of the CPU the calling thread runs on.
func myNode() int {
	n, _ := pages.CPUNode()
	return n
}

// heapSink keeps the written objects reachable until the next round.
var heapSink [][]byte

// writeHeap writes 32 MiB of small and 32 MiB of large objects, split
// over GOMAXPROCS goroutines, and returns the address of one object per
// page of each.
func writeHeap() (small, large []unsafe.Pointer) {
	procs := runtime.GOMAXPROCS(0)
	type result struct {
		objs         [][]byte
		small, large []unsafe.Pointer
	}
	res := make(chan result)
	for range procs {
		go func() {
			var r result
			for range (32 << 20) / 64 / procs {
				b := make([]byte, 64)
				b[0] = 1
				r.objs = append(r.objs, b)
				if uintptr(unsafe.Pointer(&b[0]))%pages.Size < 64 {
					r.small = append(r.small, unsafe.Pointer(&b[0]))
				}
			}
			for range (32 << 20) / (64 << 10) / procs {
				b := make([]byte, 64<<10)
				for i := 0; i < len(b); i += pages.Size {
					b[i] = 1
					r.large = append(r.large, unsafe.Pointer(&b[i]))
				}
				r.objs = append(r.objs, b)
			}
			res <- r
		}()
	}
	for range procs {
		r := <-res
		heapSink = append(heapSink, r.objs...)
		small = append(small, r.small...)
		large = append(large, r.large...)
	}
	return small, large
}

// onNode returns "ON/ALL": how many of the pages holding ps are on node.
func onNode(ps []unsafe.Pointer, node int) string {
	on := 0
	for _, p := range ps {
		if n, ok := pages.Node(p); ok && n == node {
			on++
		}
	}
	return fmt.Sprintf("%d/%d", on, len(ps))
}
