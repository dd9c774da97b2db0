// Package plots draws the figures of a report (Write), from a
// stats.Comparison: the change of each variant against the base, the
// levels of each variant, a sweep's metrics against its knob, and
// trade-offs between two metrics. Every other figure schedlab makes (the
// steal matrix, the timeline) is saved through it too (Save), so that
// all share one format.
//
// The plots of a report are made to go into a paper as they are:
//
//   - every axis names a quantity and its unit (times scaled to s, ms,
//     µs or ns; shares in %; knobs in their own unit);
//   - knob sweeps that span a decade or more use a log axis, ticked at
//     the values that ran;
//   - every median comes with its CI (asked for at 95%; a median's
//     interval between order statistics is at least that, 97.9% at
//     n=10), and levels and sweeps also show each run, so a reader sees
//     the spread behind a median;
//   - a sweep's values that span a decade or more get a log y axis;
//   - every figure's title names its folder and series (Caption);
//   - reference variants (stock in a sweep) are a line with their CI as a
//     band, inside the plotted range;
//   - in change plots, differences that are not significant are pale, and
//     the legend says so;
//   - no two variants of a figure share a colour: a change or level plot
//     of at most eight variants draws them in one panel, a colour each,
//     and one of more as small multiples, a panel per variant under its
//     name, sharing the benchmark rows and the x axis.
//
// Each plot is written as SVG and, next to it, as PNG.
package plots

import (
	"image/color"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/recorder"

	"github.com/schedlab/schedlab/src/internal/results"
	"github.com/schedlab/schedlab/src/internal/stats"
)

// plotWidth is the width of every plot: a single column of a two-column
// paper page scaled to fit, or a full-width figure.
const plotWidth = 6.5 * vg.Inch

// Write writes the plots of a report and returns their paths
// (the SVGs) relative to dir: for a comparison, the change of each
// variant against the base per unit, and the levels of each variant for
// shares (and for every unit when there is only one variant); for a
// sweep, each chosen metric against the knob, and the trade-offs.
func Write(dir string, c *stats.Comparison, meta *results.Metadata) ([]string, error) {
	if err := os.MkdirAll(filepath.Join(dir, results.PlotsDir), 0o755); err != nil {
		return nil, err
	}
	caption := Caption(dir, meta.Series)
	var out []string
	if meta.Sweep == nil {
		for _, t := range c.Tables {
			if len(c.Cols) > 1 && anyDelta(c, t) {
				rel := filepath.Join(results.PlotsDir, "delta-"+unitFile(t.Unit)+".svg")
				if err := plotDeltas(filepath.Join(dir, rel), c, t, caption); err != nil {
					return nil, err
				}
				out = append(out, rel)
			}
			if (len(c.Cols) == 1 || strings.HasSuffix(t.Unit, "-share")) && varies(t) {
				rel := filepath.Join(results.PlotsDir, "levels-"+unitFile(t.Unit)+".svg")
				if err := plotLevels(filepath.Join(dir, rel), c, t, caption); err != nil {
					return nil, err
				}
				out = append(out, rel)
			}
		}
	}
	if meta.Sweep != nil {
		ps, err := plotSweep(dir, c, meta.Sweep, caption)
		if err != nil {
			return nil, err
		}
		out = append(out, ps...)
		ps, err = plotTradeoffs(dir, c, meta.Sweep, caption)
		if err != nil {
			return nil, err
		}
		out = append(out, ps...)
	}
	return out, nil
}

// anyDelta reports whether some variant of t has a finite change against
// the base other than none: where the base is zero in every row (a
// counter only the other variants have), a change plot would have no bar
// at all, and where every change is zero (GOMAXPROCS, a count the
// workload fixes) every bar would be empty.
func anyDelta(c *stats.Comparison, t *stats.UnitTable) bool {
	for _, r := range t.Rows {
		for ci, d := range r.Deltas {
			if ci != c.Base && d != nil && isFinite(d.Pct) && d.Pct != 0 {
				return true
			}
		}
	}
	return false
}

// varies reports whether t's runs read more than one value: a level plot
// of a unit every run reads the same (a share of 100% in every row)
// would show nothing the table does not.
func varies(t *stats.UnitTable) bool {
	first, seen := 0.0, false
	for _, r := range t.Rows {
		for _, cell := range r.Cells {
			if cell == nil || cell.Sample == nil {
				continue
			}
			for _, v := range cell.Sample.Values {
				if !seen {
					first, seen = v, true
				} else if v != first {
					return true
				}
			}
		}
	}
	return false
}

// resultsFolder matches the name of a results folder: a date, then the
// host and the study.
var resultsFolder = regexp.MustCompile(`^\d{4}-\d\d-\d\d-`)

