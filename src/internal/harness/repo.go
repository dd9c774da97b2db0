// Package harness runs schedlab's benchmark suites against a set of
// toolchain variants, interleaving them round by round, and turns the raw
// Go benchmark output into benchstat tables, CSV, plots and a README.
package harness

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
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
}

// ProbeMachine gathers Machine information from /proc and /sys.
func ProbeMachine() Machine {
	host, _ := os.Hostname()
	m := Machine{Host: host, CPU: cpuModel(), Cores: runtime.NumCPU(), NUMANodes: numaNodes(), GOOS: runtime.GOOS, GOARCH: runtime.GOARCH}
	if data, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = strings.TrimSpace(string(data))
	}
	return m
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
