// Package report turns a results folder into what a reader needs: the
// benchstat tables and CSV, the plots, and a README with what ran, on
// which machine, the verdicts of every variant against the base (also
// without the runs that were short of CPU), the physical evidence, the
// gap to an oracle, the traced and profiled runs, and the warnings.
//
// It reads only what package results defines and writes only into the
// folder it is given, so that a report can be regenerated at any time
// from a folder's raw data: `schedlab bench` writes the folder, then
// calls it. The numbers are package stats's; the figures package
// plots's.
package report

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/perf/benchunit"

	"github.com/schedlab/schedlab/src/internal/plots"
	"github.com/schedlab/schedlab/src/internal/results"
	"github.com/schedlab/schedlab/src/internal/stats"
)

// Result says what Write wrote.
type Result struct {
	Comparison *stats.Comparison
	Benchstat  string   // the text tables
	SelfCheck  []string // self-check warnings
	Plots      []string // relative paths

	// Uncontended compares the runs that were not short of CPU, when
	// some were (nil otherwise); Dropped is how many runs it leaves out.
	// UncontendedSkipped says why there is no such comparison although
	// some runs were short of CPU (all were, or what is left cannot be
	// compared); the report says it and goes on.
	Uncontended        *stats.Comparison
	Dropped            int
	UncontendedSkipped string

	// Physical compares results.PhysicalFile (nil when the folder has
	// none), and PhysicalBenchstat is its text tables.
	Physical          *stats.Comparison
	PhysicalBenchstat string

	// Profiles is the README's section on the profiles of `schedlab
	// bench -profile` (empty when there are none).
	Profiles string
}

// Write reads a results folder written by `schedlab bench` and writes
// the benchstat tables, the CSV, SVG plots and README.md into it.
func Write(dir string) (*Result, error) {
	meta, err := results.ReadMetadata(dir)
	if err != nil {
		return nil, fmt.Errorf("%s is not a schedlab results folder: %v", dir, err)
	}
	raw := filepath.Join(dir, results.RawFile)
	if _, err := os.Stat(raw); err != nil {
		return nil, fmt.Errorf("%s has no results: %v", dir, err)
	}
	c, err := stats.CompareAgainst(raw, baseVariant(meta))
	if err != nil {
		return nil, err
	}
	markWrapped(c, meta)
	res := &Result{Comparison: c, SelfCheck: c.SelfCheck()}
	if len(meta.Contended) > 0 {
		if err := res.compareUncontended(dir, meta, c); err != nil {
			return nil, err
		}
	}
	if err := res.comparePhysical(dir, meta, c.Cols[c.Base]); err != nil {
		return nil, err
	}
	var tb bytes.Buffer
	if err := c.WriteText(&tb); err != nil {
		return nil, err
	}
	res.Benchstat = tb.String()
	if err := os.WriteFile(filepath.Join(dir, results.BenchstatFile), tb.Bytes(), 0o644); err != nil {
		return nil, err
	}
	var cb bytes.Buffer
	if err := c.WriteCSV(&cb); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, results.CSVFile), cb.Bytes(), 0o644); err != nil {
		return nil, err
	}
	res.Plots, err = plots.Write(dir, c, meta)
	if err != nil {
		return nil, fmt.Errorf("plots: %v", err)
	}
	var pb bytes.Buffer
	writeProfiles(func(f string, a ...any) { fmt.Fprintf(&pb, f, a...) }, meta, dir)
	res.Profiles = pb.String()
	findings, err := os.ReadFile(filepath.Join(dir, results.FindingsFile))
	if err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	readme := renderReadme(meta, res, string(findings))
	if err := os.WriteFile(filepath.Join(dir, results.ReadmeFile), []byte(readme), 0o644); err != nil {
		return nil, err
	}
	return res, nil
}

