package harness

import (
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/perf/benchunit"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// writePlots writes one SVG per unit (change of each variant against the
// base, per benchmark) and, for a sweep, one per chosen metric and
// benchmark (metric against the knob value).
func writePlots(dir string, c *Comparison, meta *Metadata) ([]string, error) {
	if err := os.MkdirAll(filepath.Join(dir, PlotsDir), 0o755); err != nil {
		return nil, err
	}
	var out []string
	if len(c.Cols) > 1 && meta.Sweep == nil {
		for _, t := range c.Tables {
			rel := filepath.Join(PlotsDir, "delta-"+unitFile(t.Unit)+".svg")
			if err := plotDeltas(filepath.Join(dir, rel), c, t); err != nil {
				return nil, err
			}
			out = append(out, rel)
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

func plotDeltas(path string, c *Comparison, t *UnitTable) error {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s: change vs %s (median; hatched = not significant)", t.Unit, c.Cols[c.Base])
	p.Y.Label.Text = "change (%)"
	var names []string
	for _, r := range t.Rows {
		names = append(names, r.Name)
	}
	n := len(c.Cols) - 1
	w := vg.Points(math.Max(4, math.Min(20, 60/float64(n))))
	k := 0
	for ci, col := range c.Cols {
		if ci == c.Base {
			continue
		}
		vals := make(plotter.Values, len(t.Rows))
		for i, r := range t.Rows {
			if d := r.Deltas[ci]; d != nil && !math.IsNaN(d.Pct) {
				vals[i] = d.Pct
			}
		}
		bars, err := plotter.NewBarChart(vals, w)
		if err != nil {
			return err
		}
		bars.Offset = w * vg.Length(float64(k)-float64(n-1)/2)
		bars.Color = plotutil.Color(k)
		bars.LineStyle.Width = vg.Length(0.5)
		p.Add(bars)
		p.Legend.Add(col, bars)
		k++
	}
	p.Add(plotter.NewGrid())
	zero := plotter.NewFunction(func(float64) float64 { return 0 })
	zero.Color = color.Black
	p.Add(zero)
	p.NominalX(names...)
	p.X.Tick.Label.Rotation = math.Pi / 4
	p.X.Tick.Label.XAlign = -1
	p.X.Tick.Label.YAlign = -0.5
	p.Legend.Top = true
	width := vg.Length(math.Max(400, float64(len(names))*40))
	return p.Save(width, 300, path)
}

type errPoints struct {
	plotter.XYs
	plotter.YErrors
}

func plotSweep(dir string, c *Comparison, s *SweepInfo) ([]string, error) {
	// Column name -> knob value.
	xs := map[int]float64{}
	for ci, col := range c.Cols {
		for _, v := range s.Values {
			if col == s.Knob+"="+v {
				if x, err := strconv.ParseFloat(v, 64); err == nil {
					xs[ci] = x
				}
			}
		}
	}
	var out []string
	for _, metric := range s.Metrics {
		_, metric = benchunit.Tidy(1, metric) // ns/op -> sec/op, p99-wake-ns -> p99-wake-sec
		t := c.Table(metric)
		if t == nil {
			continue
		}
		for _, r := range t.Rows {
			var pts errPoints
			for ci := range c.Cols {
				x, ok := xs[ci]
				cell := r.Cells[ci]
				if !ok || cell == nil {
					continue
				}
				sm := cell.Summary
				pts.XYs = append(pts.XYs, plotter.XY{X: x, Y: sm.Center})
				lo, hi := sm.Center-sm.Lo, sm.Hi-sm.Center
				if math.IsInf(lo, 0) || math.IsNaN(lo) {
					lo = 0
				}
				if math.IsInf(hi, 0) || math.IsNaN(hi) {
					hi = 0
				}
				pts.YErrors = append(pts.YErrors, struct{ Low, High float64 }{lo, hi})
			}
			if len(pts.XYs) == 0 {
				continue
			}
			p := plot.New()
			p.Title.Text = fmt.Sprintf("%s: %s vs %s (median, 95%% CI)", r.Name, metric, s.Knob)
			p.X.Label.Text = s.Knob
			p.Y.Label.Text = metric
			p.X.Tick.Marker, p.Y.Tick.Marker = preciseTicks{}, preciseTicks{}
			line, points, err := plotter.NewLinePoints(pts.XYs)
			if err != nil {
				return nil, err
			}
			eb, err := plotter.NewYErrorBars(pts)
			if err != nil {
				return nil, err
			}
			p.Add(plotter.NewGrid(), line, points, eb)
			// Variants that are not a knob value (stock, say) are
			// reference lines across the plot.
			k := 0
			for ci, col := range c.Cols {
				if _, ok := xs[ci]; ok || r.Cells[ci] == nil {
					continue
				}
				ref := plotter.NewFunction(func(float64) float64 { return r.Cells[ci].Summary.Center })
				ref.Color = plotutil.Color(k + 1)
				ref.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
				p.Add(ref)
				p.Legend.Add(col, ref)
				k++
			}
			p.Legend.Top = true
			rel := filepath.Join(PlotsDir, "sweep-"+unitFile(metric)+"-"+sanitize(r.Name)+".svg")
			if err := p.Save(400, 300, filepath.Join(dir, rel)); err != nil {
				return nil, err
			}
			out = append(out, rel)
		}
	}
	return out, nil
}

// plotTradeoffs writes, for each "x:y" pair of s.Tradeoffs and each
// benchmark that reports both metrics, y against x with one labelled
// point per variant: what a setting costs against what it buys.
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
			var xys plotter.XYs
			var labels []string
			for ci, col := range c.Cols {
				if xr.Cells[ci] == nil || yr.Cells[ci] == nil {
					continue
				}
				xys = append(xys, plotter.XY{X: xr.Cells[ci].Summary.Center, Y: yr.Cells[ci].Summary.Center})
				labels = append(labels, strings.TrimPrefix(col, s.Knob+"="))
			}
			if len(xys) < 2 {
				continue
			}
			p := plot.New()
			p.Title.Text = fmt.Sprintf("%s: %s vs %s, by %s (medians)", xr.Name, ym, xm, s.Knob)
			p.X.Label.Text = xm
			p.Y.Label.Text = ym
			p.X.Tick.Marker, p.Y.Tick.Marker = preciseTicks{}, preciseTicks{}
			points, err := plotter.NewScatter(xys)
			if err != nil {
				return nil, err
			}
			lb, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: labels})
			if err != nil {
				return nil, err
			}
			for i := range lb.TextStyle {
				lb.TextStyle[i].XAlign = 0.1
			}
			p.Add(plotter.NewGrid(), points, lb)
			rel := filepath.Join(PlotsDir, "tradeoff-"+unitFile(ym)+"-vs-"+unitFile(xm)+"-"+sanitize(xr.Name)+".svg")
			if err := p.Save(400, 300, filepath.Join(dir, rel)); err != nil {
				return nil, err
			}
			out = append(out, rel)
		}
	}
	return out, nil
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
