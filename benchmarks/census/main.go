// Command census is the instruction census's workload: small scheduler-
// heavy programs whose instruction count repeats within 0.1% from run to
// run at GOMAXPROCS=1 under valgrind, whatever else the machine does.
//
// Each workload only hands goroutines to one another (channels, a
// WaitGroup, Gosched, system calls) or allocates with the collector off
// (alloc); none waits on time, so neither
// sysmon's time-based preemption nor a timer decides the order in which
// goroutines run. A workload whose order depends on time (a select loop
// served by several producers, a contended sync.Mutex, whose starvation
// mode starts after a 1 ms wait) does not belong here: its count moves
// with the machine's load (see docs/census.md).
//
// Usage: census WORKLOAD [N]; census -list prints the workloads.
package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"sort"
	"strconv"
	"sync"
	"syscall"
)

// workloads maps a name to a function that runs n units of it.
var workloads = map[string]func(n int){
	"pingpong": pingPong,
	"ring":     tokenRing,
	"forkjoin": forkJoin,
	"syscall":  syscallLoop,
	"gosched":  goschedPair,
	"alloc":    allocLoop,
}

// defaultN is each workload's unit count: about 100M instructions.
var defaultN = map[string]int{
	"pingpong": 50000,
	"ring":     3000,
	"forkjoin": 20,
	"syscall":  100000,
	"gosched":  50000,
	"alloc":    50000,
}

// pingPong sends a value back and forth n times over unbuffered
// channels: every round trip parks and readies a goroutine twice (ready,
// wakep, schedule, execute).
func pingPong(n int) {
	ping, pong := make(chan int), make(chan int)
	go func() {
		for v := range ping {
			pong <- v + 1
		}
		close(pong)
	}()
	for i := 0; i < n; i++ {
		ping <- i
		<-pong
	}
	close(ping)
	<-pong
}

// tokenRing passes a token n times around a ring of 16 goroutines.
func tokenRing(n int) {
	const size = 16
	var chans [size]chan int
	for i := range chans {
		chans[i] = make(chan int)
	}
	var wg sync.WaitGroup
	for i := 1; i < size; i++ {
		wg.Add(1)
		go func(in, out chan int) {
			defer wg.Done()
			for v := range in {
				out <- v
			}
			close(out)
		}(chans[i-1], chans[i])
	}
	for i := 0; i < n; i++ {
		chans[0] <- i
		<-chans[size-1]
	}
	close(chans[0])
	<-chans[size-1]
	wg.Wait()
}

// forkJoin builds n binary trees of goroutines of depth 10, each node
// starting two children and waiting for them: goroutine creation, exit
// and the WaitGroup's park and ready.
func forkJoin(n int) {
	for i := 0; i < n; i++ {
		tree(10)
	}
}

func tree(depth int) {
	if depth == 0 {
		return
	}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { tree(depth - 1); wg.Done() }()
	go func() { tree(depth - 1); wg.Done() }()
	wg.Wait()
}

// syscallLoop makes n write system calls to /dev/null, each through
// entersyscall and exitsyscall.
func syscallLoop(n int) {
	fd, err := syscall.Open("/dev/null", syscall.O_WRONLY, 0)
	if err != nil {
		fmt.Fprintln(os.Stderr, "census:", err)
		os.Exit(1)
	}
	b := []byte{0}
	for i := 0; i < n; i++ {
		if _, err := syscall.Write(fd, b); err != nil {
			fmt.Fprintln(os.Stderr, "census:", err)
			os.Exit(1)
		}
	}
	syscall.Close(fd)
}

// allocSink keeps allocLoop's objects reachable until it returns.
var allocSink [][]byte

// allocLoop allocates n units of heap memory with the collector off (a
// GC cycle's background work follows the clock): each unit a 32-byte
// and a 1 KiB object, and every 64th unit a 40 KiB one, so the count
// covers mallocgc's small paths, mcache refills from fresh spans and
// large allocations (about 55 MB in all, retained).
func allocLoop(n int) {
	debug.SetGCPercent(-1)
	allocSink = make([][]byte, 0, 2*n+n/64)
	for i := 0; i < n; i++ {
		allocSink = append(allocSink, make([]byte, 32), make([]byte, 1<<10))
		if i%64 == 0 {
			allocSink = append(allocSink, make([]byte, 40<<10))
		}
	}
	allocSink = nil
}

// goschedPair runs two goroutines that yield to each other n times each.
func goschedPair(n int) {
	var wg sync.WaitGroup
	wg.Add(2)
	for j := 0; j < 2; j++ {
		go func() {
			defer wg.Done()
			for i := 0; i < n; i++ {
				runtime.Gosched()
			}
		}()
	}
	wg.Wait()
}

func main() {
	if len(os.Args) == 2 && os.Args[1] == "-list" {
		var names []string
		for name := range workloads {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			fmt.Println(name, defaultN[name])
		}
		return
	}
	if len(os.Args) < 2 || len(os.Args) > 3 {
		fmt.Fprintln(os.Stderr, "usage: census WORKLOAD [N] | census -list")
		os.Exit(2)
	}
	run, ok := workloads[os.Args[1]]
	if !ok {
		fmt.Fprintf(os.Stderr, "census: unknown workload %q (census -list)\n", os.Args[1])
		os.Exit(2)
	}
	n := defaultN[os.Args[1]]
	if len(os.Args) == 3 {
		v, err := strconv.Atoi(os.Args[2])
		if err != nil || v < 0 {
			fmt.Fprintf(os.Stderr, "census: N must be a non-negative integer, not %q\n", os.Args[2])
			os.Exit(2)
		}
		n = v
	}
	run(n)
}