// Verdicts summarises each variant against the base on the key units
// (time and CPU time per op, a sweep's metrics): one line per variant
// and unit, as the README's Verdicts section words them, and the same
// without the runs that were short of CPU, if some were. A variant with
// the base's toolchain and knobs is marked as the control. Lines
// starting "note: " close the list: the caveats of the units shown
// (stats.UnitNote).
func (res *Result) Verdicts(meta *results.Metadata) []string {
	var out, units []string
	add := func(c *stats.Comparison, suffix string) {
		for ci, col := range c.Cols {
			if ci == c.Base {
				continue
			}
			name := col
			if ci < len(c.ColID) && c.Base < len(c.ColID) && c.ColID[ci] == c.ColID[c.Base] {
				name += " (control: same toolchain and knobs as " + c.Cols[c.Base] + ")"
			}
			for _, t := range c.Tables {
				if keyUnit(meta, t.Unit) {
					out = append(out, fmt.Sprintf("%s vs %s%s: %s", name, c.Cols[c.Base], suffix, t.Verdict(ci, c.Base)))
					units = append(units, t.Unit)
				}
			}
		}
	}
	add(res.Comparison, "")
	if res.UncontendedSkipped != "" {
		out = append(out, "no verdicts without runs short of CPU: "+res.UncontendedSkipped)
	}
	if res.Uncontended != nil && res.Dropped > 0 {
		add(res.Uncontended, fmt.Sprintf(", without the %d runs short of CPU", res.Dropped))
	}
	// The caveats of the units the lines show (a sweep's
	// p99-sched-latency-sec), after them.
	for _, n := range stats.UnitNotes(units...) {
		out = append(out, "note: "+n)
	}
	return out
}

// keyUnit reports whether unit is one the summary without contended
// runs repeats: time and CPU time per op, and a sweep's own metrics.
func keyUnit(meta *results.Metadata, unit string) bool {
	if unit == "sec/op" || unit == "cpu-sec/op" {
		return true
	}
	if meta.Sweep != nil {
		for _, m := range meta.Sweep.Metrics {
			if _, u := benchunit.Tidy(1, m); u == unit {
				return true
			}
		}
	}
	return false
}

// compareUncontended writes the raw data without the runs that meta
// lists as short of CPU, and its tables, and sets res.Uncontended.
func (res *Result) compareUncontended(dir string, meta *results.Metadata, c *stats.Comparison) error {
	raw, err := os.ReadFile(filepath.Join(dir, results.RawFile))
	if err != nil {
		return err
	}
	kept, dropped := dropRuns(raw, contendedRuns(meta.Contended))
	if len(results.ResultLines(kept)) == 0 {
		res.UncontendedSkipped = fmt.Sprintf("all %d runs with results were short of CPU, so there is no comparison without them", dropped)
		return nil
	}
	path := filepath.Join(dir, results.UncontendedRawFile)
	if err := os.WriteFile(path, kept, 0o644); err != nil {
		return err
	}
	uc, _, err := compareFile(path, c.Cols[c.Base], meta, filepath.Join(dir, results.UncontendedBenchstatFile))
	if err != nil {
		res.UncontendedSkipped = fmt.Sprintf("what is left without the %d runs short of CPU cannot be compared (%v)", dropped, err)
		return nil
	}
	res.Uncontended, res.Dropped = uc, dropped
	return nil
}

// baseVariant is the variant a folder's deltas are against: its first.
func baseVariant(meta *results.Metadata) string {
	if len(meta.Variants) == 0 {
		return ""
	}
	return meta.Variants[0].Name
}

// compareFile compares one benchmark file of a results folder against
// base (see stats.CompareAgainst), tells its wrapped variants apart, and
// writes its tables to out.
func compareFile(path, base string, meta *results.Metadata, out string) (*stats.Comparison, string, error) {
	c, err := stats.CompareAgainst(path, base)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %v", filepath.Base(path), err)
	}
	markWrapped(c, meta)
	var tb bytes.Buffer
	if err := c.WriteText(&tb); err != nil {
		return nil, "", err
	}
	return c, tb.String(), os.WriteFile(out, tb.Bytes(), 0o644)
}

// A runKey names one run: its round (from 1), target and variant.
type runKey struct {
	round           int
	target, variant string
}

// contendedRuns parses the runs out of Metadata.Contended entries
// ("round 2: workloads.LatencyProbe [stock]: other load took …", as
// package bench words them).
func contendedRuns(flags []string) map[runKey]bool {
	m := map[runKey]bool{}
	for _, f := range flags {
		head, _, _ := strings.Cut(f, "]")
		round, rest, ok1 := strings.Cut(head, ": ")
		target, variant, ok2 := strings.Cut(rest, " [")
		n, err := strconv.Atoi(strings.TrimPrefix(round, "round "))
		if ok1 && ok2 && err == nil {
			m[runKey{n, target, variant}] = true
		}
	}
	return m
}

