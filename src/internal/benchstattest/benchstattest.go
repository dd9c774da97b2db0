// Package benchstattest checks, in tests, that the real benchstat
// reproduces schedlab's tables: it parses benchstat's text output and
// that of stats.Comparison.WriteText, and compares them row by row. The
// results folders' READMEs and a merge's README promise that benchstat
// command lines reproduce their tables; the tests of packages results
// and merge hold them to it. Only tests import it.
package benchstattest

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// A Table is one unit's table in benchstat's text output or in
// stats.Comparison.WriteText's.
type Table struct {
	unit    string
	cols    []string // column names, as in the first header line
	base    string   // the column the others are compared with
	rows    []Row
	geomean []string // its tokens without footnote marks, for the log
}

// A Row is one benchmark's row of a Table.
type Row struct {
	name  string
	cells []Cell // by column
}

// A Cell is one column of a Row.
type Cell struct {
	value string // "652.7µ ± 10%"; "" where the column has no data
	delta string // "~ (p=0.579 n=10)", "-2.13% (p=0.011 n=10)"; "" where there is none
}

// Parse reads the tables of benchstat's text output (writeText false)
// or of stats.Comparison.WriteText's (writeText true). A table starts
// with two header lines holding │: column names, then the unit and "vs
// base" (benchstat, whose base is the first column) or "vs <column>"
// (WriteText). Its rows follow up to a blank line. In benchstat's
// output superscripts are footnote marks and are dropped, and so are
// the footnotes; in WriteText's, ¹ stands for a cell without data, and
// note lines are dropped.
func Parse(text string, writeText bool) ([]Table, error) {
	var tables []Table
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	for i := 0; i+1 < len(lines); i++ {
		if !strings.Contains(lines[i], "│") || !strings.Contains(lines[i+1], "│") {
			continue
		}
		var t Table
		h1 := strings.Split(lines[i], "│")
		for _, c := range h1[1 : len(h1)-1] {
			t.cols = append(t.cols, strings.TrimSpace(c))
		}
		h2 := strings.Split(lines[i+1], "│")
		if f := strings.Fields(h2[1]); len(f) > 0 {
			t.unit = f[0]
		}
		t.base = t.cols[0]
		if _, vs, ok := strings.Cut(lines[i+1], " vs "); ok {
			if b := strings.Fields(vs)[0]; b != "base" {
				t.base = b
			}
		}
		if t.unit == "" || len(t.cols) == 0 {
			return nil, fmt.Errorf("line %d: no unit or columns in the table header", i+2)
		}
		for i += 2; i < len(lines) && strings.TrimSpace(lines[i]) != ""; i++ {
			if strings.Contains(lines[i], "│") {
				i--
				break
			}
			f := strings.Fields(lines[i])
			if isFootnote(f[0]) || f[0] == "note:" {
				continue
			}
			var toks []string
			for _, tok := range f[1:] {
				if writeText && tok == "¹" || !isFootnote(tok) {
					toks = append(toks, tok)
				}
			}
			if f[0] == "geomean" {
				t.geomean = slices.DeleteFunc(toks, isFootnote)
				continue
			}
			r := Row{name: f[0]}
			for j := 0; j < len(toks); {
				switch {
				case toks[j] == "¹":
					r.cells = append(r.cells, Cell{})
					j++
				case j+2 < len(toks) && toks[j+1] == "±":
					r.cells = append(r.cells, Cell{value: strings.Join(toks[j:j+3], " ")})
					j += 3
				case j+2 < len(toks) && strings.HasPrefix(toks[j+1], "(p=") && len(r.cells) > 0:
					r.cells[len(r.cells)-1].delta = strings.Join(toks[j:j+3], " ")
					j += 3
				default:
					return nil, fmt.Errorf("line %d: unexpected %q in %q", i+1, toks[j], lines[i])
				}
			}
			if len(r.cells) != len(t.cols) {
				return nil, fmt.Errorf("line %d: %d cells for %d columns in %q", i+1, len(r.cells), len(t.cols), lines[i])
			}
			t.rows = append(t.rows, r)
		}
		tables = append(tables, t)
	}
	return tables, nil
}

