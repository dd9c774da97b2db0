// Package resultstest writes fake results folders for tests of the
// packages that read them (merge, campaign). Only tests import it.
package resultstest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/schedlab/schedlab/src/internal/physical"
	"github.com/schedlab/schedlab/src/internal/results"
)

// Host describes a fake results folder.
type Host struct {
	Name     string // the machine's name in metadata.json
	Series   string // the patched variant's series; 6827cade46ef if empty
	Doctor   *physical.Doctor
	Physical bool // also write physical.txt
	Procs    int  // the benchmarks' -N suffix; 8 if 0
}

// WriteFolder writes a small results folder into dir: metadata.json and
// a bench.txt in which, over 6 rounds, "patched" is 20% faster than
// "stock" on Fast and the same on Same, and reports an on-node-share.
func WriteFolder(t testing.TB, dir string, h Host) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if h.Series == "" {
		h.Series = "6827cade46ef"
	}
	if h.Procs == 0 {
		h.Procs = 8
	}
	start := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	meta := &results.Metadata{
		Suite: "workloads", Count: 6, Timeout: "10m0s", Started: start, Finished: start.Add(time.Hour), Complete: true,
		Machine: physical.Machine{Host: h.Name, CPU: "Fake CPU", Cores: 8, NUMANodes: 2},
		Doctor:  h.Doctor, Upstream: "go1.27.4", Series: h.Series,
		Variants: []results.VariantMeta{{Name: "stock", Toolchain: "stock", Series: "none"}, {Name: "patched", Toolchain: "patched", Series: h.Series}},
		Targets:  []string{"workloads.Fast", "workloads.Same"},
	}
	if err := meta.Write(dir); err != nil {
		t.Fatal(err)
	}
	var raw, phys strings.Builder
	for round := 1; round <= 6; round++ {
		// patched first in odd rounds, so the first seen is not the base.
		variants := []string{"patched", "stock"}
		if round%2 == 0 {
			variants = []string{"stock", "patched"}
		}
		for _, v := range variants {
			cfg := results.BlockConfig{Variant: v, Toolchain: "go1.27.4", Upstream: "go1.27.4", Series: "none", GOMAXPROCS: "8", CPU: "Fake CPU", NUMANodes: 2}
			fast := 1000.0 + float64(round)
			share := 0.5 + float64(round)/100
			if v == "patched" {
				cfg.Toolchain, cfg.Series = "go1.27.4-schedlab.1-"+h.Series, h.Series
				fast *= 0.8
				share += 0.2
			}
			same := 2000.0 + float64((round*7)%6)
			fmt.Fprintf(&raw, "\n# round %d, workloads.Fast\n%sUnit on-node-share better=higher\ngoos: linux\ngoarch: amd64\npkg: example.com/workloads\n", round, cfg.Lines())
			fmt.Fprintf(&raw, "BenchmarkFast-%d \t 1000\t %.1f ns/op\t %.3f on-node-share\n", h.Procs, fast, share)
			fmt.Fprintf(&raw, "BenchmarkSame-%d \t 1000\t %.1f ns/op\n", h.Procs, same)
			fmt.Fprintf(&phys, "\n%sUnit local-alloc-share better=higher\nBenchmarkPhysicalFast 1 %.3f local-alloc-share\n", cfg.Lines(), share)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, results.RawFile), []byte(raw.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if h.Physical {
		if err := os.WriteFile(filepath.Join(dir, results.PhysicalFile), []byte(phys.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
