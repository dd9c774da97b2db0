// Package toolchain finds the schedlab checkout and the Go installations
// it benchmarks: the repository root and module path, the pinned
// upstream release and the patch series' hash, and each toolchain
// ("stock", "patched" or a GOROOT path) resolved to a GOROOT whose go
// command is checked to be the one asked for.
//
// It is the bottom of the harness: the runner (package bench) builds
// with these toolchains, and the trace analysis (package trace) runs the
// patched toolchain's go tool trace, so neither depends on the other for
// it. It knows nothing of results folders.
package toolchain

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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

// Resolve finds the GOROOT of spec and checks its go command.
// upstream is the pinned release (e.g. go1.27.3), seriesHash the hash of
// patches/.
func Resolve(root, spec, upstream, seriesHash string) (*Toolchain, error) {
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

// Run runs the toolchain's go command in dir and returns its standard
// output; on failure the error carries the end of its standard error.
func (t *Toolchain) Run(ctx context.Context, dir string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, t.GoCmd(), args...)
	cmd.Dir = dir
	cmd.Env = t.Env()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if len(msg) > 2000 {
			msg = "..." + msg[len(msg)-2000:]
		}
		return out, fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, msg)
	}
	return out, nil
}

func firstLine(b []byte) string {
	b, _, _ = bytes.Cut(b, []byte("\n"))
	return strings.TrimSpace(string(b))
}
