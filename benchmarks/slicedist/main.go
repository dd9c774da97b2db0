// Command slicedist measures how long CPU-bound goroutines actually run
// before the scheduler preempts them, and related sysmon effects, for
// several GODEBUG settings. It is a measurement program for schedlab's
// sysmon knobs (GODEBUG timeslice, sysmontick, sysmonmaxtick), not a test.
//
// Usage:
//
//	slicedist [-mode=slice|latency|sysmon] [-dur=2s] [-reps=3] [-procs=1] [settings...]
//
// Each setting is a GODEBUG value ("stock" means none). The parent runs
// one child process per setting and repetition, interleaved, and prints
// one line per child.
//
// Modes:
//   - slice: two CPU-bound goroutines at GOMAXPROCS=procs*1 per P (2*procs
//     goroutines); each records how long it ran between being switched in
//     and switched out. Prints p50/p90/p99/max of those run lengths.
//   - latency: a goroutine that sleeps 1ms in a loop and records the
//     wake-to-run delay beyond 1ms, competing with 2*procs CPU hogs.
//     Prints p50/p99/p99.9 of the delay and the hogs' throughput.
//   - sysmon: procs CPU hogs; counts the voluntary context switches of
//     sysmon's thread (one per sysmon sleep) and the process CPU time.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

var (
	mode  = flag.String("mode", "slice", "slice, latency or sysmon")
	dur   = flag.Duration("dur", 2*time.Second, "measurement time per run")
	reps  = flag.Int("reps", 3, "repetitions of each setting (interleaved)")
	procs = flag.Int("procs", 1, "GOMAXPROCS")
	child = flag.String("child", "", "internal: run one measurement, labelled")
)

func main() {
	flag.Parse()
	runtime.GOMAXPROCS(*procs)
	if *child != "" {
		switch *mode {
		case "slice":
			sliceMode(*child)
		case "latency":
			latencyMode(*child)
		case "sysmon":
			sysmonMode(*child)
		default:
			fmt.Fprintln(os.Stderr, "unknown mode", *mode)
			os.Exit(2)
		}
		return
	}
	settings := flag.Args()
	if len(settings) == 0 {
		settings = []string{"stock", "timeslice=1000", "timeslice=2000", "timeslice=5000", "timeslice=10000"}
	}
	exe, err := os.Executable()
	if err != nil {
		panic(err)
	}
	fmt.Printf("# %s %s mode=%s procs=%d dur=%v reps=%d exe=%s\n", runtime.Version(), runtime.GOARCH, *mode, *procs, *dur, *reps, filepath.Base(exe))
	for r := 0; r < *reps; r++ {
		for _, s := range settings {
			cmd := exec.Command(exe, "-mode="+*mode, "-dur="+dur.String(), "-procs="+strconv.Itoa(*procs), "-child="+s)
			env := os.Environ()
			if s != "stock" {
				env = append(env, "GODEBUG="+s)
			} else {
				env = append(env, "GODEBUG=")
			}
			cmd.Env = env
			cmd.Stdout = os.Stdout
			cmd.Stderr = os.Stderr
			if err := cmd.Run(); err != nil {
				fmt.Fprintln(os.Stderr, s, err)
			}
		}
	}
}

