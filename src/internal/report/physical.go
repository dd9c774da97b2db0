package report

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/schedlab/schedlab/src/internal/results"
	"github.com/schedlab/schedlab/src/internal/stats"
)

// comparePhysical compares the folder's PhysicalFile, if it has any
// results, against the same base as the main tables, and writes its
// tables to PhysicalBenchstatFile.
func (res *Result) comparePhysical(dir string, meta *results.Metadata, base string) error {
	path := filepath.Join(dir, results.PhysicalFile)
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) || err == nil && !bytes.Contains(data, []byte("\nBenchmark")) {
		return nil
	}
	if err != nil {
		return err
	}
	c, text, err := compareFile(path, base, meta, filepath.Join(dir, results.PhysicalBenchstatFile))
	if err != nil {
		return err
	}
	res.Physical, res.PhysicalBenchstat = c, text
	return nil
}

// physicalVerdictUnits are the physical units with a better direction,
// which get verdict lines: the shares, the counts of allocations that
// missed their node, of the kernel's NUMA hint faults and of its page
// migrations, and the spread of the CPUs' busy shares (load piled onto
// some CPUs while others idle).
var physicalVerdictUnits = []string{"local-alloc-share", "top-node-share", "node-miss-share",
	"numa-miss/run", "numa-other/run", "numa-hint-faults/run", "numa-pages-migrated/run", "node-load-misses/run",
	"cpu-busy-spread"}

// writePhysical writes the README's physical evidence: what was measured
// and what could not be, verdicts, and the tables.
func writePhysical(p func(string, ...any), meta *results.Metadata, res *Result) {
	info := meta.Physical
	if info == nil {
		return // a folder from before the collectors existed
	}
	p("## Physical evidence\n\n")
	p("Collected by the harness around each benchmark process (`%s`, one line per run; tables in `%s`). ", results.PhysicalFile, results.PhysicalBenchstatFile)
	p("They say where memory was allocated and placed, which the scheduler's own counters (`on-node-share`, `local-steal-share` in the tables above) cannot.\n\n")
	for _, m := range info.Measured {
		p("- Measured: %s\n", m)
	}
	for _, u := range info.Unavailable {
		p("- %s\n", strings.ToUpper(u[:1])+u[1:])
	}
	if meta.Machine.NUMANodes < 2 {
		p("- This machine has %d NUMA node(s): every page is on node 0 and every allocation is local, whatever the scheduler does. "+
			"The rows below show the collectors working (and the machine-wide allocation volume); locality can only differ on a machine with two or more nodes.\n", meta.Machine.NUMANodes)
	}
	p("\n")
	c := res.Physical
	if c == nil {
		p("No run produced physical evidence.\n\n")
		return
	}
	for ci, col := range c.Cols {
		if ci == c.Base {
			continue
		}
		p("**%s vs %s**\n\n", col, c.Cols[c.Base])
		for _, t := range c.Tables {
			if slices.Contains(physicalVerdictUnits, t.Unit) {
				p("- %s\n", t.Verdict(ci, c.Base))
			}
		}
		p("\n")
	}
	p("The other units (allocation volumes: `numa-hit`, `numa-local`, `numa-foreign`, `node-loads` per run; `resident-MiB`, `node<N>-MiB`) are neither better nor worse; they are in the tables.\n\n")
	p("```\n%s```\n\n", res.PhysicalBenchstat)
}

// oracleGap is the README's section on how much of the gap between the
// base (stock) and an oracle variant (one run under a wrapper such as
// numactl --cpunodebind=0 --membind=0) each other variant closes, in
// time per op.
func oracleGap(meta *results.Metadata, c *stats.Comparison) string {
	t := c.Table("sec/op")
	if t == nil {
		return ""
	}
	var oracles, others []int
	for ci, col := range c.Cols {
		if ci == c.Base {
			continue
		}
		i := slices.IndexFunc(meta.Variants, func(v results.VariantMeta) bool { return v.Name == col })
		if i >= 0 && isOracle(meta.Variants[i].Wrapper) {
			oracles = append(oracles, ci)
		} else {
			others = append(others, ci)
		}
	}
	if len(oracles) == 0 {
		return ""
	}
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("## Gap to the oracle\n\n")
	p("An oracle variant runs %s under a wrapper that pins its threads and memory (", c.Cols[c.Base])
	for i, ci := range oracles {
		v := meta.Variants[slices.IndexFunc(meta.Variants, func(v results.VariantMeta) bool { return v.Name == c.Cols[ci] })]
		if i > 0 {
			p("; ")
		}
		p("%s: `%s`", c.Cols[ci], strings.Join(v.Wrapper, " "))
	}
	p("). Each cell is the share of the oracle's difference from %s in sec/op that a variant reaches: (base − variant) / (base − oracle), from the medians. ", c.Cols[c.Base])
	p("100%% matches the oracle, 0%% is no better than %s, negative is worse. ", c.Cols[c.Base])
	p("A gap is only divided when the oracle is faster than the base at p<0.05: otherwise the cells say `no gap` (no significant difference) or `oracle slower`. ")
	p("The oracle runs at the same GOMAXPROCS as every variant; bound to one node with more Ps than that node has CPUs, it is oversubscribed and bounds locality, not time.\n\n")
	for _, oi := range oracles {
		p("**%s**\n\n| benchmark | %s vs %s |", c.Cols[oi], c.Cols[oi], c.Cols[c.Base])
		for _, ci := range others {
			p(" %s |", c.Cols[ci])
		}
		p("\n|---|---|")
		for range others {
			p("---|")
		}
		p("\n")
		for _, r := range t.Rows {
			base, od := r.Cells[c.Base], r.Deltas[oi]
			if base == nil || od == nil {
				continue
			}
			p("| %s | %s |", r.Name, od.Brief())
			for _, ci := range others {
				p(" %s |", gapClosed(base, r.Cells[oi], r.Cells[ci], od))
			}
			p("\n")
		}
		p("\n")
	}
	return b.String()
}

// isOracle reports whether a variant's wrapper makes it an oracle: a
// numactl policy. Other wrappers (the tracing one of the trace-cost
// study) are just different ways to run.
func isOracle(wrapper []string) bool {
	return len(wrapper) > 0 && filepath.Base(wrapper[0]) == "numactl"
}

// gapClosed is (base − v) / (base − oracle) from the medians, when the
// oracle is significantly faster than the base: a slower oracle is no
// bound to approach (interleaving memory, or oversubscribing one node,
// can cost more than locality gains).
func gapClosed(base, oracle, v *stats.Cell, od *stats.Delta) string {
	if v == nil || oracle == nil {
		return "–"
	}
	if !od.Significant {
		return "no gap"
	}
	gap := base.Summary.Center - oracle.Summary.Center
	if gap <= 0 {
		return "oracle slower"
	}
	return fmt.Sprintf("%.0f%%", (base.Summary.Center-v.Summary.Center)/gap*100)
}
