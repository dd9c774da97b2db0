package harness

import (
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/perf/benchunit"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// The plots of a report are made to go into a paper as they are:
//
//   - every axis names a quantity and its unit (times scaled to s, ms,
//     µs or ns; shares in %; knobs in their own unit);
//   - knob sweeps that span a decade or more use a log axis, ticked at
//     the values that ran;
//   - every median comes with its 95% CI, and levels and sweeps also show
//     each run, so a reader sees the spread behind a median;
//   - reference variants (stock in a sweep) are a line with their CI as a
//     band, inside the plotted range;
//   - in change plots, differences that are not significant are pale, and
//     the legend says so.
//
// Each plot is written as SVG and, next to it, as PNG.

// plotWidth is the width of every plot: a single column of a two-column
// paper page scaled to fit, or a full-width figure.
const plotWidth = 6.5 * vg.Inch

// writePlots writes the plots of a report and returns their paths
// (the SVGs) relative to dir: for a comparison, the change of each
// variant against the base per unit, and the levels of each variant for
// shares (and for every unit when there is only one variant); for a
// sweep, each chosen metric against the knob, and the trade-offs.
func writePlots(dir string, c *Comparison, meta *Metadata) ([]string, error) {
	if err := os.MkdirAll(filepath.Join(dir, PlotsDir), 0o755); err != nil {
		return nil, err
	}
	var out []string
	if meta.Sweep == nil {
		for _, t := range c.Tables {
			if len(c.Cols) > 1 {
				rel := filepath.Join(PlotsDir, "delta-"+unitFile(t.Unit)+".svg")
				if err := plotDeltas(filepath.Join(dir, rel), c, t); err != nil {
					return nil, err
				}
				out = append(out, rel)
			}
			if len(c.Cols) == 1 || strings.HasSuffix(t.Unit, "-share") {
				rel := filepath.Join(PlotsDir, "levels-"+unitFile(t.Unit)+".svg")
				if err := plotLevels(filepath.Join(dir, rel), c, t); err != nil {
					return nil, err
				}
				out = append(out, rel)
			}
		}
	}
	if meta.Sweep != nil {
		ps, err := plotSweep(dir, c, meta.Sweep)
		if err != nil {
			return nil, err
		}
		out = append(out, ps...)
		ps, err = plotTradeoffs(dir, c, meta.Sweep)
		if err != nil {
			return nil, err
		}
		out = append(out, ps...)
	}
	return out, nil
}

// savePlot writes p as an SVG at path and as a 200-dpi PNG beside it.
func savePlot(p *plot.Plot, w, h vg.Length, path string) error {
	if err := p.Save(w, h, path); err != nil {
		return err
	}
	img := vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(200))}
	p.Draw(draw.New(img))
	f, err := os.Create(strings.TrimSuffix(path, ".svg") + ".png")
	if err != nil {
		return err
	}
	if _, err := img.WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// columnsWithData returns the columns of c that have a cell in some row
// of t, leaving out skip (-1 for none).
func columnsWithData(c *Comparison, t *UnitTable, skip int) []int {
	var cols []int
	for ci := range c.Cols {
		if ci == skip {
			continue
		}
		for _, r := range t.Rows {
			if r.Cells[ci] != nil {
				cols = append(cols, ci)
				break
			}
		}
	}
	return cols
}

// A quantity says how to show values of a benchmark unit on an axis:
// multiplied by scale, as name (unit).
type quantity struct {
	name, unit string
	scale      float64
}

func (q quantity) label() string {
	if q.unit == "" {
		return q.name
	}
	return q.name + " (" + q.unit + ")"
}