// dropRuns returns raw (bench.txt) without the blocks of the runs in
// drop, and how many blocks it left out. Each run's block starts with a
// "# round N, target" line and names its variant in a "variant:" line.
func dropRuns(raw []byte, drop map[runKey]bool) ([]byte, int) {
	var out bytes.Buffer
	dropped := 0
	var block []string
	flush := func() {
		if len(block) == 0 {
			return
		}
		var k runKey
		if _, err := fmt.Sscanf(block[0], "# round %d, %s", &k.round, &k.target); err == nil {
			for _, line := range block {
				if v, ok := strings.CutPrefix(line, "variant: "); ok {
					k.variant = strings.TrimSpace(v)
					break
				}
			}
			if drop[k] {
				dropped++
				block = block[:0]
				return
			}
		}
		for _, line := range block {
			out.WriteString(line + "\n")
		}
		block = block[:0]
	}
	for _, line := range strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n") {
		if strings.HasPrefix(line, "# round ") {
			flush()
		}
		block = append(block, line)
	}
	flush()
	return out.Bytes(), dropped
}

// markWrapped adds each column's wrapper, and whether it traced, to its
// identity: a variant run under numactl or with the execution tracer on
// is not a control of the same toolchain without it, and the self-check
// must not expect the two to agree.
func markWrapped(c *stats.Comparison, meta *results.Metadata) {
	for ci, col := range c.Cols {
		i := slices.IndexFunc(meta.Variants, func(v results.VariantMeta) bool { return v.Name == col })
		if i < 0 || ci >= len(c.ColID) {
			continue
		}
		v := meta.Variants[i]
		if len(v.Wrapper) > 0 {
			c.ColID[ci] += " under " + strings.Join(v.Wrapper, " ")
		}
		if v.ExecTrace {
			c.ColID[ci] += " traced"
		}
	}
}

// Replot redraws the plots of a results folder written by `schedlab
// bench` from its raw data, as Write draws them, without touching its
// README or tables: the figures of an old folder in the current figure
// style. It removes the figures in its plots folder that Write no longer
// draws (names of an older style), and returns the paths it wrote and
// removed, relative to dir.
func Replot(dir string) (wrote, removed []string, err error) {
	meta, err := results.ReadMetadata(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("%s is not a schedlab results folder: %v", dir, err)
	}
	c, err := stats.CompareAgainst(filepath.Join(dir, results.RawFile), baseVariant(meta))
	if err != nil {
		return nil, nil, err
	}
	markWrapped(c, meta)
	hadPNG := map[string]bool{}
	pngs, _ := filepath.Glob(filepath.Join(dir, results.PlotsDir, "*.png"))
	for _, f := range pngs {
		hadPNG[f] = true
	}
	wrote, err = plots.Write(dir, c, meta)
	if err != nil {
		return nil, nil, fmt.Errorf("plots: %v", err)
	}
	// Folders of an older style kept their plots as SVG only; a redrawn
	// figure stays so, rather than add megabytes of raster copies.
	for _, w := range wrote {
		if png := filepath.Join(dir, strings.TrimSuffix(w, ".svg")+".png"); !hadPNG[png] {
			if err := os.Remove(png); err != nil {
				return nil, nil, err
			}
		}
	}
	keep := map[string]bool{}
	for _, w := range wrote {
		keep[w] = true
		keep[strings.TrimSuffix(w, ".svg")+".png"] = true // if it was there
	}
	old, err := filepath.Glob(filepath.Join(dir, results.PlotsDir, "*"))
	if err != nil {
		return nil, nil, err
	}
	for _, f := range old {
		rel, _ := filepath.Rel(dir, f)
		if keep[rel] || !(strings.HasSuffix(f, ".svg") || strings.HasSuffix(f, ".png")) {
			continue
		}
		if err := os.Remove(f); err != nil {
			return nil, nil, err
		}
		removed = append(removed, rel)
	}
	return wrote, removed, nil
}
