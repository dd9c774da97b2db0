// Package stats compares Go benchmark results the way benchstat does,
// and keeps the numbers: a Comparison holds, per unit, a row per
// benchmark and a column per variant, each cell's summary (median and
// confidence interval, from golang.org/x/perf/benchmath) and each
// column's delta against the base with its p-value, Holm's adjusted
// p-value and the largest difference the two intervals allow.
//
// It is the statistics layer between benchmark files and what is made
// of them: it reads Go benchmark files (golang.org/x/perf/benchfmt), not
// results folders, and of a variant knows only its column and, for the
// self-check, its toolchain: and godebug: keys. `schedlab compare`, the
// report and the merge judge differences by its one definition, and word
// them with its Verdict and Delta.Brief.
package stats

import (
	"fmt"
	"math"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"
)

// CompareOptions configures Compare.
type CompareOptions struct {
	Col        string  // configuration key whose values are the columns; default "variant"
	Base       string  // baseline column; default the first seen
	Alpha      float64 // significance level; default 0.05
	Confidence float64 // confidence of the intervals; default 0.95
}

// A Cell is the sample of one benchmark under one column.
type Cell struct {
	Sample  *benchmath.Sample
	Summary benchmath.Summary
}

// A Delta compares a cell with the baseline cell of its row.
type Delta struct {
	Cmp         benchmath.Comparison
	Text        string  // "~", "+3.20%", "?"
	Pct         float64 // center change in percent (NaN if unknown)
	Significant bool

	// PHolm is Cmp.P adjusted with Holm's step-down method over the
	// rows of the same unit and column, and SignificantHolm whether
	// the row stays significant after it. Holm controls the chance of
	// any false positive among the rows (the family-wise error rate)
	// without assuming independence between benchmarks.
	PHolm           float64
	SignificantHolm bool

	// Limit is the largest difference, in percent of the baseline's
	// center, that the two confidence intervals allow: the change could
	// be anywhere from the cell's low bound over the baseline's high
	// bound to the cell's high bound over the baseline's low bound. For
	// a "~" row it bounds the difference the run could have missed
	// (conservatively: it is wider than a CI of the ratio). NaN when a
	// bound is not positive.
	Limit float64
}

// A Row is one benchmark in a unit's table.
type Row struct {
	Name   string
	Cells  []*Cell  // by column; nil where the column has no data
	Deltas []*Delta // by column; nil for the base and for missing cells
}

// A UnitTable holds all rows of one unit.
type UnitTable struct {
	Unit         string
	BetterHigher bool
	Assumption   benchmath.Assumption
	Rows         []*Row
	Geomean      []float64 // by column; NaN if not computable
}

// A Comparison is a set of benchstat tables, rows by benchmark and
// columns by variant.
type Comparison struct {
	ColKey   string
	Cols     []string
	Base     int
	ColID    []string // per column: "toolchain godebug", for the self-check
	Tables   []*UnitTable
	Warnings []string
	Alpha    float64 // the significance level of the deltas
}

// Compare reads Go benchmark files and builds a Comparison. Results
// without the column key are grouped by file name.
func Compare(paths []string, opt CompareOptions) (*Comparison, error) {
	if opt.Col == "" {
		opt.Col = "variant"
	}
	if opt.Alpha == 0 {
		opt.Alpha = 0.05
	}
	if opt.Confidence == 0 {
		opt.Confidence = 0.95
	}
	files := &benchfmt.Files{Paths: paths, AllowStdin: true, AllowLabels: true}
	c := &Comparison{ColKey: opt.Col, Alpha: opt.Alpha}
	s, err := c.read(files)
	if err != nil {
		return nil, err
	}
	if s.n == 0 {
		return nil, fmt.Errorf("no benchmark results in %s", strings.Join(paths, ", "))
	}
	if opt.Base != "" {
		i, ok := s.colIdx[opt.Base]
		if !ok {
			return nil, fmt.Errorf("baseline %q is not among the %s values: %s", opt.Base, opt.Col, strings.Join(c.Cols, ", "))
		}
		c.Base = i
	}
	meta := benchfmt.UnitMetadataMap(files.Units())
	// sec/op first, then the rest as they came.
	sort.SliceStable(s.units, func(i, j int) bool { return s.units[i] == "sec/op" && s.units[j] != "sec/op" })
	thr := benchmath.DefaultThresholds
	thr.CompareAlpha = opt.Alpha
	for _, u := range s.units {
		c.Tables = append(c.Tables, c.unitTable(u, s, meta, &thr, opt.Confidence))
	}
	return c, nil
}

// A rowKey names a row: a benchmark, by package and full name.
type rowKey struct{ pkg, name string }

// samples are the values Compare reads, before it summarises them: by
// unit, row and column index, with the units and rows in the order they
// first appear.
type samples struct {
	units  []string
	rows   []rowKey
	pkgs   map[string]bool
	colIdx map[string]int // column index by value of the column key
	vals   map[string]map[rowKey]map[int][]float64
	n      int // results read
}

