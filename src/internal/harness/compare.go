package harness

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"path"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"
	"golang.org/x/perf/benchunit"
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
	alpha    float64
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
	thr := benchmath.DefaultThresholds
	thr.CompareAlpha = opt.Alpha
	files := &benchfmt.Files{Paths: paths, AllowStdin: true, AllowLabels: true}

	type rowKey struct{ pkg, name string }
	c := &Comparison{ColKey: opt.Col, alpha: opt.Alpha}
	colIdx := map[string]int{}
	var units []string
	unitSeen := map[string]bool{}
	var rows []rowKey
	rowSeen := map[rowKey]bool{}
	pkgs := map[string]bool{}
	vals := map[string]map[rowKey]map[int][]float64{}
	nres := 0
	for files.Scan() {
		switch rec := files.Result().(type) {
		case *benchfmt.SyntaxError:
			c.Warnings = append(c.Warnings, rec.Error())
		case *benchfmt.Result:
			nres++
			col := rec.GetConfig(opt.Col)
			if col == "" {
				col = rec.GetConfig(".file")
			}
			ci, ok := colIdx[col]
			if !ok {
				ci = len(c.Cols)
				colIdx[col] = ci
				c.Cols = append(c.Cols, col)
				c.ColID = append(c.ColID, rec.GetConfig("toolchain")+" "+rec.GetConfig("godebug"))
			}
			rk := rowKey{rec.GetConfig("pkg"), strings.TrimPrefix(string(rec.Name.Full()), "Benchmark")}
			pkgs[rk.pkg] = true
			if !rowSeen[rk] {
				rowSeen[rk] = true
				rows = append(rows, rk)
			}
			for _, v := range rec.Values {
				if !unitSeen[v.Unit] {
					unitSeen[v.Unit] = true
					units = append(units, v.Unit)
				}
				if vals[v.Unit] == nil {
					vals[v.Unit] = map[rowKey]map[int][]float64{}
				}
				if vals[v.Unit][rk] == nil {
					vals[v.Unit][rk] = map[int][]float64{}
				}
				vals[v.Unit][rk][ci] = append(vals[v.Unit][rk][ci], v.Value)
			}
		}
	}
	if err := files.Err(); err != nil {
		return nil, err
	}
	if nres == 0 {
		return nil, fmt.Errorf("no benchmark results in %s", strings.Join(paths, ", "))
	}
	if opt.Base != "" {
		i, ok := colIdx[opt.Base]
		if !ok {
			return nil, fmt.Errorf("baseline %q is not among the %s values: %s", opt.Base, opt.Col, strings.Join(c.Cols, ", "))
		}
		c.Base = i
	}
	meta := benchfmt.UnitMetadataMap(files.Units())
	// sec/op first, then the rest as they came.
	sort.SliceStable(units, func(i, j int) bool { return units[i] == "sec/op" && units[j] != "sec/op" })
	multiPkg := len(pkgs) > 1
	for _, u := range units {
		t := &UnitTable{Unit: u, Assumption: meta.GetAssumption(u)}
		if m := meta.Get(u, "better"); m != nil && m.Value == "higher" {
			t.BetterHigher = true
		}
		for _, rk := range rows {
			byCol := vals[u][rk]
			if byCol == nil {
				continue
			}
			name := rk.name
			if multiPkg && rk.pkg != "" {
				name = shortPkg(rk.pkg) + "." + name
			}
			r := &Row{Name: name, Cells: make([]*Cell, len(c.Cols)), Deltas: make([]*Delta, len(c.Cols))}
			for ci, vs := range byCol {
				s := benchmath.NewSample(append([]float64(nil), vs...), &thr)
				r.Cells[ci] = &Cell{Sample: s, Summary: t.Assumption.Summary(s, opt.Confidence)}
			}
			base := r.Cells[c.Base]
			for ci, cell := range r.Cells {
				if ci == c.Base || cell == nil || base == nil {
					continue
				}
				cmp := t.Assumption.Compare(base.Sample, cell.Sample)
				d := &Delta{Cmp: cmp, Text: cmp.FormatDelta(base.Summary.Center, cell.Summary.Center), Pct: math.NaN()}
				if base.Summary.Center != 0 {
					d.Pct = (cell.Summary.Center/base.Summary.Center - 1) * 100
				}
				d.Significant = d.Text != "~"
				d.Limit = detectionLimit(base.Summary, cell.Summary)
				r.Deltas[ci] = d
			}
			t.Rows = append(t.Rows, r)
		}
		for ci := range c.Cols {
			adjustHolm(t.Rows, ci, opt.Alpha)
		}
		t.Geomean = make([]float64, len(c.Cols))
		for ci := range c.Cols {
			sum, n := 0.0, 0
			for _, r := range t.Rows {
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
			t.Geomean[ci] = math.NaN()
			if n > 0 {
				t.Geomean[ci] = math.Exp(sum / float64(n))
			}
		}
		c.Tables = append(c.Tables, t)
	}
	return c, nil
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

// WriteText writes benchstat-style tables.
func (c *Comparison) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for ti, t := range c.Tables {
		if ti > 0 {
			fmt.Fprintln(tw)
		}
		// Header: column names, then the unit (and "vs base").
		fmt.Fprintf(tw, "unit: %s\t", t.Unit)
		for ci, col := range c.Cols {
			if ci == c.Base {
				fmt.Fprintf(tw, "│ %s\t", col)
			} else {
				fmt.Fprintf(tw, "│ %s\t\t", col)
			}
		}
		fmt.Fprintln(tw, "│")
		fmt.Fprintf(tw, "\t")
		for ci := range c.Cols {
			if ci == c.Base {
				fmt.Fprintf(tw, "│ %s\t", t.Unit)
			} else {
				fmt.Fprintf(tw, "│ %s\tvs %s\t", t.Unit, c.Cols[c.Base])
			}
		}
		fmt.Fprintln(tw, "│")
		warnings := map[string]bool{}
		for _, r := range t.Rows {
			sc := rowScaler(r, t.Unit)
			fmt.Fprintf(tw, "%s\t", r.Name)
			for ci, cell := range r.Cells {
				fmt.Fprint(tw, "  ")
				if cell == nil {
					fmt.Fprint(tw, "¹\t")
				} else {
					fmt.Fprintf(tw, "%s ± %s\t", sc.Format(cell.Summary.Center), cell.Summary.PctRangeString())
					for _, w := range cell.Summary.Warnings {
						warnings[w.Error()] = true
					}
				}
				if ci != c.Base {
					if d := r.Deltas[ci]; d != nil {
						fmt.Fprintf(tw, "%s (%s)\t", d.Text, d.Cmp.String())
						for _, w := range d.Cmp.Warnings {
							warnings[w.Error()] = true
						}
					} else {
						fmt.Fprint(tw, "\t")
					}
				}
			}
			fmt.Fprintln(tw)
		}
		if len(t.Rows) > 1 {
			fmt.Fprintf(tw, "geomean\t")
			sc := benchunit.CommonScale(finite(t.Geomean), benchunit.ClassOf(t.Unit))
			for ci, g := range t.Geomean {
				if math.IsNaN(g) {
					fmt.Fprint(tw, "  ¹\t")
				} else {
					fmt.Fprintf(tw, "  %s\t", sc.Format(g))
				}
				if ci != c.Base {
					b := t.Geomean[c.Base]
					if math.IsNaN(g) || math.IsNaN(b) || b == 0 {
						fmt.Fprint(tw, "\t")
					} else {
						fmt.Fprintf(tw, "%+.2f%%\t", (g/b-1)*100)
					}
				}
			}
			fmt.Fprintln(tw)
		}
		var ws []string
		for w := range warnings {
			ws = append(ws, w)
		}
		sort.Strings(ws)
		for _, w := range ws {
			fmt.Fprintf(tw, "note: %s\n", w)
		}
	}
	return tw.Flush()
}

