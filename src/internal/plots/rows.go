package plots

import (
	"fmt"
	"image/color"
	"math"
	"sort"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/schedlab/schedlab/src/internal/stats"
)

// rowMarks draws one column's marks on a plot with one benchmark per row:
// row i of n is at y = n-1-i (the first row on top), and column k of
// ncols gets its own band within the row. Values are in data units.
type rowMarks struct {
	name     string // the variant's
	k, ncols int
	color    color.Color
	bars     bool        // a bar from 0 to center; otherwise a dot at center
	center   []float64   // per row; NaN: nothing in this row
	lo, hi   []float64   // CI whisker; NaN: none
	pale     []bool      // draw pale: not significant
	runs     [][]float64 // individual runs, small dots
}

// rowY is the y of column k's band in row i of n.
func rowY(i, n, k, ncols int) float64 {
	return float64(n-1-i) + 0.4 - 0.8*(float64(k)+0.5)/float64(ncols)
}

func (m *rowMarks) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	n := len(m.center)
	band := trY(0.8/float64(m.ncols)) - trY(0) // height of one band on the canvas
	for i := range m.center {
		y := rowY(i, n, m.k, m.ncols)
		cy := trY(y)
		fill := m.color
		if m.pale != nil && m.pale[i] {
			fill = paler(m.color)
		}
		if ctr := m.center[i]; isFinite(ctr) {
			if m.bars {
				r := vg.Rectangle{
					Min: vg.Point{X: min(trX(0), trX(ctr)), Y: cy - band*0.4},
					Max: vg.Point{X: max(trX(0), trX(ctr)), Y: cy + band*0.4},
				}
				c.SetColor(fill)
				c.Fill(r.Path())
				c.StrokeLines(draw.LineStyle{Color: m.color, Width: vg.Points(0.5)}, c.ClipLinesXY([]vg.Point{r.Min, {X: r.Max.X, Y: r.Min.Y}, r.Max, {X: r.Min.X, Y: r.Max.Y}, r.Min})...)
			}
		}
		for j, v := range runsOf(m.runs, i) {
			// Spread the runs over the band so that equal values stay
			// visible.
			dy := band * vg.Length(0.6*(float64(j%5)/4-0.5))
			pt := vg.Point{X: trX(v), Y: cy + dy}
			if c.Contains(pt) {
				c.DrawGlyph(draw.GlyphStyle{Color: withAlpha(m.color, 0x70), Radius: vg.Points(1.3), Shape: draw.CircleGlyph{}}, pt)
			}
		}
		if lo, hi := m.lo[i], m.hi[i]; isFinite(lo) && isFinite(hi) {
			ls := draw.LineStyle{Color: color.Black, Width: vg.Points(0.8)}
			x0, x1 := trX(lo), trX(hi)
			cap := band * 0.25
			c.StrokeLines(ls, c.ClipLinesXY(
				[]vg.Point{{X: x0, Y: cy}, {X: x1, Y: cy}},
				[]vg.Point{{X: x0, Y: cy - cap}, {X: x0, Y: cy + cap}},
				[]vg.Point{{X: x1, Y: cy - cap}, {X: x1, Y: cy + cap}})...)
		}
		if ctr := m.center[i]; isFinite(ctr) && !m.bars {
			pt := vg.Point{X: trX(ctr), Y: cy}
			if c.Contains(pt) {
				c.DrawGlyph(draw.GlyphStyle{Color: fill, Radius: vg.Points(3), Shape: draw.CircleGlyph{}}, pt)
				c.DrawGlyph(draw.GlyphStyle{Color: color.Black, Radius: vg.Points(3), Shape: draw.RingGlyph{}}, pt)
			}
		}
	}
}

func isFinite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// finiteOrZero is v, or 0 for an infinite or missing bound (an error bar
// of length 0).
func finiteOrZero(v float64) float64 {
	if isFinite(v) {
		return v
	}
	return 0
}

func runsOf(runs [][]float64, i int) []float64 {
	if runs == nil {
		return nil
	}
	return runs[i]
}

func (m *rowMarks) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, xmax = math.Inf(1), math.Inf(-1)
	see := func(v float64) {
		if isFinite(v) {
			xmin, xmax = math.Min(xmin, v), math.Max(xmax, v)
		}
	}
	if m.bars {
		see(0)
	}
	for i := range m.center {
		see(m.center[i])
		see(m.lo[i])
		see(m.hi[i])
		for _, v := range runsOf(m.runs, i) {
			see(v)
		}
	}
	if xmin > xmax {
		xmin, xmax = 0, 1
	}
	return xmin, xmax, -0.5, float64(len(m.center)) - 0.5
}

