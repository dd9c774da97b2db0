// Package harness runs schedlab's benchmark suites against a set of
// toolchain variants, interleaving them round by round, and turns the raw
// Go benchmark output into benchstat tables, CSV, plots and a README.
package harness

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/schedlab/schedlab/src/internal/series"
)

// ModulePath is the module path of the schedlab repository.
const ModulePath = "github.com/schedlab/schedlab"

// DefaultUpstream is the pinned upstream release used when
// toolchain/UPSTREAM does not (yet) exist.
const DefaultUpstream = "go1.27.4"

// FindRoot walks up from dir to the directory holding the go.mod of
// ModulePath.
func FindRoot(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for d := dir; ; {
		data, err := os.ReadFile(filepath.Join(d, "go.mod"))
		if err == nil && modulePathOf(data) == ModulePath {
			return d, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", fmt.Errorf("no go.mod for module %s in %s or any parent; run schedlab inside the schedlab repository", ModulePath, dir)
		}
		d = parent
	}
}

func modulePathOf(gomod []byte) string {
	for _, line := range strings.Split(string(gomod), "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && f[0] == "module" {
			return strings.Trim(f[1], `"`)
		}
	}
	return ""
}

// SeriesHash is the identity of the patch series in dir (see
// series.HashPatches; the toolchain build uses the same definition).
func SeriesHash(dir string) (string, error) { return series.HashPatches(dir) }

// ReadUpstream returns the pinned release of an UPSTREAM file.
func ReadUpstream(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	pin, err := series.ParsePin(data)
	if err != nil {
		return "", fmt.Errorf("%s: %v", path, err)
	}
	return pin.Version, nil
}

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

// Provenance records what produced a results folder beyond the
// toolchains: the schedlab commit and whether the tree had uncommitted
// changes, the Go that built the harness, and the environment settings
// that change generated code or GC behaviour.
type Provenance struct {
	Commit string            `json:"commit"`
	Dirty  bool              `json:"dirty"`
	HostGo string            `json:"host_go"`
	Env    map[string]string `json:"env,omitempty"` // GOAMD64, GOGC, GOMEMLIMIT, GOMAXPROCS as set (unset: absent)
}

// ProbeProvenance fills Provenance for the checkout at root.
func ProbeProvenance(root string) Provenance {
	p := Provenance{HostGo: runtime.Version(), Commit: "unknown"}
	if out, err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Output(); err == nil {
		p.Commit = strings.TrimSpace(string(out))
	}
	if out, err := exec.Command("git", "-C", root, "status", "--porcelain", "--untracked-files=no").Output(); err == nil {
		p.Dirty = len(bytes.TrimSpace(out)) > 0
	}
	for _, k := range []string{"GOAMD64", "GOGC", "GOMEMLIMIT", "GOMAXPROCS"} {
		if v, ok := os.LookupEnv(k); ok {
			if p.Env == nil {
				p.Env = map[string]string{}
			}
			p.Env[k] = v
		}
	}
	return p
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

// gomaxprocs is the GOMAXPROCS a child process will get.
func gomaxprocs(env []string) string {
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "GOMAXPROCS="); ok && v != "" {
			return v
		}
	}
	return fmt.Sprint(runtime.NumCPU())
}

func firstLine(b []byte) string {
	b, _, _ = bytes.Cut(b, []byte("\n"))
	return strings.TrimSpace(string(b))
}