func finite(xs []float64) []float64 {
	var out []float64
	for _, x := range xs {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			out = append(out, x)
		}
	}
	return out
}

func rowScaler(r *Row, unit string) benchunit.Scaler {
	var centers []float64
	for _, c := range r.Cells {
		if c != nil {
			centers = append(centers, c.Summary.Center)
		}
	}
	return benchunit.CommonScale(centers, benchunit.ClassOf(unit))
}

// WriteCSV writes one line per unit, benchmark and column.
func (c *Comparison) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"unit", "benchmark", c.ColKey, "n", "center", "lo", "hi", "confidence", "vs", "delta_pct", "p", "verdict"})
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }
	for _, t := range c.Tables {
		for _, r := range t.Rows {
			for ci, cell := range r.Cells {
				if cell == nil {
					continue
				}
				s := cell.Summary
				rec := []string{t.Unit, r.Name, c.Cols[ci], strconv.Itoa(len(cell.Sample.Values)), f(s.Center), f(s.Lo), f(s.Hi), f(s.Confidence)}
				if d := r.Deltas[ci]; d != nil {
					rec = append(rec, c.Cols[c.Base], f(d.Pct), f(d.Cmp.P), d.Text)
				} else if ci == c.Base {
					rec = append(rec, "", "", "", "base")
				} else {
					rec = append(rec, "", "", "", "")
				}
				cw.Write(rec)
			}
		}
	}
	cw.Flush()
	return cw.Error()
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
	for i, p := range holm(ps) {
		ds[i].PHolm = p
		ds[i].SignificantHolm = ds[i].Significant && p <= alpha
	}
}

// holm returns Holm's step-down adjusted p-values, in the order of ps:
// sorted ascending, the k-th smallest (from 0) is multiplied by m-k,
// capped at 1, and made non-decreasing.
func holm(ps []float64) []float64 {
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
