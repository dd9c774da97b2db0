package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/schedlab/schedlab/src/internal/results"
	"github.com/schedlab/schedlab/src/internal/series"
	"github.com/schedlab/schedlab/src/internal/toolchain"
)

// PrebuiltFile is the manifest of a folder of test binaries that
// Options.BuildOnly writes and Options.Prebuilt reads: a run where no Go
// toolchain is (a NUMA guest, see docs/guest.md) uses binaries built
// here, and its metadata still says which toolchains, series and harness
// built them.
const PrebuiltFile = "prebuilt.json"

// A prebuilt is a PrebuiltFile.
type prebuilt struct {
	Built    time.Time          `json:"built"`
	Host     string             `json:"host"`
	Upstream string             `json:"upstream"`
	Series   string             `json:"series"`
	Project  results.Provenance `json:"project"` // the harness that built them
	// CGOEnabled is CGO_ENABLED as the builds saw it: for a guest,
	// "0" (static binaries; the guest has only numactl's libc).
	CGOEnabled string                          `json:"cgo_enabled"`
	Toolchains map[string]*toolchain.Toolchain `json:"toolchains"`
	// Binaries is, by toolchain spec and package key, the binary's
	// file name in the folder and its SHA-256.
	Binaries map[string]map[string]prebuiltBin `json:"binaries"`
}

type prebuiltBin struct {
	File   string `json:"file"`
	SHA256 string `json:"sha256"`
}

// writePrebuilt writes the manifest of what r built into r.tmp, the
// BuildOnly folder. It fails if any build failed: a folder of binaries
// with holes would only fail later, inside the guest.
func (r *runner) writePrebuilt() error {
	if len(r.meta.Failures) > 0 {
		return fmt.Errorf("%w: %s", ErrFailures, r.meta.Failures[0])
	}
	host, _ := os.Hostname()
	m := prebuilt{Built: time.Now().UTC().Truncate(time.Second), Host: host, Upstream: r.meta.Upstream, Series: r.meta.Series,
		Project: r.meta.Project, CGOEnabled: os.Getenv("CGO_ENABLED"), Toolchains: r.tcs, Binaries: map[string]map[string]prebuiltBin{}}
	for spec, pkgs := range r.bins {
		m.Binaries[spec] = map[string]prebuiltBin{}
		for key, bp := range pkgs {
			sum, err := series.SHA256File(bp.bin)
			if err != nil {
				return err
			}
			m.Binaries[spec][key] = prebuiltBin{File: filepath.Base(bp.bin), SHA256: sum}
		}
	}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(r.tmp, PrebuiltFile), append(data, '\n'), 0o644)
}

// readPrebuilt reads the manifest of dir and checks that it has a
// binary of every package of the suite for every toolchain the variants
// name.
func readPrebuilt(dir string, suite *Suite, variants []Variant) (*prebuilt, error) {
	data, err := os.ReadFile(filepath.Join(dir, PrebuiltFile))
	if err != nil {
		return nil, fmt.Errorf("-prebuilt %s: %v (write it with -build-only)", dir, err)
	}
	var m prebuilt
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("-prebuilt %s: %s: %v", dir, PrebuiltFile, err)
	}
	for _, v := range variants {
		if m.Toolchains[v.Toolchain] == nil {
			return nil, fmt.Errorf("-prebuilt %s: no binaries for toolchain %q of variant %s (built: %v)", dir, v.Toolchain, v.Name, slices.Sorted(maps.Keys(m.Toolchains)))
		}
		for _, p := range suite.Pkgs() {
			if _, ok := m.Binaries[v.Toolchain][p.Key]; !ok {
				return nil, fmt.Errorf("-prebuilt %s: no %s test binary for toolchain %q", dir, p.Key, v.Toolchain)
			}
		}
	}
	return &m, nil
}

// usePrebuilt takes the binaries from the Prebuilt folder instead of
// building them, checking each against its recorded SHA-256.
func (r *runner) usePrebuilt() {
	dir := r.opt.Prebuilt
	for spec := range r.tcs {
		r.bins[spec] = map[string]*builtPkg{}
		for _, p := range r.opt.Suite.Pkgs() {
			b := r.pre.Binaries[spec][p.Key]
			bp := &builtPkg{bin: filepath.Join(dir, b.File), dir: dir}
			r.bins[spec][p.Key] = bp
			sum, err := series.SHA256File(bp.bin)
			switch {
			case err != nil:
				bp.err = err
			case sum != b.SHA256:
				bp.err = fmt.Errorf("%s: SHA-256 %s, but %s says %s", bp.bin, sum, PrebuiltFile, b.SHA256)
			}
			if bp.err != nil {
				r.fail("prebuilt %s test binary for toolchain %s: %v", p.Key, spec, bp.err)
				continue
			}
			for k := range r.meta.Variants {
				if r.meta.Variants[k].Toolchain == spec {
					r.meta.Variants[k].Binaries[p.Key] = sum
				}
			}
		}
	}
	r.meta.Write(r.opt.Out)
}

// buildOnly is Run with Options.BuildOnly: build into the folder and
// write its manifest.
func buildOnly(ctx context.Context, opt Options, countNote string) error {
	r, err := newRunner(opt, countNote)
	if err != nil {
		return err
	}
	if r.tmp, err = filepath.Abs(opt.BuildOnly); err != nil {
		return err
	}
	if err := os.MkdirAll(r.tmp, 0o755); err != nil {
		return err
	}
	r.build(ctx)
	if err := ctx.Err(); err != nil {
		return err
	}
	return r.writePrebuilt()
}