// Caption names where a figure comes from, so that one copied into a
// paper or a slide still says it: the results folder (dir's last
// element, with its parent where dir is a folder inside a results
// folder, such as a tune run's confirm/) and the series it measured.
func Caption(dir, series string) string {
	dir = filepath.Clean(dir)
	name := filepath.Base(dir)
	if parent := filepath.Base(filepath.Dir(dir)); !resultsFolder.MatchString(name) && resultsFolder.MatchString(parent) {
		name = parent + "/" + name
	}
	c := "results/" + name
	if series != "" {
		c = "series " + series + ", " + c
	}
	return c
}

// withCaption adds caption as a line under title.
func withCaption(title, caption string) string {
	if title == "" || caption == "" {
		return title + caption
	}
	return title + "\n" + caption
}

// Save writes p as an SVG at path and as a 200-dpi PNG beside it, each
// with its description; it refuses a plot that breaks the figure style.
func Save(p *plot.Plot, w, h vg.Length, path string) error {
	return SaveDrawing(w, h, path, p.Draw, Figure{Panels: []*plot.Plot{p}})
}

// SaveLegendBelow writes p as Save does, with its legend in a strip
// under the plot, where it covers neither data nor a tick.
func SaveLegendBelow(p *plot.Plot, w, h vg.Length, path string) error {
	leg := p.Legend
	leg.Top, leg.Left = true, false
	r := leg.Rectangle(draw.NewCanvas(&recorder.Canvas{}, w, h))
	legH := r.Max.Y - r.Min.Y + vg.Points(6)
	p.Legend = plot.NewLegend()
	paint := func(c draw.Canvas) {
		top := c
		top.Min.Y += legH
		p.Draw(top)
		bottom := c
		bottom.Max.Y = c.Min.Y + legH
		leg.Draw(bottom)
	}
	return SaveDrawing(w, h+legH, path, paint, Figure{Panels: []*plot.Plot{p}})
}