// quantityFor returns how to show values of unit (as benchunit.Tidy
// names it: times in sec) whose magnitude is about mag.
func quantityFor(unit string, mag float64) quantity {
	words := func(s string) string { return strings.ReplaceAll(s, "-", " ") }
	if s, ok := strings.CutSuffix(unit, "-share"); ok {
		return quantity{words(s) + " share", "%", 100}
	}
	if s, per, ok := strings.Cut(unit, "sec"); ok {
		// sec/op, cpu-sec/op, p99-wake-sec, p50-latency-sec.
		name := strings.TrimSuffix(s, "-")
		switch {
		case name == "":
			name = "time"
		case name == "cpu":
			name = "CPU time"
		case strings.HasSuffix(name, "-wake"):
			name = words(name) + "-up delay"
		default:
			name = words(name)
		}
		if per != "" {
			name += " per " + strings.TrimPrefix(per, "/")
		}
		u, scale := "s", 1.0
		switch mag = math.Abs(mag); {
		case mag == 0 || math.IsNaN(mag) || mag >= 1:
		case mag >= 1e-3:
			u, scale = "ms", 1e3
		case mag >= 1e-6:
			u, scale = "µs", 1e6
		default:
			u, scale = "ns", 1e9
		}
		return quantity{name, u, scale}
	}
	if s, ok := strings.CutSuffix(unit, "/s"); ok {
		return quantity{words(s), "per second", 1}
	}
	if unit == "B/op" {
		return quantity{"memory allocated per op", "bytes", 1}
	}
	if s, ok := strings.CutSuffix(unit, "/op"); ok {
		return quantity{words(s) + " per op", "", 1}
	}
	if s, per, ok := strings.Cut(unit, "/"); ok {
		return quantity{words(s) + " per " + per, "", 1}
	}
	return quantity{words(unit), "", 1}
}

// knobUnits are the units of the schedlab knobs, for sweep axes.
var knobUnits = map[string]string{
	"timeslice":     "µs",
	"sysmontick":    "µs",
	"sysmonmaxtick": "µs",
	"sysmonnetpoll": "µs",
	"sysmonidle":    "sysmon rounds",
	"numafake":      "nodes",
}

func knobLabel(knob string) string {
	if u := knobUnits[knob]; u != "" {
		return "GODEBUG " + knob + " (" + u + ")"
	}
	return "GODEBUG " + knob
}

// knobShort names a knob and its unit in few words: "timeslice in µs".
func knobShort(knob string) string {
	if u := knobUnits[knob]; u != "" {
		return knob + " in " + u
	}
	return knob
}

// tableMagnitude is the median of the centers of t's cells: the scale
// its values are shown at.
func tableMagnitude(t *UnitTable) float64 {
	var cs []float64
	for _, r := range t.Rows {
		for _, cell := range r.Cells {
			if cell != nil && !math.IsNaN(cell.Summary.Center) {
				cs = append(cs, math.Abs(cell.Summary.Center))
			}
		}
	}
	if len(cs) == 0 {
		return 0
	}
	sort.Float64s(cs)
	return cs[len(cs)/2]
}

