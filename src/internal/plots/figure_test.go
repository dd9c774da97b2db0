package plots

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// stylePlot is a plot that keeps the figure style: a time axis in ms
// against a share in %, ticked in plain decimals.
func stylePlot() *plot.Plot {
	p := plot.New()
	p.Title.Text = "delay by share"
	p.X.Label.Text = "delay (ms)"
	p.Y.Label.Text = "share of runs (%)"
	p.X.Tick.Marker, p.Y.Tick.Marker = NiceTicks, NiceTicks
	s, _ := plotter.NewScatter(plotter.XYs{{X: 1, Y: 10}, {X: 20, Y: 90}})
	p.Add(s)
	return p
}

// TestFigureCheck breaks one rule of the figure style at a time and
// checks that Save refuses the figure, naming what it breaks, and that
// the description it writes otherwise is what the committed-figure test
// reads back.
func TestFigureCheck(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name  string
		edit  func(p *plot.Plot)
		w, h  vg.Length
		wants string // "" for a figure that keeps the style
	}{
		{"keeps the style", func(p *plot.Plot) {}, 4 * vg.Inch, 3 * vg.Inch, ""},
		{"no unit", func(p *plot.Plot) { p.X.Label.Text = "delay" }, 4 * vg.Inch, 3 * vg.Inch, "names no unit"},
		{"log scale is no unit", func(p *plot.Plot) { p.X.Label.Text = "delay (log scale)" }, 4 * vg.Inch, 3 * vg.Inch, "names no unit"},
		{"no label", func(p *plot.Plot) { p.Y.Label.Text = "" }, 4 * vg.Inch, 3 * vg.Inch, "without a label"},
		{"unlabelled log axis", func(p *plot.Plot) { p.X.Scale = plot.LogScale{}; p.X.Tick.Marker = LogTicks }, 4 * vg.Inch, 3 * vg.Inch, `does not say "log scale"`},
		{"labelled log axis", func(p *plot.Plot) {
			p.X.Scale = plot.LogScale{}
			p.X.Tick.Marker = LogTicks
			p.X.Label.Text = LogLabel(p.X.Label.Text)
		}, 4 * vg.Inch, 3 * vg.Inch, ""},
		{"log10 coordinates", func(p *plot.Plot) { p.X.Tick.Marker = Log10Ticks }, 4 * vg.Inch, 3 * vg.Inch, `does not say "log scale"`},
		{"computer notation", func(p *plot.Plot) { p.Y.Tick.Marker = plot.ConstantTicks{{Value: 10, Label: "1e+01"}} }, 4 * vg.Inch, 3 * vg.Inch, "computer notation"},
		{"95% CI", func(p *plot.Plot) { p.Y.Label.Text = "share of runs (%), 95% CI" }, 4 * vg.Inch, 3 * vg.Inch, "calls an interval 95%"},
		{"at least 95%", func(p *plot.Plot) { p.Y.Label.Text = "share of runs (%), CI (≥95%)" }, 4 * vg.Inch, 3 * vg.Inch, ""},
		{"too tall", func(p *plot.Plot) {}, 4 * vg.Inch, 10 * vg.Inch, "larger than a page"},
		{"too wide", func(p *plot.Plot) {}, 10 * vg.Inch, 3 * vg.Inch, "larger than a page"},
	} {
		p := stylePlot()
		tc.edit(p)
		path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".svg")
		err := Save(p, tc.w, tc.h, path)
		if tc.wants == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
				continue
			}
			svg, _ := os.ReadFile(path)
			d, ok, err := SVGDesc(svg)
			if !ok || err != nil || len(d.Axes) != 2 || d.Axes[0].Label != p.X.Label.Text {
				t.Errorf("%s: description %+v, %v, %v", tc.name, d, ok, err)
			}
			png, _ := os.ReadFile(strings.TrimSuffix(path, ".svg") + ".png")
			if pd, wpx, _, ok, err := PNGDesc(png); !ok || err != nil || pd.WidthIn != d.WidthIn || wpx != int(tc.w.Points()/72*200) {
				t.Errorf("%s: PNG description %+v (%d px wide), %v, %v", tc.name, pd, wpx, ok, err)
			}
			continue
		}
		if !errors.Is(err, errFigureStyle) || !strings.Contains(err.Error(), tc.wants) {
			t.Errorf("%s: Save = %v, want a style error saying %q", tc.name, err, tc.wants)
		}
		if _, err := os.Stat(path); err == nil {
			t.Errorf("%s: written although it breaks the style", tc.name)
		}
	}
}

// TestFigureCheckHeatMap: a heat map needs a labelled colour bar.
func TestFigureCheckHeatMap(t *testing.T) {
	p := stylePlot()
	d := Describe(Figure{Panels: []*plot.Plot{p}, HeatMap: true}, 4*vg.Inch, 3*vg.Inch)
	if bad := strings.Join(d.Check(), "; "); !strings.Contains(bad, "colour bar") {
		t.Errorf("heat map without a key: %q", bad)
	}
	key := NewLogCountScale(1000).Key("runs (count)")
	d = Describe(Figure{Panels: []*plot.Plot{p}, HeatMap: true, Key: key}, 4*vg.Inch, 3*vg.Inch)
	if bad := d.Check(); len(bad) > 0 {
		t.Errorf("heat map with a key: %q", bad)
	}
}

func TestParseTickLabel(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want float64
		ok   bool
	}{
		{"10", 10, true}, {"−2.5", -2.5, true}, {"40%", 40, true}, {"10⁴", 1e4, true},
		{"2×10⁵", 2e5, true}, {"10⁻⁴", 1e-4, true}, {"1e+09", 1e9, true},
		{"P3/n1", 0, false}, {"stock", 0, false},
	} {
		got, ok := ParseTickLabel(tc.s)
		if ok != tc.ok || (ok && (got-tc.want)/tc.want > 1e-12) {
			t.Errorf("ParseTickLabel(%q) = %v, %v; want %v, %v", tc.s, got, ok, tc.want, tc.ok)
		}
	}
	for _, v := range []float64{0.5, 1000, 1e4, 2e5, 1e-4, 3e-5} {
		if got, ok := ParseTickLabel(PowLabel(v)); !ok || (got-v)/v > 1e-9 {
			t.Errorf("PowLabel(%v) = %q reads back as %v, %v", v, PowLabel(v), got, ok)
		}
	}
}