// Thumbnail draws the legend entry: the column's colour.
func (m *rowMarks) Thumbnail(c *draw.Canvas) {
	c.SetColor(m.color)
	c.Fill(c.Rectangle.Path())
}

// paleThumb is the legend entry for pale (not significant) marks.
type paleThumb struct{}

func (paleThumb) Thumbnail(c *draw.Canvas) {
	c.SetColor(color.Gray{0xd8})
	c.Fill(c.Rectangle.Path())
}

func withAlpha(c color.Color, a uint8) color.Color {
	r, g, b, _ := c.RGBA()
	return color.NRGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), a}
}

// paler mixes c with white, 3 parts to 1.
func paler(c color.Color) color.Color {
	r, g, b, _ := c.RGBA()
	mix := func(v uint32) uint8 { return uint8((v>>8 + 3*0xff) / 4) }
	return color.NRGBA{mix(r), mix(g), mix(b), 0xff}
}

// rowPlot starts a plot with one benchmark per row (names, the first on
// top) and returns it with the height it needs: rows tall enough for
// ncols bands, and room above them for legend entries.
func rowPlot(names []string, ncols, legend int) (*plot.Plot, vg.Length) {
	p := plot.New()
	p.NominalY(bottomUp(names)...)
	p.X.Tick.Marker = niceTicks{}
	p.Add(plotter.NewGrid())
	// Rows tall enough for a band per variant, unless the figure would
	// then be taller than a page: then the bands get thinner.
	const margins = 90                 // points: title, caption, x axis
	legendH := float64(legend)*9.5 + 4 // a 9-point legend entry takes about 9.5 points
	rowH := math.Max(16, 9*float64(ncols)+6)
	if most := (MaxFigureHeight.Points() - margins - legendH) / float64(len(names)); rowH > most {
		rowH = most
	}
	// The legend is drawn inside the data area, top right; keep that
	// area free by extending the y range over empty rows.
	free := legendH / rowH
	p.Y.Min, p.Y.Max = -0.5, float64(len(names))-0.5+free
	p.Legend.Top = true
	p.Legend.TextStyle.Font.Size = vg.Points(9)
	h := vg.Points(rowH*(float64(len(names))+free) + margins)
	return p, h
}

// bottomUp returns names in reverse: a nominal axis counts from the
// bottom, and the first benchmark goes on top.
func bottomUp(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[len(names)-1-i] = n
	}
	return out
}

// rowNames are the benchmarks of t, one per row.
func rowNames(t *stats.UnitTable) []string {
	names := make([]string, len(t.Rows))
	for i, r := range t.Rows {
		names[i] = r.Name
	}
	return names
}

// maxVariantsPerPanel is the most variants a plot with one benchmark per
// row draws in one panel, a coloured band each, with a legend that names
// them by colour. More would not be read: past eight, categorical colours
// are no longer told apart at a glance (the palette's last ones are
// already dark teal beside blue and olive beside green), the legend
// grows as tall as the rows, and a suite of 14 benchmarks on a page
// leaves each band under 4 points. A figure of more variants is drawn as
// small multiples (smallMultiples): a panel per variant, which its title
// names, so that no colour has to.
const maxVariantsPerPanel = 8

// A rowChart is what a plot with one benchmark per row shows, before it
// is laid out: one panel with a band per variant, or, with more than
// maxVariantsPerPanel variants, a grid of one panel per variant.
type rowChart struct {
	title, caption string // the quantity; the folder and series
	xLabel         string // with its unit
	rows           []string
	marks          []*rowMarks    // one per variant: its name and marks
	cols           []int          // the comparison's column each of marks draws
	over           []plot.Plotter // drawn over the marks in every panel
	// nameVariants says whether a single panel's legend names the
	// variants (not where there is only one).
	nameVariants bool
	// alpha is the level at which marks are pale (not significant); 0
	// where none are.
	alpha float64
	// xLimit narrows the data's x range (nil: keep it).
	xLimit func(lo, hi float64) (float64, float64)
}

