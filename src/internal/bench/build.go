package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/schedlab/schedlab/src/internal/results"
	"github.com/schedlab/schedlab/src/internal/series"
	"github.com/schedlab/schedlab/src/internal/toolchain"
)

type builtPkg struct {
	bin string // test binary
	dir string // directory to run it in
	err error
}

// build compiles each package's test binary once per toolchain. The
// toolchains build concurrently: one test binary's compile and link are
// mostly serial, so on two CPUs the stock and patched builds overlap
// instead of queueing (the main job's first result comes that much
// sooner). Within a toolchain the packages build in order.
func (r *runner) build(ctx context.Context) {
	specs := make([]string, 0, len(r.tcs))
	for s := range r.tcs {
		specs = append(specs, s)
	}
	sort.Strings(specs)
	pkgs := r.opt.Suite.Pkgs()
	built := make([][]*builtPkg, len(specs))
	var wg sync.WaitGroup
	for i, spec := range specs {
		tc := r.tcs[spec]
		built[i] = make([]*builtPkg, len(pkgs))
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j, p := range pkgs {
				if ctx.Err() != nil {
					return
				}
				start := time.Now()
				r.logf("building %s test binary with %s (%s)", p.Import, spec, tc.Version)
				bp := r.buildPkg(ctx, tc, p)
				built[i][j] = bp
				if bp.err == nil {
					r.logf("built %s with %s in %s", p.Key, spec, time.Since(start).Round(100*time.Millisecond))
				}
			}
		}()
	}
	wg.Wait()
	for i, spec := range specs {
		tc := r.tcs[spec]
		r.bins[spec] = map[string]*builtPkg{}
		for j, p := range pkgs {
			bp := built[i][j]
			if bp == nil {
				continue // cancelled
			}
			r.bins[spec][p.Key] = bp
			if bp.err != nil {
				r.fail("build of %s with toolchain %s (%s): %v", p.Import, spec, tc.Version, bp.err)
				continue
			}
			sum, err := series.SHA256File(bp.bin)
			if err == nil {
				for k := range r.meta.Variants {
					if r.meta.Variants[k].Toolchain == spec {
						r.meta.Variants[k].Binaries[p.Key] = sum
					}
				}
			}
		}
	}
	if r.opt.Out != "" { // "" with BuildOnly
		r.meta.Write(r.opt.Out)
	}
}

func (r *runner) buildPkg(ctx context.Context, tc *toolchain.Toolchain, p *Pkg) *builtPkg {
	bin := filepath.Join(r.tmp, fmt.Sprintf("%s-%s.test", p.Key, results.SafeName(tc.Spec)))
	bp := &builtPkg{bin: bin}
	var dir string
	switch p.Kind {
	case StdPkg:
		dir = filepath.Join(tc.GOROOT, "src")
		bp.dir = filepath.Join(tc.GOROOT, "src", filepath.FromSlash(p.Import))
	case LocalPkg:
		dir = r.opt.Root
		bp.dir = filepath.Join(r.opt.Root, filepath.FromSlash(strings.TrimPrefix(p.Import, toolchain.ModulePath+"/")))
	case ExternalPkg:
		dir = filepath.Join(r.tmp, "ext-"+results.SafeName(tc.Spec), p.Key)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			bp.err = err
			return bp
		}
		gomod := "module schedlab.local/external\n\ngo 1.26\n"
		if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644); err != nil {
			bp.err = err
			return bp
		}
		if _, err := tc.Run(ctx, dir, "get", "-t", p.Import+"@"+p.Version); err != nil {
			bp.err = err
			return bp
		}
		out, err := tc.Run(ctx, dir, "list", "-f", "{{.Dir}}", p.Import)
		if err != nil {
			bp.err = err
			return bp
		}
		bp.dir = firstLine(out)
	case DirPkg:
		// Built in its own directory, so that its own go.mod (replace
		// directives, vendor/, a go.work above it) decides what it
		// builds, as for go test there.
		dir, bp.dir = p.Dir, p.Dir
		args := []string{"test", "-c", "-trimpath", "-o", bin}
		if p.Tags != "" {
			args = append(args, "-tags", p.Tags)
		}
		if _, err := tc.Run(ctx, dir, append(args, ".")...); err != nil {
			bp.err = err
		}
		return bp
	}
	if _, err := tc.Run(ctx, dir, "test", "-c", "-trimpath", "-o", bin, p.Import); err != nil {
		bp.err = err
	}
	return bp
}