// read collects the values of every result in files. It adds each
// column to c as it first appears, with the ColID of its first result,
// and each syntax error to c.Warnings.
func (c *Comparison) read(files *benchfmt.Files) (*samples, error) {
	s := &samples{pkgs: map[string]bool{}, colIdx: map[string]int{}, vals: map[string]map[rowKey]map[int][]float64{}}
	unitSeen := map[string]bool{}
	rowSeen := map[rowKey]bool{}
	for files.Scan() {
		switch rec := files.Result().(type) {
		case *benchfmt.SyntaxError:
			c.Warnings = append(c.Warnings, rec.Error())
		case *benchfmt.Result:
			s.n++
			col := rec.GetConfig(c.ColKey)
			if col == "" {
				col = rec.GetConfig(".file")
			}
			ci, ok := s.colIdx[col]
			if !ok {
				ci = len(c.Cols)
				s.colIdx[col] = ci
				c.Cols = append(c.Cols, col)
				c.ColID = append(c.ColID, rec.GetConfig("toolchain")+" "+rec.GetConfig("godebug"))
			}
			rk := rowKey{rec.GetConfig("pkg"), strings.TrimPrefix(string(rec.Name.Full()), "Benchmark")}
			s.pkgs[rk.pkg] = true
			if !rowSeen[rk] {
				rowSeen[rk] = true
				s.rows = append(s.rows, rk)
			}
			for _, v := range rec.Values {
				if !unitSeen[v.Unit] {
					unitSeen[v.Unit] = true
					s.units = append(s.units, v.Unit)
				}
				if s.vals[v.Unit] == nil {
					s.vals[v.Unit] = map[rowKey]map[int][]float64{}
				}
				if s.vals[v.Unit][rk] == nil {
					s.vals[v.Unit][rk] = map[int][]float64{}
				}
				s.vals[v.Unit][rk][ci] = append(s.vals[v.Unit][rk][ci], v.Value)
			}
		}
	}
	return s, files.Err()
}

// unitTable builds the table of unit u: a row per benchmark that reports
// it, Holm's adjustment of each column's deltas over those rows, and the
// geomeans. Rows are named by package too when the samples span several.
func (c *Comparison) unitTable(u string, s *samples, meta benchfmt.UnitMetadataMap, thr *benchmath.Thresholds, confidence float64) *UnitTable {
	t := &UnitTable{Unit: u, Assumption: meta.GetAssumption(u)}
	if m := meta.Get(u, "better"); m != nil && m.Value == "higher" {
		t.BetterHigher = true
	}
	multiPkg := len(s.pkgs) > 1
	for _, rk := range s.rows {
		byCol := s.vals[u][rk]
		if byCol == nil {
			continue
		}
		name := rk.name
		if multiPkg && rk.pkg != "" {
			name = shortPkg(rk.pkg) + "." + name
		}
		t.Rows = append(t.Rows, c.row(name, byCol, t.Assumption, thr, confidence))
	}
	for ci := range c.Cols {
		adjustHolm(t.Rows, ci, c.Alpha)
	}
	t.Geomean = geomeans(t.Rows, len(c.Cols))
	return t
}

// row summarises one benchmark's values in each column and compares
// each column's sample with the base column's.
func (c *Comparison) row(name string, byCol map[int][]float64, a benchmath.Assumption, thr *benchmath.Thresholds, confidence float64) *Row {
	r := &Row{Name: name, Cells: make([]*Cell, len(c.Cols)), Deltas: make([]*Delta, len(c.Cols))}
	for ci, vs := range byCol {
		s := benchmath.NewSample(append([]float64(nil), vs...), thr)
		r.Cells[ci] = &Cell{Sample: s, Summary: a.Summary(s, confidence)}
	}
	base := r.Cells[c.Base]
	for ci, cell := range r.Cells {
		if ci == c.Base || cell == nil || base == nil {
			continue
		}
		cmp := a.Compare(base.Sample, cell.Sample)
		d := &Delta{Cmp: cmp, Text: cmp.FormatDelta(base.Summary.Center, cell.Summary.Center), Pct: math.NaN()}
		if base.Summary.Center != 0 {
			d.Pct = (cell.Summary.Center/base.Summary.Center - 1) * 100
		}
		d.Significant = d.Text != "~"
		d.Limit = detectionLimit(base.Summary, cell.Summary)
		r.Deltas[ci] = d
	}
	return r
}

// geomeans returns each of ncols columns' geometric mean of the centers
// over the rows whose cells all have a positive center, so that every
// column's mean is over the same rows and their ratio compares like
// with like; NaN for a column without such rows.
func geomeans(rows []*Row, ncols int) []float64 {
	g := make([]float64, ncols)
	for ci := range g {
		sum, n := 0.0, 0
		for _, r := range rows {
			complete := true
			for _, cell := range r.Cells {
				if cell == nil || cell.Summary.Center <= 0 {
					complete = false
				}
			}
			if complete {
				sum += math.Log(r.Cells[ci].Summary.Center)
				n++
			}
		}
		g[ci] = math.NaN()
		if n > 0 {
			g[ci] = math.Exp(sum / float64(n))
		}
	}
	return g
}

