package stats

import (
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"
)

// A FamilyRow is one comparison of a family: a benchmark of a unit in a
// column, against the baseline.
type FamilyRow struct {
	Unit, Benchmark, Col string
	Pct, P, PHolm        float64
}

// Family adjusts the p-values of every delta of the given units, every
// row and every column but the baseline together, with Holm's method:
// the correction for a conclusion drawn from all of them at once (for
// example "no knob setting changed the pause percentiles"), which the
// per-unit, per-column adjustment of the report (PHolm) does not make.
// Rows come back ordered by p.
func (c *Comparison) Family(units []string) []FamilyRow {
	var rows []FamilyRow
	for _, t := range c.Tables {
		if !slices.Contains(units, t.Unit) {
			continue
		}
		for _, r := range t.Rows {
			for ci, d := range r.Deltas {
				if d == nil || math.IsNaN(d.Cmp.P) {
					continue
				}
				rows = append(rows, FamilyRow{Unit: t.Unit, Benchmark: r.Name, Col: c.Cols[ci], Pct: d.Pct, P: d.Cmp.P})
			}
		}
	}
	ps := make([]float64, len(rows))
	for i, r := range rows {
		ps[i] = r.P
	}
	for i, p := range Holm(ps) {
		rows[i].PHolm = p
	}
	sort.SliceStable(rows, func(a, b int) bool { return rows[a].P < rows[b].P })
	return rows
}

// WriteFamily writes the family's rows with p below alpha, and how many
// comparisons it holds.
func WriteFamily(w io.Writer, rows []FamilyRow, units []string, alpha float64) {
	fmt.Fprintf(w, "family: %s; %d comparisons against the baseline, Holm-adjusted together\n", strings.Join(units, ", "), len(rows))
	n := 0
	for _, r := range rows {
		if r.P >= alpha {
			continue
		}
		n++
		fmt.Fprintf(w, "%s\t%s\t%s\t%+.2f%%\tp=%.3g\tholm=%.3g\n", r.Unit, r.Benchmark, r.Col, r.Pct, r.P, r.PHolm)
	}
	if n == 0 {
		fmt.Fprintf(w, "no comparison at p<%.2f\n", alpha)
	}
	for _, note := range UnitNotes(units...) {
		fmt.Fprintf(w, "note: %s\n", note)
	}
}