// A rowFigure is a rowChart laid out, ready to save: its size, how to
// paint it, what it holds (figure.Panels, and marks[i] the marks panel i
// draws) and, for small multiples, the panels by grid row and column
// (nil where a row has fewer).
type rowFigure struct {
	w, h   vg.Length
	paint  func(draw.Canvas)
	figure Figure
	marks  [][]*rowMarks
	grid   [][]*plot.Plot
}

func (f *rowFigure) save(path string) error {
	return SaveDrawing(f.w, f.h, path, f.paint, f.figure)
}

// layout lays ch out: in one panel, or as small multiples when it has
// more variants than one panel tells apart.
func (ch *rowChart) layout() *rowFigure {
	if len(ch.marks) > maxVariantsPerPanel {
		return ch.smallMultiples()
	}
	return ch.singlePanel()
}

// xRange is the x range every panel of ch shares: the data's, narrowed
// by xLimit.
func (ch *rowChart) xRange() (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, m := range ch.marks {
		x0, x1, _, _ := m.DataRange()
		lo, hi = math.Min(lo, x0), math.Max(hi, x1)
	}
	if lo > hi {
		lo, hi = 0, 1
	}
	if ch.xLimit != nil {
		lo, hi = ch.xLimit(lo, hi)
	}
	if lo == hi {
		// Every value alike (a gauge no variant moves): the range an
		// axis is drawn over then.
		lo, hi = lo-1, hi+1
	}
	return lo, hi
}

// singlePanel draws every variant of ch in one panel, a band each in a
// colour of its own, named in the legend.
func (ch *rowChart) singlePanel() *rowFigure {
	legend := 0
	if ch.nameVariants {
		legend = len(ch.marks)
	}
	if ch.alpha > 0 {
		legend++
	}
	p, h := rowPlot(ch.rows, len(ch.marks), legend)
	p.Title.Text = withCaption(ch.title, ch.caption)
	p.X.Label.Text = ch.xLabel
	colors := variantColors(ch.cols)
	for k, m := range ch.marks {
		m.k, m.ncols, m.color = k, len(ch.marks), colors[k]
		p.Add(m)
		if ch.nameVariants {
			p.Legend.Add(m.name, m)
		}
	}
	if ch.alpha > 0 {
		p.Legend.Add(fmt.Sprintf("pale: not significant (p > %g)", ch.alpha), paleThumb{})
	}
	p.Add(ch.over...)
	p.X.Min, p.X.Max = ch.xRange()
	return &rowFigure{w: plotWidth, h: h, paint: p.Draw,
		figure: Figure{Panels: []*plot.Plot{p}}, marks: [][]*rowMarks{ch.marks}}
}

// plotDeltas plots each variant's change against the base, per
// benchmark: a bar to the change of the median, with the range that the
// two 95% CIs allow as a whisker (Delta.Limit's bounds), pale where the
// difference is not significant.
func plotDeltas(path string, c *stats.Comparison, t *stats.UnitTable, caption string) error {
	return deltaChart(c, t, caption).layout().save(path)
}

func deltaChart(c *stats.Comparison, t *stats.UnitTable, caption string) *rowChart {
	cols := columnsWithData(c, t, c.Base)
	q := quantityFor(t.Unit, 0)
	ch := &rowChart{
		title:   fmt.Sprintf("%s: change against %s", q.name, c.Cols[c.Base]),
		caption: caption,
		xLabel:  "change of the median (%); whiskers: range the two CIs (≥95%) allow",
		rows:    rowNames(t), cols: cols, over: []plot.Plotter{vline(0)},
		nameVariants: true, alpha: c.Alpha,
	}
	n := len(t.Rows)
	for _, ci := range cols {
		m := &rowMarks{name: c.Cols[ci], bars: true,
			center: nans(n), lo: nans(n), hi: nans(n), pale: make([]bool, n)}
		for i, r := range t.Rows {
			d := r.Deltas[ci]
			if d == nil || math.IsNaN(d.Pct) {
				continue
			}
			m.center[i] = d.Pct
			m.pale[i] = !d.Significant
			base, cell := r.Cells[c.Base].Summary, r.Cells[ci].Summary
			if base.Lo > 0 && base.Hi > 0 && cell.Lo > 0 && cell.Hi > 0 {
				m.lo[i] = 100 * (cell.Lo/base.Hi - 1)
				m.hi[i] = 100 * (cell.Hi/base.Lo - 1)
			}
		}
		ch.marks = append(ch.marks, m)
	}
	ch.xLabel = deltaXLabel(ch.marks)
	if lim, cut := deltaAxisLimit(ch.marks); cut {
		ch.xLimit = func(lo, hi float64) (float64, float64) { return math.Max(lo, -lim), math.Min(hi, lim) }
		ch.xLabel += "\n(longer whiskers are cut at the edge)"
	}
	return ch
}

