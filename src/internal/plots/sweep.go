package plots

import (
	"fmt"
	"image/color"
	"math"
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

	"github.com/schedlab/schedlab/src/internal/results"
	"github.com/schedlab/schedlab/src/internal/stats"
)

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
		p.X.Label.Text = LogLabel(p.X.Label.Text)
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

func plotSweep(dir string, c *stats.Comparison, s *results.SweepInfo, caption string) ([]string, error) {
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
			rel := filepath.Join(results.PlotsDir, "sweep-"+unitFile(metric)+"-"+results.SafeName(r.Name)+".svg")
			p.Title.Text = withCaption(p.Title.Text, caption)
			if err := SaveLegendBelow(p, plotWidth*0.7, plotWidth*0.55, filepath.Join(dir, rel)); err != nil {
				return nil, err
			}
			out = append(out, rel)
		}
	}
	return out, nil
}

// sweepPlot plots row r's metric against the knob: the medians joined,
// their CIs, every run, and each variant that is not a knob value
// (stock) as a dashed line with its CI as a band.
func sweepPlot(c *stats.Comparison, s *results.SweepInfo, r *stats.Row, metric string, xs map[int]float64, all []float64) (*plot.Plot, error) {
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
	// A rotated label longer than the axis makes gonum shrink the data
	// area to fit it: smaller type keeps the area.
	p.X.Label.TextStyle.Font.Size, p.Y.Label.TextStyle.Font.Size = vg.Points(11), vg.Points(11)
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
			if k == 0 {
				band.Color = withAlpha(clr, 0x30)
				band.LineStyle.Width = 0
			} else {
				// Bands that overlap would mix into a third colour:
				// the second and later ones are outlines.
				band.Color = nil
				band.LineStyle = draw.LineStyle{Color: clr, Width: vg.Points(0.8), Dashes: []vg.Length{vg.Points(1), vg.Points(2)}}
			}
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
		if k == 0 {
			p.Legend.Add(col+" (median dashed, CI shaded)", ref)
		} else {
			p.Legend.Add(col+" (median dashed, CI dotted)", ref)
		}
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
	p.Legend.Add("median, CI (≥95%)", line, points)
	p.Legend.Add("each run", rs)
	p.Legend.TextStyle.Font.Size = vg.Points(9)
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
	if ymin > 0 && ymax/ymin >= 10 {
		// A decade or more (a latency sweep): on a linear axis the
		// small slices' values would sit on the floor. Every value
		// drawn is positive here, as a log axis needs.
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = LogTicks
		p.Y.Label.Text = LogLabel(p.Y.Label.Text)
		p.Y.Min, p.Y.Max = ymin/1.25, ymax*1.25
		return p, nil
	}
	if ymin > 0 && ymin < (ymax-ymin)*0.5 {
		ymin = 0
	}
	p.Y.Min, p.Y.Max = ymin, ymax+(ymax-ymin)*0.05
	return p, nil
}

// plotTradeoffs writes, for each "x:y" pair of s.Tradeoffs and each
// benchmark that reports both metrics, y against x with one labelled
// point per variant (median, CIs both ways): what a setting costs
// against what it buys.
func plotTradeoffs(dir string, c *stats.Comparison, s *results.SweepInfo, caption string) ([]string, error) {
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
			var yr *stats.Row
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
			rel := filepath.Join(results.PlotsDir, "tradeoff-"+unitFile(ym)+"-vs-"+unitFile(xm)+"-"+results.SafeName(xr.Name)+".svg")
			p.Title.Text = withCaption(p.Title.Text, caption)
			if err := Save(p, plotWidth*0.7, plotWidth*0.5, filepath.Join(dir, rel)); err != nil {
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

func tradeoffPlot(c *stats.Comparison, s *results.SweepInfo, xr, yr *stats.Row, xm, ym string) (*plot.Plot, error) {
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
	// Counts of millions shown in millions, as AxisLabel scales them.
	xLabel, xScale := AxisLabel(xm, xmag[len(xmag)/2])
	yLabel, yScale := AxisLabel(ym, ymag[len(ymag)/2])
	qx.scale, qy.scale = xScale, yScale
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
	p.Title.Text = fmt.Sprintf("%s: %s against %s\n(medians, CIs ≥95%%; labels: %s)", xr.Name, qy.name, qx.name, knobShort(s.Knob))
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	p.X.Label.TextStyle.Font.Size, p.Y.Label.TextStyle.Font.Size = vg.Points(11), vg.Points(11)
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
	lb := NewPointLabels(pts.XYs, labels, vg.Points(9))
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
	return p, nil
}