func pct(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	i := int(float64(len(d)-1) * p)
	return d[i]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2fms", float64(d)/1e6) }

var base = time.Now()

func now() time.Duration { return time.Since(base) }

// sliceMode: 2 goroutines per P spin; a shared owner word tells a
// goroutine, when it checks, that someone else ran since its last check.
func sliceMode(label string) {
	n := 2 * *procs
	var stop atomic.Bool
	var owner atomic.Int64
	results := make([][]time.Duration, n)
	var wg sync.WaitGroup
	for id := 1; id <= n; id++ {
		wg.Add(1)
		go func(id int64) {
			defer wg.Done()
			var runs []time.Duration
			var start, last time.Duration
			for !stop.Load() {
				t := now()
				if owner.Load() != id {
					// Switched back in: the previous run was [start, last].
					if last != 0 {
						runs = append(runs, last-start)
					}
					owner.Store(id)
					start = t
				}
				last = t
			}
			results[id-1] = runs
		}(int64(id))
	}
	time.Sleep(*dur)
	stop.Store(true)
	wg.Wait()
	var all []time.Duration
	for _, r := range results {
		// Drop the first run of each goroutine (startup).
		if len(r) > 1 {
			all = append(all, r[1:]...)
		}
	}
	slices.Sort(all)
	fmt.Printf("%-32s runs=%5d p50=%8s p90=%8s p99=%8s max=%8s\n", label, len(all),
		ms(pct(all, .5)), ms(pct(all, .9)), ms(pct(all, .99)), ms(pct(all, 1)))
}

func hog(stop *atomic.Bool, work *atomic.Int64) {
	x := uint64(1)
	for !stop.Load() {
		for range 1000 {
			x = x*6364136223846793005 + 1442695040888963407
		}
		work.Add(1)
	}
	if x == 42 {
		println()
	}
}

func latencyMode(label string) {
	var stop atomic.Bool
	var work atomic.Int64
	var wg sync.WaitGroup
	for range 2 * *procs {
		wg.Add(1)
		go func() { defer wg.Done(); hog(&stop, &work) }()
	}
	var delays []time.Duration
	end := time.Now().Add(*dur)
	t0 := time.Now()
	for time.Now().Before(end) {
		t := time.Now()
		time.Sleep(time.Millisecond)
		delays = append(delays, time.Since(t)-time.Millisecond)
	}
	el := time.Since(t0)
	stop.Store(true)
	wg.Wait()
	slices.Sort(delays)
	fmt.Printf("%-32s wakes=%5d p50=%8s p99=%8s p99.9=%8s max=%8s hogwork=%.0f/s\n", label, len(delays),
		ms(pct(delays, .5)), ms(pct(delays, .99)), ms(pct(delays, .999)), ms(pct(delays, 1)),
		float64(work.Load())/el.Seconds())
}

type threadStat struct {
	tid     int
	volSw   int64
	runtime int64 // ns, from schedstat
}

func threads() map[int]threadStat {
	m := map[int]threadStat{}
	ents, _ := os.ReadDir("/proc/self/task")
	for _, e := range ents {
		tid, _ := strconv.Atoi(e.Name())
		st := threadStat{tid: tid}
		if f, err := os.Open("/proc/self/task/" + e.Name() + "/status"); err == nil {
			sc := bufio.NewScanner(f)
			for sc.Scan() {
				if v, ok := strings.CutPrefix(sc.Text(), "voluntary_ctxt_switches:"); ok {
					st.volSw, _ = strconv.ParseInt(strings.TrimSpace(v), 10, 64)
				}
			}
			f.Close()
		}
		if b, err := os.ReadFile("/proc/self/task/" + e.Name() + "/schedstat"); err == nil {
			st.runtime, _ = strconv.ParseInt(strings.Fields(string(b))[0], 10, 64)
		}
		m[tid] = st
	}
	return m
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func sysmonMode(label string) {
	var stop atomic.Bool
	var work atomic.Int64
	var wg sync.WaitGroup
	for range *procs {
		wg.Add(1)
		go func() { defer wg.Done(); hog(&stop, &work) }()
	}
	time.Sleep(200 * time.Millisecond) // let sysmon reach steady state
	before := threads()
	c0 := cpuTime()
	t0 := time.Now()
	time.Sleep(*dur)
	el := time.Since(t0)
	c1 := cpuTime()
	after := threads()
	stop.Store(true)
	wg.Wait()
	// sysmon is the thread that sleeps the most often.
	var best threadStat
	var bestSw int64 = -1
	for tid, a := range after {
		sw := a.volSw - before[tid].volSw
		if sw > bestSw {
			best, bestSw = threadStat{tid: tid, volSw: sw, runtime: a.runtime - before[tid].runtime}, sw
		}
	}
	fmt.Printf("%-32s sysmon(tid=pid+%d) wakeups=%6.0f/s sysmon-cpu=%6.3fms/s process-cpu=%.3fs/s hogwork=%.0f/s\n", label,
		best.tid-os.Getpid(), float64(best.volSw)/el.Seconds(), float64(best.runtime)/1e6/el.Seconds(),
		(c1-c0).Seconds()/el.Seconds(), float64(work.Load())/el.Seconds())
}
