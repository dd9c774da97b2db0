package physical

import (
	"bufio"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
)

// Machine describes the machine a run happened on.
type Machine struct {
	Host      string `json:"host"`
	CPU       string `json:"cpu"`
	Cores     int    `json:"cores"`
	NUMANodes int    `json:"numa_nodes"`
	Kernel    string `json:"kernel"`
	GOOS      string `json:"goos"`
	GOARCH    string `json:"goarch"`
	// ThreadsPerCore is the SMT width seen from CPU 0's siblings (0 if
	// unknown).
	ThreadsPerCore int `json:"threads_per_core"`
	// MemoryMiB is MemTotal from /proc/meminfo (0 if unknown).
	MemoryMiB int64 `json:"memory_mib"`
	// Virtualization is the hypervisor the kernel reports
	// (/sys/hypervisor/type, or "yes (cpuinfo hypervisor flag)"), or
	// "none seen".
	Virtualization string `json:"virtualization"`
}

// ProbeMachine gathers Machine information from /proc and /sys.
func ProbeMachine() Machine {
	host, _ := os.Hostname()
	m := Machine{Host: host, CPU: cpuModel(), Cores: runtime.NumCPU(), NUMANodes: numaNodes(), GOOS: runtime.GOOS, GOARCH: runtime.GOARCH}
	if data, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = strings.TrimSpace(string(data))
	}
	m.ThreadsPerCore = threadsPerCore("/sys/devices/system/cpu/cpu0/topology/thread_siblings_list")
	m.MemoryMiB = memTotalMiB("/proc/meminfo")
	m.Virtualization = virtualization("/sys/hypervisor/type", "/proc/cpuinfo")
	return m
}

// threadsPerCore counts the CPUs in a sysfs CPU list such as "0,64" or
// "0-1" (0 if it cannot be read).
func threadsPerCore(path string) int {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	n := 0
	for _, part := range strings.Split(strings.TrimSpace(string(data)), ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err1 := strconv.Atoi(lo)
		if !isRange {
			if err1 == nil {
				n++
			}
			continue
		}
		b, err2 := strconv.Atoi(hi)
		if err1 == nil && err2 == nil && b >= a {
			n += b - a + 1
		}
	}
	return n
}

// memTotalMiB reads MemTotal (kB) from a meminfo file.
func memTotalMiB(path string) int64 {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "MemTotal:"); ok {
			f := strings.Fields(rest)
			if len(f) > 0 {
				kb, err := strconv.ParseInt(f[0], 10, 64)
				if err == nil {
					return kb / 1024
				}
			}
		}
	}
	return 0
}

// virtualization names the hypervisor from sysfs, or says whether the
// CPU flags carry "hypervisor" (set by KVM, Xen, Hyper-V, VMware guests).
func virtualization(hypervisorType, cpuinfo string) string {
	if data, err := os.ReadFile(hypervisorType); err == nil && strings.TrimSpace(string(data)) != "" {
		return strings.TrimSpace(string(data))
	}
	data, err := os.ReadFile(cpuinfo)
	if err != nil {
		return "unknown"
	}
	for _, line := range strings.Split(string(data), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if ok && strings.TrimSpace(k) == "flags" {
			if slices.Contains(strings.Fields(v), "hypervisor") {
				return "yes (cpuinfo hypervisor flag)"
			}
			return "none seen"
		}
	}
	return "unknown"
}

func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return "unknown"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == "model name" {
			return strings.Join(strings.Fields(v), " ")
		}
	}
	return "unknown"
}

func numaNodes() int {
	m, _ := filepath.Glob("/sys/devices/system/node/node[0-9]*")
	if len(m) == 0 {
		return 1
	}
	return len(m)
}