// rowMarks draws one column's marks on a plot with one benchmark per row:
// row i of n is at y = n-1-i (the first row on top), and column k of
// ncols gets its own band within the row. Values are in data units.
type rowMarks struct {
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

// variantPalette is Tableau 10 with its grey replaced by near-black (grey
// is what pale, non-significant marks are drawn in): ten colours that
// stay apart in print and for the common colour-vision deficiencies.
// gonum's default has seven, and the NUMA study has nine variants.
var variantPalette = []color.Color{
	color.RGBA{0x4e, 0x79, 0xa7, 0xff}, color.RGBA{0xf2, 0x8e, 0x2b, 0xff}, color.RGBA{0xe1, 0x57, 0x59, 0xff},
	color.RGBA{0x76, 0xb7, 0xb2, 0xff}, color.RGBA{0x59, 0xa1, 0x4f, 0xff}, color.RGBA{0xed, 0xc9, 0x48, 0xff},
	color.RGBA{0xb0, 0x7a, 0xa1, 0xff}, color.RGBA{0xff, 0x9d, 0xa7, 0xff}, color.RGBA{0x9c, 0x75, 0x5f, 0xff},
	color.RGBA{0x3b, 0x3b, 0x3b, 0xff},
}

// variantColor is column i's colour, the same in every plot of a folder.
func variantColor(i int) color.Color { return variantPalette[i%len(variantPalette)] }

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

// rowPlot starts a plot with one benchmark per row and returns it with
// the height it needs: rows tall enough for ncols bands, and room above
// them for legend entries.
func rowPlot(t *UnitTable, ncols, legend int) (*plot.Plot, vg.Length) {
	p := plot.New()
	names := make([]string, len(t.Rows))
	for i, r := range t.Rows {
		names[len(t.Rows)-1-i] = r.Name
	}
	p.NominalY(names...)
	p.X.Tick.Marker = niceTicks{}
	p.Add(plotter.NewGrid())
	rowH := vg.Points(math.Max(16, 9*float64(ncols)+6))
	// The legend is drawn inside the data area, top right; keep that
	// area free by extending the y range over empty rows.
	// A 9-point legend entry takes about 9.5 points of height.
	free := (float64(legend)*9.5 + 4) / rowH.Points()
	p.Y.Min, p.Y.Max = -0.5, float64(len(t.Rows))-0.5+free
	p.Legend.Top = true
	p.Legend.TextStyle.Font.Size = vg.Points(9)
	h := rowH*vg.Length(float64(len(t.Rows))+free) + vg.Points(90)
	return p, h
}

// plotDeltas plots each variant's change against the base, per
// benchmark: a bar to the change of the median, with the range that the
// two 95% CIs allow as a whisker (Delta.Limit's bounds), pale where the
// difference is not significant.
func plotDeltas(path string, c *Comparison, t *UnitTable) error {
	cols := columnsWithData(c, t, c.Base)
	p, h := rowPlot(t, len(cols), len(cols)+1)
	q := quantityFor(t.Unit, 0)
	p.Title.Text = fmt.Sprintf("%s: change against %s", q.name, c.Cols[c.Base])
	p.X.Label.Text = "change of the median (%); whiskers: range the two 95% CIs allow"
	n := len(t.Rows)
	var marks []*rowMarks
	for k, ci := range cols {
		m := &rowMarks{k: k, ncols: len(cols), color: variantColor(ci), bars: true,
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
		p.Add(m)
		p.Legend.Add(c.Cols[ci], m)
		marks = append(marks, m)
	}
	p.Legend.Add(fmt.Sprintf("pale: not significant (p > %g)", c.alpha), paleThumb{})
	p.Add(vline(0))
	if lim, cut := deltaAxisLimit(marks); cut {
		p.X.Min, p.X.Max = math.Max(p.X.Min, -lim), math.Min(p.X.Max, lim)
		p.X.Label.Text += "\n(longer whiskers are cut at the edge)"
	}
	return savePlot(p, plotWidth, h, path)
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
func plotLevels(path string, c *Comparison, t *UnitTable) error {
	cols := columnsWithData(c, t, -1)
	p, h := rowPlot(t, len(cols), len(cols))
	q := quantityFor(t.Unit, tableMagnitude(t))
	p.Title.Text = q.name + " by variant"
	if len(c.Cols) == 1 {
		p.Title.Text = q.name
	}
	p.X.Label.Text = q.label() + "; median, 95% CI and each run"
	n := len(t.Rows)
	for k, ci := range cols {
		m := &rowMarks{k: k, ncols: len(cols), color: variantColor(ci),
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
		p.Add(m)
		if len(c.Cols) > 1 {
			p.Legend.Add(c.Cols[ci], m)
		}
	}
	if strings.HasSuffix(t.Unit, "-share") {
		p.X.Min, p.X.Max = 0, 100
	}
	return savePlot(p, plotWidth, h, path)
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

// sweepAxis sets up the x axis of a sweep over the knob values xs: log
// when they span a decade or more, ticked at the values that ran.
func sweepAxis(p *plot.Plot, knob string, xs []float64) {
	p.X.Label.Text = knobLabel(knob)
	sorted := append([]float64(nil), xs...)
	sort.Float64s(sorted)
	var ticks plot.ConstantTicks
	for _, x := range sorted {
		ticks = append(ticks, plot.Tick{Value: x, Label: strconv.FormatFloat(x, 'g', -1, 64)})
	}
	p.X.Tick.Marker = ticks
	lo, hi := sorted[0], sorted[len(sorted)-1]
	if lo > 0 && hi/lo >= 10 {
		p.X.Scale = plot.LogScale{}
		p.X.Min, p.X.Max = lo/1.25, hi*1.25
	} else {
		pad := (hi - lo) * 0.06
		p.X.Min, p.X.Max = lo-pad, hi+pad
	}
}

type errPoints struct {
	plotter.XYs
	plotter.YErrors
}

func plotSweep(dir string, c *Comparison, s *SweepInfo) ([]string, error) {
	// Column -> knob value.
	xs := map[int]float64{}
	var all []float64
	for ci, col := range c.Cols {
		for _, v := range s.Values {
			if col == s.Knob+"="+v {
				if x, err := strconv.ParseFloat(v, 64); err == nil {
					xs[ci] = x
					all = append(all, x)
				}
			}
		}
	}
	if len(all) == 0 {
		return nil, nil
	}
	var out []string
	for _, metric := range s.Metrics {
		_, metric = benchunit.Tidy(1, metric) // ns/op -> sec/op, p99-wake-ns -> p99-wake-sec
		t := c.Table(metric)
		if t == nil {
			continue
		}
		for _, r := range t.Rows {
			p, err := sweepPlot(c, s, r, metric, xs, all)
			if err != nil {
				return nil, err
			}
			if p == nil {
				continue
			}
			rel := filepath.Join(PlotsDir, "sweep-"+unitFile(metric)+"-"+sanitize(r.Name)+".svg")
			if err := savePlot(p, plotWidth*0.7, plotWidth*0.5, filepath.Join(dir, rel)); err != nil {
				return nil, err
			}
			out = append(out, rel)
		}
	}
	return out, nil
}

// sweepPlot plots row r's metric against the knob: the medians joined,
// their 95% CIs, every run, and each variant that is not a knob value
// (stock) as a dashed line with its CI as a band.
func sweepPlot(c *Comparison, s *SweepInfo, r *Row, metric string, xs map[int]float64, all []float64) (*plot.Plot, error) {
	var mag []float64
	for _, cell := range r.Cells {
		if cell != nil {
			mag = append(mag, cell.Summary.Center)
		}
	}
	if len(mag) == 0 {
		return nil, nil
	}
	sort.Float64s(mag)
	q := quantityFor(metric, mag[len(mag)/2])
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s: %s", r.Name, q.name)
	p.Y.Label.Text = q.label()
	sweepAxis(p, s.Knob, all)
	_, logX := p.X.Scale.(plot.LogScale)
	span := slices.Max(all) - slices.Min(all)

	var pts errPoints
	var runs plotter.XYs
	cols := make([]int, 0, len(xs))
	for ci := range xs {
		cols = append(cols, ci)
	}
	sort.Slice(cols, func(a, b int) bool { return xs[cols[a]] < xs[cols[b]] })
	for _, ci := range cols {
		cell := r.Cells[ci]
		if cell == nil {
			continue
		}
		x, sm := xs[ci], cell.Summary
		pts.XYs = append(pts.XYs, plotter.XY{X: x, Y: sm.Center * q.scale})
		lo, hi := finiteOrZero((sm.Center-sm.Lo)*q.scale), finiteOrZero((sm.Hi-sm.Center)*q.scale)
		pts.YErrors = append(pts.YErrors, struct{ Low, High float64 }{lo, hi})
		for j, v := range cell.Sample.Values {
			// Spread the runs a little to the right of the median.
			f := 0.03 + 0.01*float64(j%5)
			rx := x + f*span
			if logX {
				rx = x * (1 + f)
			}
			runs = append(runs, plotter.XY{X: rx, Y: v * q.scale})
		}
	}
	if len(pts.XYs) == 0 {
		return nil, nil
	}
	p.Y.Tick.Marker = preciseTicks{}
	p.Add(plotter.NewGrid())

	k := 0
	for ci, col := range c.Cols {
		if _, ok := xs[ci]; ok || r.Cells[ci] == nil {
			continue
		}
		sm := r.Cells[ci].Summary
		x0, x1 := p.X.Min, p.X.Max
		clr := variantColor(k + 1)
		if !math.IsInf(sm.Lo, 0) && !math.IsInf(sm.Hi, 0) {
			band, err := plotter.NewPolygon(plotter.XYs{{X: x0, Y: sm.Lo * q.scale}, {X: x1, Y: sm.Lo * q.scale}, {X: x1, Y: sm.Hi * q.scale}, {X: x0, Y: sm.Hi * q.scale}})
			if err != nil {
				return nil, err
			}
			band.Color = withAlpha(clr, 0x30)
			band.LineStyle.Width = 0
			p.Add(band)
		}
		ref, err := plotter.NewLine(plotter.XYs{{X: x0, Y: sm.Center * q.scale}, {X: x1, Y: sm.Center * q.scale}})
		if err != nil {
			return nil, err
		}
		ref.Color = clr
		ref.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		ref.Width = vg.Points(1.2)
		p.Add(ref)
		p.Legend.Add(col+" (median, 95% CI band)", ref)
		k++
	}
	rs, err := plotter.NewScatter(runs)
	if err != nil {
		return nil, err
	}
	rs.GlyphStyle = draw.GlyphStyle{Color: color.Gray{0x90}, Radius: vg.Points(1.3), Shape: draw.CircleGlyph{}}
	line, points, err := plotter.NewLinePoints(pts.XYs)
	if err != nil {
		return nil, err
	}
	line.Width = vg.Points(1.2)
	points.Shape = draw.CircleGlyph{}
	points.Radius = vg.Points(2.5)
	eb, err := plotter.NewYErrorBars(pts)
	if err != nil {
		return nil, err
	}
	p.Add(rs, line, points, eb)
	p.Legend.Add("median, 95% CI", line, points)
	p.Legend.Add("each run", rs)
	p.Legend.TextStyle.Font.Size = vg.Points(9)
	p.Legend.Top = true
	// The legend goes in the upper corner away from the curve's high end.
	if pts.XYs[len(pts.XYs)-1].Y > pts.XYs[0].Y {
		p.Legend.Left = true
	}
	// Leave room above the data for the legend.
	_, _, ymin, ymax := plotter.XYRange(append(append(plotter.XYs{}, pts.XYs...), runs...))
	for ci := range c.Cols {
		if _, ok := xs[ci]; !ok && r.Cells[ci] != nil {
			ymin = math.Min(ymin, r.Cells[ci].Summary.Lo*q.scale)
			ymax = math.Max(ymax, r.Cells[ci].Summary.Hi*q.scale)
		}
	}
	for i, e := range pts.YErrors {
		ymin = math.Min(ymin, pts.XYs[i].Y-e.Low)
		ymax = math.Max(ymax, pts.XYs[i].Y+e.High)
	}
	if ymin > 0 && ymin < (ymax-ymin)*0.5 {
		ymin = 0
	}
	p.Y.Min, p.Y.Max = ymin, ymax+(ymax-ymin)*0.35
	return p, nil
}

// plotTradeoffs writes, for each "x:y" pair of s.Tradeoffs and each
// benchmark that reports both metrics, y against x with one labelled
// point per variant (median, 95% CIs both ways): what a setting costs
// against what it buys.
func plotTradeoffs(dir string, c *Comparison, s *SweepInfo) ([]string, error) {
	var out []string
	for _, pair := range s.Tradeoffs {
		xm, ym, _ := strings.Cut(pair, ":")
		_, xm = benchunit.Tidy(1, xm)
		_, ym = benchunit.Tidy(1, ym)
		xt, yt := c.Table(xm), c.Table(ym)
		if xt == nil || yt == nil {
			continue
		}
		for _, xr := range xt.Rows {
			var yr *Row
			for _, r := range yt.Rows {
				if r.Name == xr.Name {
					yr = r
				}
			}
			if yr == nil {
				continue
			}
			p, err := tradeoffPlot(c, s, xr, yr, xm, ym)
			if err != nil {
				return nil, err
			}
			if p == nil {
				continue
			}
			rel := filepath.Join(PlotsDir, "tradeoff-"+unitFile(ym)+"-vs-"+unitFile(xm)+"-"+sanitize(xr.Name)+".svg")
			if err := savePlot(p, plotWidth*0.7, plotWidth*0.5, filepath.Join(dir, rel)); err != nil {
				return nil, err
			}
			out = append(out, rel)
		}
	}
	return out, nil
}

type xyErrPoints struct {
	plotter.XYs
	plotter.XErrors
	plotter.YErrors
}

func tradeoffPlot(c *Comparison, s *SweepInfo, xr, yr *Row, xm, ym string) (*plot.Plot, error) {
	var pts xyErrPoints
	var labels []string
	var xmag, ymag []float64
	for ci := range c.Cols {
		if xr.Cells[ci] != nil && yr.Cells[ci] != nil {
			xmag = append(xmag, xr.Cells[ci].Summary.Center)
			ymag = append(ymag, yr.Cells[ci].Summary.Center)
		}
	}
	if len(xmag) < 2 {
		return nil, nil
	}
	sort.Float64s(xmag)
	sort.Float64s(ymag)
	qx, qy := quantityFor(xm, xmag[len(xmag)/2]), quantityFor(ym, ymag[len(ymag)/2])
	for ci, col := range c.Cols {
		if xr.Cells[ci] == nil || yr.Cells[ci] == nil {
			continue
		}
		sx, sy := xr.Cells[ci].Summary, yr.Cells[ci].Summary
		pts.XYs = append(pts.XYs, plotter.XY{X: sx.Center * qx.scale, Y: sy.Center * qy.scale})
		pts.XErrors = append(pts.XErrors, struct{ Low, High float64 }{finiteOrZero((sx.Center - sx.Lo) * qx.scale), finiteOrZero((sx.Hi - sx.Center) * qx.scale)})
		pts.YErrors = append(pts.YErrors, struct{ Low, High float64 }{finiteOrZero((sy.Center - sy.Lo) * qy.scale), finiteOrZero((sy.Hi - sy.Center) * qy.scale)})
		labels = append(labels, strings.TrimPrefix(col, s.Knob+"="))
	}
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s: %s against %s\n(medians, 95%% CIs; labels: %s)", xr.Name, qy.name, qx.name, knobShort(s.Knob))
	p.X.Label.Text = qx.label()
	p.Y.Label.Text = qy.label()
	p.X.Tick.Marker, p.Y.Tick.Marker = preciseTicks{}, preciseTicks{}
	points, err := plotter.NewScatter(pts.XYs)
	if err != nil {
		return nil, err
	}
	points.Shape = draw.CircleGlyph{}
	points.Radius = vg.Points(2.5)
	xe, err := plotter.NewXErrorBars(pts)
	if err != nil {
		return nil, err
	}
	ye, err := plotter.NewYErrorBars(pts)
	if err != nil {
		return nil, err
	}
	lb, err := plotter.NewLabels(plotter.XYLabels{XYs: pts.XYs, Labels: labels})
	if err != nil {
		return nil, err
	}
	for i := range lb.TextStyle {
		lb.TextStyle[i].XAlign = 0.15
		lb.TextStyle[i].YAlign = 0.15
		lb.TextStyle[i].Font.Size = vg.Points(9)
	}
	xmin, xmax, ymin, ymax := plotter.XYRange(pts.XYs)
	p.Add(plotter.NewGrid(), xe, ye, points, lb)
	// Room on both sides and at the top for the labels.
	for i := range pts.XYs {
		xmin = math.Min(xmin, pts.XYs[i].X-pts.XErrors[i].Low)
		xmax = math.Max(xmax, pts.XYs[i].X+pts.XErrors[i].High)
		ymin = math.Min(ymin, pts.XYs[i].Y-pts.YErrors[i].Low)
		ymax = math.Max(ymax, pts.XYs[i].Y+pts.YErrors[i].High)
	}
	p.X.Min, p.X.Max = xmin-(xmax-xmin)*0.12, xmax+(xmax-xmin)*0.2
	p.Y.Min, p.Y.Max = ymin-(ymax-ymin)*0.05, ymax+(ymax-ymin)*0.1
	// A label that would overlap the one before it (points close in
	// both x and y) goes on the left of its point instead.
	order := make([]int, len(pts.XYs))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return pts.XYs[order[a]].Y < pts.XYs[order[b]].Y })
	for j := 1; j < len(order); j++ {
		a, b := pts.XYs[order[j-1]], pts.XYs[order[j]]
		if math.Abs(a.Y-b.Y) < 0.05*(p.Y.Max-p.Y.Min) && math.Abs(a.X-b.X) < 0.2*(p.X.Max-p.X.Min) && lb.TextStyle[order[j-1]].XAlign > 0 {
			lb.TextStyle[order[j]].XAlign = -1.1
			lb.TextStyle[order[j]].YAlign = -0.5
		}
	}
	return p, nil
}

// niceTicks puts 4 to 10 labelled ticks at multiples of 1, 2 or 5 times
// a power of ten, so that zero, when in range, is always labelled.
type niceTicks struct{}

func (niceTicks) Ticks(min, max float64) []plot.Tick {
	if !(max > min) {
		return plot.DefaultTicks{}.Ticks(min, max)
	}
	raw := (max - min) / 6
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{1, 2, 5, 10} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	var ts []plot.Tick
	for k := math.Ceil(min / step); k*step <= max+step*1e-9; k++ {
		v := k * step
		if v == 0 {
			v = 0 // not -0
		}
		ts = append(ts, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'g', 4, 64)})
	}
	return ts
}

// preciseTicks are gonum's default ticks labelled with four significant
// digits, so that close values (1.4e+09, 1.5e+09) do not print alike.
type preciseTicks struct{}

func (preciseTicks) Ticks(min, max float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(min, max)
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = strconv.FormatFloat(ts[i].Value, 'g', 4, 64)
		}
	}
	return ts
}

// unitFile turns a benchmark unit into part of a file name: sec/op
// becomes sec-per-op.
func unitFile(unit string) string {
	return sanitize(strings.ReplaceAll(unit, "/", "-per-"))
}
