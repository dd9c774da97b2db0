package harness

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/schedlab/schedlab/src/internal/series"
)

// A Toolchain is a resolved Go installation.
type Toolchain struct {
	Spec    string // "stock", "patched" or the path given
	GOROOT  string
	Version string // go env GOVERSION
	Series  string // series hash for a schedlab build, "none" for a release
}

// GoCmd is the toolchain's go command.
func (t *Toolchain) GoCmd() string { return filepath.Join(t.GOROOT, "bin", "go") }

// Env returns base with every GO* setting that could redirect the go
// command removed, and GOROOT and GOTOOLCHAIN=local set, so the command
// really is this toolchain (a leftover GOTOOLCHAIN=go1.27.3 would silently
// run stock).
func (t *Toolchain) Env() []string {
	return append(series.ToolchainEnv(t.GOROOT), "GOFLAGS=-buildvcs=false")
}

// ResolveToolchain finds the GOROOT of spec and checks its go command.
// upstream is the pinned release (e.g. go1.27.3), seriesHash the hash of
// patches/.
func ResolveToolchain(root, spec, upstream, seriesHash string) (*Toolchain, error) {
	t := &Toolchain{Spec: spec}
	switch spec {
	case "stock":
		dir, err := series.StockGOROOT(upstream)
		if err != nil {
			return nil, fmt.Errorf("toolchain stock (%s): %v", upstream, err)
		}
		t.GOROOT = dir
	case "patched":
		t.GOROOT = filepath.Join(root, "toolchain", "goroot")
		if _, err := os.Stat(t.GoCmd()); err != nil {
			return nil, fmt.Errorf("toolchain patched: %s does not exist; build it first with `make toolchain`", t.GoCmd())
		}
	default:
		dir, err := filepath.Abs(spec)
		if err != nil {
			return nil, err
		}
		t.GOROOT = dir
		if _, err := os.Stat(t.GoCmd()); err != nil {
			return nil, fmt.Errorf("toolchain %s: no bin/go in that GOROOT", spec)
		}
	}
	cmd := exec.Command(t.GoCmd(), "env", "GOVERSION")
	cmd.Env = t.Env()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("toolchain %s: %s env GOVERSION: %v\n%s", spec, t.GoCmd(), err, stderr.String())
	}
	t.Version = firstLine(out)
	switch {
	case spec == "stock" && t.Version != upstream:
		return nil, fmt.Errorf("toolchain stock: %s reports %s, want %s", t.GoCmd(), t.Version, upstream)
	case spec == "patched" && !strings.HasPrefix(t.Version, upstream):
		return nil, fmt.Errorf("toolchain patched: %s reports %s, want %s-schedlab.N; rebuild with `make toolchain`", t.GoCmd(), t.Version, upstream)
	}
	t.Series = "none"
	if strings.Contains(t.Version, "schedlab") {
		t.Series = seriesHash
	}
	return t, nil
}