// columnsWithData returns the columns of c that have a cell in some row
// of t, leaving out skip (-1 for none).
func columnsWithData(c *stats.Comparison, t *stats.UnitTable, skip int) []int {
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
	if s, per, ok := strings.Cut(unit, "/"); ok {
		// steals/op, goroutines/steal: a count per something.
		return quantity{words(s) + " per " + per, "count", 1}
	}
	return quantity{words(unit), "count", 1}
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
func tableMagnitude(t *stats.UnitTable) float64 {
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

// variantPalette is Tableau 10 with its grey replaced by near-black (grey
// is what pale, non-significant marks are drawn in), and a dark teal and
// an olive after them: twelve colours that stay apart in print, the first
// ten also for the common colour-vision deficiencies. gonum's default has
// seven. A figure names at most maxVariantsPerPanel variants by colour.
var variantPalette = []color.Color{
	color.RGBA{0x4e, 0x79, 0xa7, 0xff}, color.RGBA{0xf2, 0x8e, 0x2b, 0xff}, color.RGBA{0xe1, 0x57, 0x59, 0xff},
	color.RGBA{0x76, 0xb7, 0xb2, 0xff}, color.RGBA{0x59, 0xa1, 0x4f, 0xff}, color.RGBA{0xed, 0xc9, 0x48, 0xff},
	color.RGBA{0xb0, 0x7a, 0xa1, 0xff}, color.RGBA{0xff, 0x9d, 0xa7, 0xff}, color.RGBA{0x9c, 0x75, 0x5f, 0xff},
	color.RGBA{0x3b, 0x3b, 0x3b, 0xff}, color.RGBA{0x1f, 0x5f, 0x6b, 0xff}, color.RGBA{0x9a, 0x9a, 0x2c, 0xff},
}

// variantColor is column i's colour, the same in every plot of a folder
// of at most len(variantPalette) columns.
func variantColor(i int) color.Color { return variantPalette[i%len(variantPalette)] }

// variantColors returns the colours of the columns cols that one figure
// names in its legend, no two alike: each column's own (variantColor)
// where no two of cols share one, so that a variant keeps its colour
// from figure to figure; else the palette in order, which tells
// len(variantPalette) apart. A figure of more variants than that draws
// them in panels of their own (maxVariantsPerPanel).
func variantColors(cols []int) []color.Color {
	out := make([]color.Color, len(cols))
	seen := map[int]bool{}
	for k, ci := range cols {
		i := ci % len(variantPalette)
		if seen[i] {
			for k := range cols {
				out[k] = variantPalette[k%len(variantPalette)]
			}
			return out
		}
		seen[i] = true
		out[k] = variantColor(ci)
	}
	return out
}

// niceTicks puts 4 to 10 labelled ticks at multiples of 1, 2 or 5 times
// a power of ten, so that zero, when in range, is always labelled.
type niceTicks struct{}

func (niceTicks) Ticks(min, max float64) []plot.Tick { return stepTicks(min, max, 6) }

// fewTicks are niceTicks for a narrow axis: the most labelled ticks, at
// multiples of 1, 2 or 5 times a power of ten, up to n, so that their
// labels do not run into each other.
type fewTicks int

func (n fewTicks) Ticks(min, max float64) []plot.Tick {
	if !(max > min) || n < 1 {
		return plot.DefaultTicks{}.Ticks(min, max)
	}
	// From a step of a tenth of n's, the first that n ticks cover.
	raw := (max - min) / float64(n)
	for mag := math.Pow(10, math.Floor(math.Log10(raw))-1); ; mag *= 10 {
		for _, m := range []float64{1, 2, 5} {
			if ts := ticksEvery(min, max, m*mag); len(ts) <= int(n) {
				return ts
			}
		}
	}
}

// stepTicks ticks [min, max] every 1, 2 or 5 times a power of ten, the
// smallest such step that is at least (max-min)/n.
func stepTicks(min, max, n float64) []plot.Tick {
	if !(max > min) || !(n > 0) {
		return plot.DefaultTicks{}.Ticks(min, max)
	}
	raw := (max - min) / n
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{1, 2, 5, 10} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	return ticksEvery(min, max, step)
}

// ticksEvery ticks [min, max] at the multiples of step.
func ticksEvery(min, max, step float64) []plot.Tick {
	var ts []plot.Tick
	for k := math.Ceil(min / step); k*step <= max+step*1e-9; k++ {
		v := k * step
		if v == 0 {
			v = 0 // not -0
		}
		ts = append(ts, plot.Tick{Value: v, Label: decimalLabel(v, step)})
	}
	return ts
}

// decimalLabel writes a tick value v of an axis ticked every step in
// plain decimals (10000, 0.05, never 1e+04), rounded to the decimals
// step needs: those of its magnitude, and more where the step itself
// has them (a step of 0.15 labels 2.35, 2.5, 2.65, not 2.3, 2.5, 2.6),
// at most two more.
func decimalLabel(v, step float64) string {
	d := 0
	if step > 0 {
		d = max(0, int(math.Ceil(-math.Log10(step)-1e-9)))
		for limit := d + 2; d < limit && !whole(step*math.Pow(10, float64(d))); d++ {
		}
	}
	p := math.Pow(10, float64(d))
	return strconv.FormatFloat(math.Round(v*p)/p, 'f', -1, 64)
}

// whole reports whether x is an integer but for floating-point error.
func whole(x float64) bool {
	return math.Abs(x-math.Round(x)) <= 1e-6*max(1, math.Abs(x))
}

// preciseTicks are gonum's default ticks labelled in plain decimals with
// the precision their spacing needs, so that close values (1.4 and 1.5
// billion) do not print alike and none prints as 1.4e+09.
type preciseTicks struct{}

func (preciseTicks) Ticks(min, max float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(min, max)
	// The spacing of the labelled ticks (the others are minor ticks).
	step, last := 0.0, math.NaN()
	for _, t := range ts {
		if t.Label == "" {
			continue
		}
		if d := t.Value - last; d > 0 && (step == 0 || d < step) {
			step = d
		}
		last = t.Value
	}
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = decimalLabel(ts[i].Value, step)
		}
	}
	return ts
}

// unitFile turns a benchmark unit into part of a file name: sec/op
// becomes sec-per-op.
func unitFile(unit string) string {
	return results.SafeName(strings.ReplaceAll(unit, "/", "-per-"))
}

// AxisLabel is how an axis shows values of unit (as benchunit.Tidy
// names it) whose magnitude is about mag: its label, with the unit, and
// the factor to multiply the values by. Counts of thousands and more
// are shown in thousands, millions or billions, so that no tick needs an
// exponent.
func AxisLabel(unit string, mag float64) (label string, scale float64) {
	q := quantityFor(unit, mag)
	if q.scale == 1 {
		for _, f := range []struct {
			min  float64
			word string
		}{{1e9, "billions"}, {1e6, "millions"}, {1e3, "thousands"}} {
			if math.Abs(mag) >= f.min {
				q.scale = 1 / f.min
				if q.unit == "" || q.unit == "count" {
					q.unit = f.word
				} else {
					q.unit = f.word + " " + q.unit
				}
				break
			}
		}
	}
	return q.label(), q.scale
}

// NiceTicks is the tick marker of every schedlab plot: 4 to 10
// labelled ticks at multiples of 1, 2 or 5 times a power of ten.
var NiceTicks plot.Ticker = niceTicks{}
