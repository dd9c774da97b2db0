package stats

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"golang.org/x/perf/benchunit"
)

// WriteText writes benchstat-style tables. Each table ends with its
// "note:" lines: benchstat's warnings, then the caveat its unit carries
// (UnitNote).
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
		if n := UnitNote(t.Unit); n != "" {
			fmt.Fprintf(tw, "note: %s\n", n)
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

// WriteCSV writes one line per unit, benchmark and column. p_holm is p
// adjusted with Holm's method over the rows of the same unit and column,
// and limit the largest difference the two intervals allow (Delta).
func (c *Comparison) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"unit", "benchmark", c.ColKey, "n", "center", "lo", "hi", "confidence", "vs", "delta_pct", "p", "verdict", "p_holm", "limit_pct"})
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
					rec = append(rec, c.Cols[c.Base], f(d.Pct), f(d.Cmp.P), d.Text, f(d.PHolm), f(d.Limit))
				} else if ci == c.Base {
					rec = append(rec, "", "", "", "base", "", "")
				} else {
					rec = append(rec, "", "", "", "", "", "")
				}
				cw.Write(rec)
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// Brief formats d for a table cell: the change with its p-value, or
// for no significant difference the largest difference the run could
// have missed; "–" for a nil d (no data).
func (d *Delta) Brief() string {
	if d == nil {
		return "–"
	}
	if !d.Significant {
		if math.IsNaN(d.Limit) {
			return "~"
		}
		return fmt.Sprintf("~ (±%.1f%%)", d.Limit)
	}
	pct := d.Text
	if !math.IsNaN(d.Pct) {
		pct = fmt.Sprintf("%+.1f%%", d.Pct)
	}
	return fmt.Sprintf("%s (p=%.3f)", pct, d.Cmp.P)
}

// Verdict says in words how column ci compares with the base column
// over the table's rows: which rows are better or worse at p<0.05, how
// many of those stay significant after Holm's correction, how large a
// difference the others could have missed, and the change in geomean.
func (t *UnitTable) Verdict(ci, base int) string {
	better, worse := "better", "worse"
	if t.Unit == "sec/op" {
		better, worse = "faster", "slower"
	}
	var good, bad []string
	same, missing, holmKept := 0, 0, 0
	var limits []float64 // detection limits of the rows without a difference
	for _, r := range t.Rows {
		d := r.Deltas[ci]
		if d == nil {
			missing++
			continue
		}
		if !d.Significant || math.IsNaN(d.Pct) {
			same++
			if !math.IsNaN(d.Limit) {
				limits = append(limits, d.Limit)
			}
			continue
		}
		if d.SignificantHolm {
			holmKept++
		}
		up := d.Pct > 0
		s := fmt.Sprintf("%s %+.1f%% (p=%.3f, Holm p=%.3f)", r.Name, d.Pct, d.Cmp.P, d.PHolm)
		if up == t.BetterHigher {
			good = append(good, s)
		} else {
			bad = append(bad, s)
		}
	}
	dir := "lower is better"
	if t.BetterHigher {
		dir = "higher is better"
	}
	s := fmt.Sprintf("%s (%s): ", t.Unit, dir)
	var parts []string
	if len(good) > 0 {
		parts = append(parts, fmt.Sprintf("%d %s at p<0.05 (%s)", len(good), better, strings.Join(good, ", ")))
	}
	if len(bad) > 0 {
		parts = append(parts, fmt.Sprintf("%d %s at p<0.05 (%s)", len(bad), worse, strings.Join(bad, ", ")))
	}
	if n := len(good) + len(bad); n > 0 {
		if holmKept == 0 {
			parts = append(parts, fmt.Sprintf("none of the %d significant after Holm's correction over the %d rows", n, len(t.Rows)-missing))
		} else {
			parts = append(parts, fmt.Sprintf("%d of these significant after Holm's correction over the %d rows", holmKept, len(t.Rows)-missing))
		}
	}
	if same > 0 {
		part := fmt.Sprintf("%d without a significant difference", same)
		if len(limits) > 0 {
			sort.Float64s(limits)
			// The median: with an even count, the mean of the middle
			// two (not the upper one, as this line once took).
			n := len(limits)
			med := (limits[(n-1)/2] + limits[n/2]) / 2
			part += fmt.Sprintf(" (differences these rows could have missed, from the two intervals: median ±%.1f%%, largest ±%.1f%%)", med, limits[n-1])
		}
		parts = append(parts, part)
	}
	if missing > 0 {
		parts = append(parts, fmt.Sprintf("%d not comparable (missing data)", missing))
	}
	s += strings.Join(parts, "; ")
	if len(t.Rows) > 1 {
		g, gb := t.Geomean[ci], t.Geomean[base]
		if !math.IsNaN(g) && !math.IsNaN(gb) && gb != 0 {
			s += fmt.Sprintf("; geomean %+.2f%%", (g/gb-1)*100)
		}
	}
	return s
}