// CompareAgainst compares a benchmark file with base as the baseline
// column where the file has it, else with its first column.
func CompareAgainst(path, base string) (*Comparison, error) {
	c, err := Compare([]string{path}, CompareOptions{})
	if err != nil || base == "" || slices.Index(c.Cols, base) <= 0 {
		return c, err
	}
	return Compare([]string{path}, CompareOptions{Base: base})
}

// shortPkg is the last element of an import path, or the last two when
// the last is a major version (ants/v2 -> ants).
func shortPkg(p string) string {
	b := path.Base(p)
	if len(b) > 1 && b[0] == 'v' && strings.Trim(b[1:], "0123456789") == "" {
		return path.Base(path.Dir(p))
	}
	return b
}

// Table returns the table of unit, or nil.
func (c *Comparison) Table(unit string) *UnitTable {
	for _, t := range c.Tables {
		if t.Unit == unit {
			return t
		}
	}
	return nil
}

// SelfCheck compares every pair of columns that ran the same toolchain
// with the same knobs: benchstat must find no difference (`~`) on any
// row, or the machine was too noisy to trust the run. It returns one
// warning per offending row.
func (c *Comparison) SelfCheck() []string {
	var warns []string
	for i := range c.Cols {
		for j := i + 1; j < len(c.Cols); j++ {
			if c.ColID[i] != c.ColID[j] || strings.TrimSpace(c.ColID[i]) == "" {
				continue
			}
			for _, t := range c.Tables {
				for _, r := range t.Rows {
					a, b := r.Cells[i], r.Cells[j]
					if a == nil || b == nil {
						continue
					}
					cmp := t.Assumption.Compare(a.Sample, b.Sample)
					if d := cmp.FormatDelta(a.Summary.Center, b.Summary.Center); d != "~" {
						warns = append(warns, fmt.Sprintf("self-check: %s and %s run the same toolchain and knobs (%s) but differ on %s %s: %s (%s); the machine was too noisy to trust this run",
							c.Cols[i], c.Cols[j], strings.TrimSpace(c.ColID[i]), r.Name, t.Unit, d, cmp.String()))
					}
				}
			}
		}
	}
	return warns
}

// detectionLimit is Delta.Limit for a baseline and a cell summary.
func detectionLimit(base, cell benchmath.Summary) float64 {
	if base.Lo <= 0 || base.Hi <= 0 || cell.Lo <= 0 || cell.Hi <= 0 {
		return math.NaN()
	}
	lo := cell.Lo/base.Hi - 1
	hi := cell.Hi/base.Lo - 1
	return 100 * math.Max(math.Abs(lo), math.Abs(hi))
}

// adjustHolm sets PHolm and SignificantHolm of column ci's deltas.
func adjustHolm(rows []*Row, ci int, alpha float64) {
	var ds []*Delta
	for _, r := range rows {
		if d := r.Deltas[ci]; d != nil && !math.IsNaN(d.Cmp.P) {
			ds = append(ds, d)
		}
	}
	ps := make([]float64, len(ds))
	for i, d := range ds {
		ps[i] = d.Cmp.P
	}
	for i, p := range Holm(ps) {
		ds[i].PHolm = p
		ds[i].SignificantHolm = ds[i].Significant && p <= alpha
	}
}

// Holm returns Holm's step-down adjusted p-values, in the order of ps:
// sorted ascending, the k-th smallest (from 0) is multiplied by m-k,
// capped at 1, and made non-decreasing.
func Holm(ps []float64) []float64 {
	m := len(ps)
	idx := make([]int, m)
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return ps[idx[a]] < ps[idx[b]] })
	adj := make([]float64, m)
	prev := 0.0
	for k, i := range idx {
		p := math.Min(1, float64(m-k)*ps[i])
		prev = math.Max(prev, p)
		adj[i] = prev
	}
	return adj
}

// Levels returns the lowest and highest confidence that the comparison's
// intervals actually have. benchstat asks for 95%, but a median's
// interval runs between order statistics of the sample, so its level is
// the one that the closest pair of order statistics reaches, at least
// the one asked for: 97.85% at n=10. ok is false if no cell has an
// interval (samples too small).
func (c *Comparison) Levels() (lo, hi float64, ok bool) {
	for _, t := range c.Tables {
		for _, r := range t.Rows {
			for _, cell := range r.Cells {
				if cell == nil || cell.Summary.Confidence == 0 {
					continue
				}
				l := cell.Summary.Confidence
				if !ok || l < lo {
					lo = l
				}
				if !ok || l > hi {
					hi = l
				}
				ok = true
			}
		}
	}
	return lo, hi, ok
}

// LevelText says the intervals' actual confidence, for a report: "97.9%"
// or "97.9%-99.8%", rounded down to a tenth of a percent so that it never
// claims more than was computed.
func (c *Comparison) LevelText() string {
	lo, hi, ok := c.Levels()
	if !ok {
		return "no"
	}
	f := func(v float64) string { return strconv.FormatFloat(math.Floor(v*1000)/10, 'f', 1, 64) + "%" }
	if f(lo) == f(hi) {
		return f(lo)
	}
	return f(lo) + "-" + f(hi)
}
