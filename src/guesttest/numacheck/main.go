// Command numacheck checks the patched runtime's NUMA support against a
// real multi-node kernel: built with the patched toolchain
// (CGO_ENABLED=0) and run in a guest (schedlab vm -nodes N -- numacheck),
// it reads the kernel's topology from sysfs itself and runs copies of
// itself under schedlab's knobs, with no GONUMASYSFS and no numafake:
//
//   - topology: numatrace prints the kernel's nodes, CPUs and distances;
//   - bind1, bind2: with numabind=1 (2) every thread's Cpus_allowed_list
//     is the process's mask, one node's CPUs (one CPU), and the threads
//     running Ps are bound on every node (every CPU);
//   - taskset: a process started narrowed to one CPU stays within it;
//   - narrowed: a process narrowed while it runs (taskset -a -p) follows;
//   - locked: a thread that locks itself to its goroutine gets the
//     process's mask back;
//   - exec, fork: a program started by syscall.Exec or os/exec from a
//     bound thread starts with the process's mask;
//   - numamem: with numamem=1 the recycled heap pages a goroutine writes
//     sit on its P's node; with numamem=2 its fresh and recycled pages
//     of small and large objects do, with at most 0.05 system calls per
//     span once the heap windows have grown (numamem.go);
//   - exempt: with numaexempt=1 the heap's mappings have the policy the
//     NUMA balancer skips (numamem.go);
//   - confine: with numa=1 and a GOMAXPROCS that fits one node, every
//     thread keeps to that node and so does the heap, fresh and
//     recycled; a wider GOMAXPROCS, numaconfine=0 and a taskset mask are
//     left alone (confine.go; needs two or more CPUs per node).
//
// It prints "ok NAME" or "FAIL NAME: why" per check and exits 1 if any
// failed. Usage: numacheck [check...] (default all).
package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// processMask is the mask every child starts with: this program's own,
// which runs with no knob and is not bound.
var processMask = myMask()

// A node is one node of the kernel's topology.
type node struct {
	id   int
	cpus string // cpulist as sysfs writes it
	dist string // distances, comma-separated
}

func main() {
	if len(os.Args) > 1 && strings.HasPrefix(os.Args[1], "child-") {
		child(os.Args[1], os.Args[2:])
		return
	}
	nodes, err := readNodes()
	if err != nil {
		fmt.Println("FAIL sysfs:", err)
		os.Exit(1)
	}
	if len(nodes) < 2 {
		fmt.Printf("FAIL sysfs: %d node(s); run numacheck in a guest with two or more\n", len(nodes))
		os.Exit(1)
	}
	checks := []struct {
		name string
		f    func([]node) error
	}{
		{"topology", checkTopology},
		{"bind1", func(ns []node) error { return checkBind(ns, 1) }},
		{"bind2", func(ns []node) error { return checkBind(ns, 2) }},
		{"taskset", checkTaskset},
		{"narrowed", checkNarrowed},
		{"locked", checkLocked},
		{"exec", func([]node) error { return checkStartMask("child-exec") }},
		{"fork", func([]node) error { return checkStartMask("child-fork") }},
		{"numamem", checkNumamem},
		{"exempt", checkExempt},
		{"confine", checkConfine},
	}
	failed := false
	for _, c := range checks {
		if len(os.Args) > 1 && !slices.Contains(os.Args[1:], c.name) {
			continue
		}
		if err := c.f(nodes); err != nil {
			fmt.Printf("FAIL %s: %v\n", c.name, err)
			failed = true
		} else {
			fmt.Printf("ok %s\n", c.name)
		}
	}
	if failed {
		os.Exit(1)
	}
}