// isFootnote reports whether s is only superscript digits.
func isFootnote(s string) bool {
	return s != "" && strings.Trim(s, "⁰¹²³⁴⁵⁶⁷⁸⁹") == ""
}

// Compare compares benchstat's tables (got) with the ones WriteText
// wrote into a benchstat.txt (want): the same units in the same order; in each the same
// columns, less those without data in benchstat.txt; the same rows; and
// in every row the same center ± CI in each column and the same delta,
// p-value and counts against the base. Where benchstat.txt's base
// column has no data it compares nothing, while benchstat takes the
// first column with data as the base; those deltas are logged, not
// compared. Geomeans are not compared either (the README promises the
// rows): benchstat gives no geomean when a center is 0 and takes the
// geomean of the ratios, WriteText the ratio of the geomeans over the
// rows with data everywhere.
func Compare(t testing.TB, got, want []Table) {
	t.Helper()
	unitsOf := func(ts []Table) []string {
		var u []string
		for _, t := range ts {
			u = append(u, t.unit)
		}
		return u
	}
	if len(want) == 0 {
		t.Fatalf("benchstat.txt holds no tables")
	}
	if !slices.Equal(unitsOf(got), unitsOf(want)) {
		t.Errorf("units:\n  benchstat:     %v\n  benchstat.txt: %v", unitsOf(got), unitsOf(want))
	}
	byUnit := map[string]Table{}
	for _, g := range got {
		byUnit[g.unit] = g
	}
	for _, w := range want {
		g, ok := byUnit[w.unit]
		if !ok {
			continue // reported above
		}
		// The columns with data in benchstat.txt, by index into w.cols.
		var cols []int
		var names []string
		for ci, c := range w.cols {
			for _, r := range w.rows {
				if r.cells[ci].value != "" {
					cols = append(cols, ci)
					names = append(names, c)
					break
				}
			}
		}
		if !slices.Equal(g.cols, names) {
			t.Errorf("%s columns: benchstat %v, benchstat.txt %v (those with data)", w.unit, g.cols, names)
			continue
		}
		rebased := !slices.Contains(names, w.base)
		if rebased {
			if len(g.cols) > 1 {
				t.Logf("%s: the base column %s has no data, so benchstat.txt compares nothing; benchstat compares with %s (not checked)", w.unit, w.base, g.base)
			}
		} else if g.base != w.base {
			t.Errorf("%s base: benchstat %s, benchstat.txt %s", w.unit, g.base, w.base)
			continue
		}
		if len(g.rows) != len(w.rows) {
			t.Errorf("%s: benchstat has %d rows, benchstat.txt %d", w.unit, len(g.rows), len(w.rows))
		}
		for i := 0; i < len(g.rows) && i < len(w.rows); i++ {
			gr, wr := g.rows[i], w.rows[i]
			if gr.name != wr.name {
				t.Errorf("%s row %d: benchstat %s, benchstat.txt %s", w.unit, i+1, gr.name, wr.name)
				continue
			}
			for gi, ci := range cols {
				gc, wc := gr.cells[gi], wr.cells[ci]
				if gc.value != wc.value {
					t.Errorf("%s %s %s: benchstat %q, benchstat.txt %q", w.unit, wr.name, w.cols[ci], gc.value, wc.value)
				}
				if (!rebased || wc.delta != "") && gc.delta != wc.delta {
					t.Errorf("%s %s %s vs %s: benchstat %q, benchstat.txt %q", w.unit, wr.name, w.cols[ci], w.base, gc.delta, wc.delta)
				}
			}
		}
		if !slices.Equal(g.geomean, w.geomean) {
			t.Logf("%s geomean (not compared): benchstat %q, benchstat.txt %q", w.unit, g.geomean, w.geomean)
		}
	}
}