// deltaXLabel is a change plot's x label, which says what its whiskers
// are only where it draws some: with two or three runs a side a median
// has no interval, and with a base interval that reaches zero a ratio
// has no bound.
func deltaXLabel(marks []*rowMarks) string {
	bars, whiskers := 0, 0
	for _, m := range marks {
		for i := range m.center {
			if !isFinite(m.center[i]) {
				continue
			}
			bars++
			if isFinite(m.lo[i]) && isFinite(m.hi[i]) {
				whiskers++
			}
		}
	}
	switch {
	case whiskers == 0:
		return "change of the median (%); no whiskers: too few runs for CIs"
	case whiskers < bars:
		return "change of the median (%); whiskers, where both CIs exist:\nthe range they allow (≥95%)"
	}
	return "change of the median (%); whiskers: range the two CIs (≥95%) allow"
}

// deltaAxisLimit returns the half-width of a change plot's x axis that
// keeps every bar and most whiskers readable, and whether some whisker
// reaches beyond it: one very noisy row (a ±250% interval) would
// otherwise squeeze every bar into a few pixels around zero.
func deltaAxisLimit(marks []*rowMarks) (float64, bool) {
	var bars, ends []float64
	for _, m := range marks {
		for i := range m.center {
			if isFinite(m.center[i]) {
				bars = append(bars, math.Abs(m.center[i]))
			}
			for _, e := range []float64{m.lo[i], m.hi[i]} {
				if isFinite(e) {
					ends = append(ends, math.Abs(e))
				}
			}
		}
	}
	if len(ends) == 0 {
		return 0, false
	}
	sort.Float64s(ends)
	lim := ends[len(ends)*8/10] // most whiskers fit
	for _, b := range bars {
		lim = math.Max(lim, 1.3*b) // every bar fits
	}
	return lim, ends[len(ends)-1] > lim
}

// plotLevels plots each variant's level per benchmark: the median with
// its 95% CI and every run.
func plotLevels(path string, c *stats.Comparison, t *stats.UnitTable, caption string) error {
	return levelChart(c, t, caption).layout().save(path)
}

func levelChart(c *stats.Comparison, t *stats.UnitTable, caption string) *rowChart {
	cols := columnsWithData(c, t, -1)
	q := quantityFor(t.Unit, tableMagnitude(t))
	ch := &rowChart{
		title:   q.name + " by variant",
		caption: caption,
		xLabel:  q.label() + "; median, CI (≥95%) and each run",
		rows:    rowNames(t), cols: cols, nameVariants: len(c.Cols) > 1,
	}
	if len(c.Cols) == 1 {
		ch.title = q.name
	}
	n := len(t.Rows)
	for _, ci := range cols {
		m := &rowMarks{name: c.Cols[ci],
			center: nans(n), lo: nans(n), hi: nans(n), runs: make([][]float64, n)}
		for i, r := range t.Rows {
			cell := r.Cells[ci]
			if cell == nil {
				continue
			}
			s := cell.Summary
			m.center[i], m.lo[i], m.hi[i] = s.Center*q.scale, s.Lo*q.scale, s.Hi*q.scale
			for _, v := range cell.Sample.Values {
				m.runs[i] = append(m.runs[i], v*q.scale)
			}
		}
		ch.marks = append(ch.marks, m)
	}
	if strings.HasSuffix(t.Unit, "-share") {
		ch.xLimit = func(lo, hi float64) (float64, float64) { return 0, 100 }
	}
	return ch
}

func nans(n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = math.NaN()
	}
	return s
}

// vline is a vertical line at x across the whole plot.
type vline float64

func (x vline) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, _ := plt.Transforms(&c)
	cx := trX(float64(x))
	c.StrokeLines(draw.LineStyle{Color: color.Black, Width: vg.Points(0.8)},
		c.ClipLinesXY([]vg.Point{{X: cx, Y: c.Min.Y}, {X: cx, Y: c.Max.Y}})...)
}