func readNodes() ([]node, error) {
	dirs, err := filepath.Glob("/sys/devices/system/node/node[0-9]*")
	if err != nil {
		return nil, err
	}
	var ns []node
	for _, d := range dirs {
		id, err := strconv.Atoi(strings.TrimPrefix(filepath.Base(d), "node"))
		if err != nil {
			continue
		}
		cpus, err1 := os.ReadFile(filepath.Join(d, "cpulist"))
		dist, err2 := os.ReadFile(filepath.Join(d, "distance"))
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("%s: %v %v", d, err1, err2)
		}
		ns = append(ns, node{id, strings.TrimSpace(string(cpus)), strings.Join(strings.Fields(string(dist)), ",")})
	}
	sort.Slice(ns, func(i, j int) bool { return ns[i].id < ns[j].id })
	return ns, nil
}

// run runs a copy of this program as mode under GODEBUG (none if ""),
// with prefix (a command such as taskset) before it, and returns its
// combined output.
func run(godebug string, prefix []string, mode string, args ...string) (string, error) {
	self, err := os.Executable()
	if err != nil {
		return "", err
	}
	argv := append(append(append([]string{}, prefix...), self, mode), args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = childEnv(godebug)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("%s: %v\n%s", strings.Join(argv, " "), err, out)
	}
	return string(out), nil
}

// childEnv is this process's environment with GODEBUG replaced.
func childEnv(godebug string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GODEBUG=") {
			env = append(env, kv)
		}
	}
	if godebug != "" {
		env = append(env, "GODEBUG="+godebug)
	}
	return env
}

func checkTopology(ns []node) error {
	out, err := run("numa=1,numatrace=1", nil, "child-idle")
	if err != nil {
		return err
	}
	head := fmt.Sprintf("numa: nodes=%d source=sysfs ", len(ns))
	if !strings.Contains(out, head) {
		return fmt.Errorf("numatrace does not say %q:\n%s", head, out)
	}
	for _, n := range ns {
		want := fmt.Sprintf("numa: node %d cpus=%s ", n.id, n.cpus)
		i := strings.Index(out, want)
		if i < 0 {
			return fmt.Errorf("numatrace has no line starting %q:\n%s", want, out)
		}
		line, _, _ := strings.Cut(out[i:], "\n")
		if !strings.HasSuffix(line, " distance="+n.dist) {
			return fmt.Errorf("numatrace line %q: want distance=%s", line, n.dist)
		}
	}
	return nil
}

// threadMasks runs child-threads under godebug (and prefix) and returns
// the Cpus_allowed_list of each of its threads, and the mask of its
// first thread when main started.
func threadMasks(godebug string, prefix []string, want ...string) (masks []string, start string, err error) {
	var args []string
	if len(want) > 0 {
		args = []string{"want", strings.Join(want, ";")}
	}
	out, err := run(godebug, prefix, "child-threads", args...)
	if err != nil {
		return nil, "", err
	}
	return parseMasks(out)
}

func parseMasks(out string) (masks []string, start string, err error) {
	for _, l := range strings.Split(out, "\n") {
		if s, ok := strings.CutPrefix(l, "start "); ok {
			start = s
		}
		if m, ok := strings.CutPrefix(l, "thread "); ok {
			masks = append(masks, m)
		}
	}
	if start == "" || len(masks) == 0 {
		return nil, "", fmt.Errorf("no masks in the child's output:\n%s", out)
	}
	return masks, start, nil
}

func checkBind(ns []node, mode int) error {
	start := processMask
	want := map[string]bool{} // the bindings the threads running Ps must show
	for _, n := range ns {
		if mode == 1 {
			want[n.cpus] = true
			continue
		}
		for _, c := range expand(n.cpus) {
			want[strconv.Itoa(c)] = true
		}
	}
	masks, _, err := threadMasks(fmt.Sprintf("numa=1,numabind=%d", mode), nil, keys(want)...)
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, m := range masks {
		if m != start && !want[m] {
			return fmt.Errorf("a thread's mask is %s: neither the process's (%s) nor a binding of numabind=%d (%v)", m, start, mode, keys(want))
		}
		seen[m] = true
	}
	for w := range want {
		if !seen[w] {
			return fmt.Errorf("no thread bound to %s; masks %v", w, masks)
		}
	}
	return nil
}

