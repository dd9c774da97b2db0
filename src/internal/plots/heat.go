package plots

import (
	"bytes"
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/palette/brewer"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// SaveDrawing writes a figure that paint paints onto one canvas (several
// plots tiled, a key beside them) as an SVG at path and as a 200-dpi PNG
// beside it, as Save writes one plot. f lists what paint draws: both
// files carry its description (Describe), and a figure that breaks the
// figure style (FigureDesc.Check) is not written.
func SaveDrawing(w, h vg.Length, path string, paint func(draw.Canvas), f Figure) error {
	d := Describe(f, w, h)
	if err := checkFigure(path, d); err != nil {
		return err
	}
	format := strings.TrimPrefix(strings.ToLower(filepath.Ext(path)), ".")
	c, err := draw.NewFormattedCanvas(w, h, format)
	if err != nil {
		return err
	}
	paint(draw.New(c))
	if err := writeTo(path, c, d, descSVG); err != nil {
		return err
	}
	img := vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(200))}
	paint(draw.New(img))
	return writeTo(strings.TrimSuffix(path, ".svg")+".png", img, d, descPNG)
}

// writeTo writes what c renders, with d inserted by insert, to path.
func writeTo(path string, c interface {
	WriteTo(w io.Writer) (int64, error)
}, d FigureDesc, insert func([]byte, FigureDesc) ([]byte, error)) error {
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return err
	}
	out, err := insert(b.Bytes(), d)
	if err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	return os.WriteFile(path, out, 0o644)
}

// LogCountScale colours the cells of heat maps of counts on a log scale,
// the same in every panel that shares it, and draws its colour key. An
// empty cell (count 0) is not drawn: it shows the background.
type LogCountScale struct {
	// Max is log10 of the largest count the scale tells apart; larger
	// counts take the last colour.
	Max float64
	pal palette.Palette
}

// NewLogCountScale returns a scale for counts from 1 to maxCount (at
// least one decade).
func NewLogCountScale(maxCount float64) *LogCountScale {
	pal, err := brewer.GetPalette(brewer.TypeSequential, "YlOrRd", 9)
	if err != nil {
		panic(err) // a palette brewer has
	}
	// Without the two palest colours, a cell of one stands out from
	// the white background.
	return &LogCountScale{Max: math.Max(1, math.Log10(math.Max(maxCount, 1))), pal: subPalette(pal.Colors()[2:])}
}

type subPalette []color.Color

func (p subPalette) Colors() []color.Color { return p }

// Z is the value a grid holds for a count: its log10, NaN (not drawn)
// for none.
func (s *LogCountScale) Z(count float64) float64 {
	if count <= 0 {
		return math.NaN()
	}
	return math.Min(math.Log10(count), s.Max)
}

// HeatMap draws g, whose values are s.Z of counts, in s's colours.
func (s *LogCountScale) HeatMap(g plotter.GridXYZ) *plotter.HeatMap {
	h := &plotter.HeatMap{GridXYZ: g, Palette: s.pal, Min: 0, Max: s.Max}
	return h
}

// step is the width, in log10 units, of one colour of the key.
func (s *LogCountScale) step() float64 { return s.Max / float64(len(s.pal.Colors())-1) }

// keyGrid is the colour key as a one-row heat map: one cell per colour,
// centred on the value that takes exactly that colour.
type keyGrid struct{ s *LogCountScale }

func (g keyGrid) Dims() (c, r int)   { return len(g.s.pal.Colors()), 1 }
func (g keyGrid) Z(c, r int) float64 { return g.X(c) }
func (g keyGrid) X(c int) float64    { return float64(c) * g.s.step() }
func (g keyGrid) Y(r int) float64    { return 0 }
func (s *LogCountScale) keyRange() (lo, hi float64) {
	return -s.step() / 2, s.Max + s.step()/2
}

// Key draws the scale's colour bar, horizontally, its axis labelled
// label, whose unit in parentheses gets ", log scale" added:
// "runs per cell (count)" becomes "runs per cell (count, log scale)".
func (s *LogCountScale) Key(label string) *plot.Plot {
	p := plot.New()
	p.Add(s.HeatMap(keyGrid{s}))
	p.X.Label.Text = LogLabel(label)
	p.X.Tick.Marker = Log10Ticks
	p.X.Min, p.X.Max = s.keyRange()
	p.Y.Min, p.Y.Max = -0.5, 0.5
	p.HideY()
	p.Y.Label.Text = ""
	return p
}

// Log10Ticks ticks an axis whose coordinate is the log10 of a quantity:
// labelled ticks at the powers of ten, unlabelled ones at 2 and 5 times
// them (labelled too when the axis spans less than three decades).
var Log10Ticks plot.Ticker = log10Ticks{}

type log10Ticks struct{}

func (log10Ticks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) {
		return nil
	}
	label := hi-lo < 3
	var ts []plot.Tick
	for k := math.Floor(lo); k <= math.Ceil(hi); k++ {
		for _, m := range []float64{1, 2, 5} {
			v := k + math.Log10(m)
			if v < lo-1e-9 || v > hi+1e-9 {
				continue
			}
			t := plot.Tick{Value: v}
			if m == 1 || label {
				t.Label = PowLabel(m * math.Pow(10, k))
			}
			ts = append(ts, t)
		}
	}
	return ts
}

// PowLabel writes a tick value of a log axis compactly: 0.01, 0.5, 20,
// 1000, then 10⁴, 2×10⁵, and 10⁻⁴ below 0.001 (never computer notation
// such as 1e4).
func PowLabel(v float64) string {
	if a := math.Abs(v); a >= 1e4 || (a > 0 && a < 1e-3) {
		e := math.Floor(math.Log10(a) + 1e-9)
		exp := superscript(int(e))
		if m := v / math.Pow(10, e); math.Abs(math.Abs(m)-1) > 1e-9 {
			return strconv.FormatFloat(m, 'g', 3, 64) + "×10" + exp
		}
		if v < 0 {
			return "−10" + exp
		}
		return "10" + exp
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

// superscript writes an integer in Unicode superscript digits.
func superscript(n int) string {
	var b strings.Builder
	if n < 0 {
		b.WriteString("⁻")
		n = -n
	}
	digits := []rune(superscriptDigits)
	for _, c := range strconv.Itoa(n) {
		b.WriteRune(digits[c-'0'])
	}
	return b.String()
}

// LogTicks ticks an axis on a log scale (plot.LogScale) at the powers of
// ten, labelled as PowLabel writes them.
var LogTicks plot.Ticker = powTicks{}

type powTicks struct{}

func (powTicks) Ticks(lo, hi float64) []plot.Tick {
	var ts []plot.Tick
	for _, t := range (plot.LogTicks{Prec: -1}).Ticks(lo, hi) {
		if t.Value < lo || t.Value > hi {
			continue // gonum leaves room for labels it does not draw
		}
		if t.Label != "" {
			t.Label = PowLabel(t.Value)
		}
		ts = append(ts, t)
	}
	return ts
}