func checkTaskset(ns []node) error {
	cpu := strconv.Itoa(expand(ns[len(ns)-1].cpus)[0])
	masks, start, err := threadMasks("numa=1,numabind=1", []string{"taskset", "-c", cpu})
	if err != nil {
		return err
	}
	if start != cpu {
		return fmt.Errorf("under taskset -c %s the child's first thread has mask %s", cpu, start)
	}
	for _, m := range masks {
		if m != cpu {
			return fmt.Errorf("under taskset -c %s a thread's mask is %s", cpu, m)
		}
	}
	return nil
}

// checkNarrowed narrows a running, bound process to one CPU of the first
// node with taskset -a -p: sysmon must pick the new mask up, and every
// thread must come within it (and stay: it fails if one is outside it a
// minute later), including those of the other nodes, whose binding then
// has no CPU left and falls back to the process's mask.
func checkNarrowed(ns []node) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	cpu := strconv.Itoa(expand(ns[0].cpus)[0])
	cmd := exec.Command(self, "child-threads", "wait", cpu)
	cmd.Env = childEnv("numa=1,numabind=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return err
	}
	defer cmd.Wait()
	defer stdin.Close()
	rd := bufio.NewReader(stdout)
	var head strings.Builder
	for {
		l, err := rd.ReadString('\n')
		if err != nil {
			return fmt.Errorf("child: %v after %q", err, head.String())
		}
		if l == "ready\n" {
			break
		}
		head.WriteString(l)
	}
	if out, err := exec.Command("taskset", "-a", "-p", "-c", cpu, strconv.Itoa(cmd.Process.Pid)).CombinedOutput(); err != nil {
		return fmt.Errorf("taskset -a -p -c %s: %v: %s", cpu, err, out)
	}
	stdin.Write([]byte("go\n"))
	stdin.Close()
	var rest strings.Builder
	for {
		l, err := rd.ReadString('\n')
		rest.WriteString(l)
		if err != nil {
			break
		}
	}
	masks, _, err := parseMasks(head.String() + rest.String())
	if err != nil {
		return err
	}
	for _, m := range masks {
		if m != cpu {
			return fmt.Errorf("after taskset -a -p -c %s a thread's mask is %s (all: %v)", cpu, m, masks)
		}
	}
	return nil
}

func checkLocked(ns []node) error {
	out, err := run("numa=1,numabind=1", nil, "child-locked")
	if err != nil {
		return err
	}
	var locked string
	fmt.Sscanf(out, "locked %s", &locked)
	if locked != processMask {
		return fmt.Errorf("a locked thread's mask is %q, the process's %q:\n%s", locked, processMask, out)
	}
	return nil
}

// checkStartMask runs mode (child-exec or child-fork) under binding: it
// starts a program from a bound thread, which reports its mask at start.
func checkStartMask(mode string) error {
	out, err := run("numa=1,numabind=2", nil, mode)
	if err != nil {
		return err
	}
	start := processMask
	var bound, got string
	for _, l := range strings.Split(out, "\n") {
		if s, ok := strings.CutPrefix(l, "bound "); ok {
			bound = s
		}
		if s, ok := strings.CutPrefix(l, "new "); ok {
			got = s
		}
	}
	if bound == "" || bound == start {
		return fmt.Errorf("the starting thread was not bound (mask %q, process %q), so this checks nothing:\n%s", bound, start, out)
	}
	if got != start {
		return fmt.Errorf("the new program started with mask %q, bound thread %q, process %q", got, bound, start)
	}
	return nil
}

// child runs one of the programs the checks start.
func child(mode string, args []string) {
	start := myMask()
	switch mode {
	case "child-numamem":
		childNumamem()
	case "child-exempt":
		childExempt()
	case "child-confine":
		fmt.Println("start", start)
		childConfine(args)
	case "child-idle":
	case "child-threads":
		fmt.Println("start", start)
		stop := spin()
		// With "wait CPU", tell the parent we run, wait for it to
		// narrow us to CPU, then sample until every thread has it:
		// sysmon rereads the mask every 10 ms of its own time, which an
		// emulated CPU on a loaded host may stretch.
		var only string
		if len(args) > 1 && args[0] == "wait" {
			fmt.Println("ready")
			bufio.NewReader(os.Stdin).ReadString('\n')
			only = args[1]
		}
		// With "want LIST;LIST...", sample until every listed binding
		// shows at once: on a loaded host an emulated CPU may take
		// seconds to run its P's thread. The check fails only if one
		// never shows within a minute.
		var want []string
		if len(args) > 1 && args[0] == "want" {
			want = strings.Split(args[1], ";")
		}
		masks := allMasks()
		for end := time.Now().Add(time.Minute); time.Now().Before(end); masks = allMasks() {
			missing := slices.ContainsFunc(want, func(w string) bool { return !slices.Contains(masks, w) })
			stray := only != "" && slices.ContainsFunc(masks, func(m string) bool { return m != only })
			if !missing && !stray {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		for _, m := range masks {
			fmt.Println("thread", m)
		}
		stop()
	case "child-locked":
		stop := spin()
		runtime.LockOSThread()
		fmt.Printf("locked %s\n", myMask())
		stop()
	case "child-exec", "child-fork":
		stop := spin()
		defer stop()
		// The main goroutine's thread runs a P, so it is bound.
		fmt.Println("bound", myMask())
		self, _ := os.Executable()
		if mode == "child-exec" {
			os.Stdout.Sync()
			err := syscall.Exec(self, []string{self, "child-report"}, childEnv(""))
			fmt.Println("exec:", err)
			os.Exit(1)
		}
		// Without GODEBUG, as for the exec above: a child that inherits
		// numabind=2 binds its own main thread, which may happen
		// before it reads its mask, and that is not the parent's doing.
		cmd := exec.Command(self, "child-report")
		cmd.Env = childEnv("")
		out, err := cmd.CombinedOutput()
		if err != nil {
			fmt.Println("fork:", err)
			os.Exit(1)
		}
		os.Stdout.Write(out)
	case "child-report":
		fmt.Println("new", start)
	default:
		fmt.Fprintln(os.Stderr, "numacheck: unknown mode", mode)
		os.Exit(2)
	}
}

// spin keeps every P busy with goroutines that make function calls, so
// that each P's thread runs and is bound; the returned func stops them.
func spin() func() {
	var stop atomic.Bool
	for range 2 * runtime.GOMAXPROCS(0) {
		go func() {
			for !stop.Load() {
				work()
			}
		}()
	}
	time.Sleep(200 * time.Millisecond)
	return func() { stop.Store(true) }
}

//go:noinline
func work() {
	x := 0
	for i := range 1000 {
		x += i
	}
	sink.Add(int64(x))
}

var sink atomic.Int64

// myMask is the calling thread's Cpus_allowed_list.
func myMask() string {
	return maskOf("/proc/thread-self/status")
}

func allMasks() []string {
	tasks, _ := filepath.Glob("/proc/self/task/*/status")
	var ms []string
	for _, t := range tasks {
		if m := maskOf(t); m != "" {
			ms = append(ms, m)
		}
	}
	return ms
}

func maskOf(status string) string {
	data, err := os.ReadFile(status)
	if err != nil {
		return ""
	}
	for _, l := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(l, "Cpus_allowed_list:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// expand returns the CPUs of a cpulist ("0-3,8").
func expand(list string) []int {
	var cs []int
	for _, r := range strings.Split(list, ",") {
		lo, hi, ok := strings.Cut(r, "-")
		a, _ := strconv.Atoi(lo)
		b := a
		if ok {
			b, _ = strconv.Atoi(hi)
		}
		for c := a; c <= b; c++ {
			cs = append(cs, c)
		}
	}
	return cs
}

func keys(m map[string]bool) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
