package plots

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"html"
	"math"
	"regexp"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
)

// The figure style every schedlab figure keeps, checked when a figure is
// saved (Save, SaveDrawing refuse one that breaks it) and, for the
// committed figures, by the figure test:
//
//   - every numeric axis has a label naming its unit in parentheses,
//     "(ms)", "(%)", "(count)", "(per second)";
//   - a log axis says so in its label ("log scale");
//   - no tick is written in computer notation (1e+09);
//   - no label or title calls an interval a "95% CI": with the runs a
//     study makes, an interval between order statistics is at least 95%
//     (97.9% at n=10), and the figures say "CI (≥95%)";
//   - a figure that colours cells by value (a heat map) has a colour
//     bar, itself a labelled axis;
//   - it fits a paper's page: at most MaxFigureWidth wide and
//     MaxFigureHeight tall.
//
// Legends off the data, CI bands told apart and labels beside their
// points are matters of layout that the code of each figure keeps and a
// reader checks by looking at the figure; the description records what a
// program can check.
const (
	MaxFigureWidth  = 7 * vg.Inch
	MaxFigureHeight = 9 * vg.Inch
)

// A Figure says what a drawing holds, for its description and its check:
// the plots painted on it, whether one of them colours cells by value,
// and the colour bar of those cells; for a grid of panels, the title
// over them all and the axes drawn once for several panels.
type Figure struct {
	Panels  []*plot.Plot
	HeatMap bool
	Key     *plot.Plot
	// Title is a title drawn once over all the panels (each panel's own
	// is its plot's).
	Title string
	// Shared are axes drawn once for several panels: the label under a
	// grid's columns, with the ticks the panels under it share.
	Shared []*plot.Axis
}

// FigureDesc is the description a saved figure carries, as JSON: in the
// SVG as <desc id="schedlab-figure">, in the PNG as a tEXt chunk with
// keyword "schedlab-figure". It is made from the plot objects when the
// figure is saved, not declared by hand, except HeatMap.
type FigureDesc struct {
	WidthIn  float64    `json:"width_in"`
	HeightIn float64    `json:"height_in"`
	Titles   []string   `json:"titles,omitempty"`
	Axes     []AxisDesc `json:"axes"`
	HeatMap  bool       `json:"heat_map,omitempty"`
	ColorBar *AxisDesc  `json:"color_bar,omitempty"`
}

// An AxisDesc describes one drawn axis of a figure.
type AxisDesc struct {
	Label   string   `json:"label"`
	Log     bool     `json:"log,omitempty"`
	Numeric bool     `json:"numeric"`
	Ticks   []string `json:"ticks,omitempty"`
}

// FigureKeyword names a figure's description in its SVG and PNG.
const FigureKeyword = "schedlab-figure"

// Describe returns the description of f drawn w by h.
func Describe(f Figure, w, h vg.Length) FigureDesc {
	d := FigureDesc{WidthIn: round3(inches(w)), HeightIn: round3(inches(h)), HeatMap: f.HeatMap}
	if f.Title != "" {
		d.Titles = append(d.Titles, f.Title)
	}
	for _, a := range f.Shared {
		if ad, drawn := describeAxis(a); drawn {
			d.Axes = append(d.Axes, ad)
		}
	}
	for _, p := range f.Panels {
		if p.Title.Text != "" {
			d.Titles = append(d.Titles, p.Title.Text)
		}
		for _, a := range []*plot.Axis{&p.X, &p.Y} {
			if ad, drawn := describeAxis(a); drawn {
				d.Axes = append(d.Axes, ad)
			}
		}
	}
	if f.Key != nil {
		if ad, drawn := describeAxis(&f.Key.X); drawn {
			d.ColorBar = &ad
		}
	}
	return d
}

func round3(v float64) float64 { return math.Round(v*1000) / 1000 }

func inches(l vg.Length) float64 { return float64(l / vg.Inch) }

// describeAxis describes a, and says whether it is drawn at all: an axis
// with neither a label nor a labelled tick (plot.HideAxes) is not.
func describeAxis(a *plot.Axis) (AxisDesc, bool) {
	d := AxisDesc{Label: a.Label.Text, Numeric: true}
	if a.Tick.Marker != nil {
		for _, t := range a.Tick.Marker.Ticks(drawnRange(a)) {
			if t.Label == "" {
				continue
			}
			d.Ticks = append(d.Ticks, t.Label)
			if _, ok := ParseTickLabel(t.Label); !ok {
				d.Numeric = false
			}
		}
	}
	if len(d.Ticks) == 0 {
		d.Numeric = false
	}
	switch a.Scale.(type) {
	case plot.LogScale, *plot.LogScale:
		d.Log = true
	}
	m := a.Tick.Marker
	for {
		u, ok := m.(interface{ Unwrap() plot.Ticker })
		if !ok {
			break
		}
		m = u.Unwrap()
	}
	switch m.(type) {
	case log10Ticks, powTicks, plot.LogTicks, *plot.LogTicks:
		d.Log = true
	}
	return d, d.Label != "" || len(d.Ticks) > 0
}

// drawnRange is the range a is drawn over, as plot.Axis sanitizes it
// when it draws: an axis with no data spans [-1, 1].
func drawnRange(a *plot.Axis) (lo, hi float64) {
	lo, hi = a.Min, a.Max
	if math.IsInf(lo, 0) || math.IsNaN(lo) {
		lo = 0
	}
	if math.IsInf(hi, 0) || math.IsNaN(hi) {
		hi = 0
	}
	if lo > hi {
		lo, hi = hi, lo
	}
	if lo == hi {
		lo, hi = lo-1, hi+1
	}
	return lo, hi
}

// ParseTickLabel reads a tick label as a number: plain decimals (with a
// minus or Unicode minus sign, a trailing % or a thousands suffix
// k/M/G), and PowLabel's 10⁴, 2×10⁵ and 10⁻⁴. Labels in computer
// notation (1e+09) are read too, so that the check refuses them as
// notation, not as names.
func ParseTickLabel(s string) (float64, bool) {
	s = strings.ReplaceAll(strings.TrimSpace(s), "−", "-")
	s = strings.TrimSuffix(s, "%")
	mant, exp, pow := strings.Cut(s, "10")
	if pow && (mant == "" || mant == "-" || strings.HasSuffix(mant, "×")) && isSuperscript(exp) {
		m := 1.0
		switch mant {
		case "":
		case "-":
			m = -1
		default:
			v, err := strconv.ParseFloat(strings.TrimSuffix(mant, "×"), 64)
			if err != nil {
				return 0, false
			}
			m = v
		}
		return m * math.Pow(10, float64(fromSuperscript(exp))), true
	}
	mult := 1.0
	for suf, f := range map[string]float64{"k": 1e3, "M": 1e6, "G": 1e9} {
		if t, ok := strings.CutSuffix(s, suf); ok {
			s, mult = t, f
			break
		}
	}
	v, err := strconv.ParseFloat(s, 64)
	return v * mult, err == nil
}

const superscriptDigits = "⁰¹²³⁴⁵⁶⁷⁸⁹"

func isSuperscript(s string) bool {
	s = strings.TrimPrefix(s, "⁻")
	if s == "" {
		return false
	}
	for _, r := range s {
		if !strings.ContainsRune(superscriptDigits, r) {
			return false
		}
	}
	return true
}

func fromSuperscript(s string) int {
	digits := []rune(superscriptDigits)
	s, neg := strings.CutPrefix(s, "⁻")
	n := 0
	for _, r := range s {
		for i, d := range digits {
			if d == r {
				n = 10*n + i
			}
		}
	}
	if neg {
		return -n
	}
	return n
}

var (
	// parenRE finds what is in parentheses: "(ms)", "(µs, log scale)".
	parenRE = regexp.MustCompile(`\(([^()]*)\)`)
	// computerNotation is a number written with an exponent: 1e+09, 2.5E-3.
	computerNotation = regexp.MustCompile(`[0-9][eE][+-]?[0-9]`)
	// ninetyFiveCI is an interval called a 95% CI (or 95% interval),
	// which the order statistics do not give.
	ninetyFiveCI = regexp.MustCompile(`(^|[^≥>])95\s*% (CI|confidence|interval)`)
)

// Check returns what in d breaks the figure style, one line each; none
// for a figure that keeps it.
func (d FigureDesc) Check() []string {
	var bad []string
	if d.WidthIn > inches(MaxFigureWidth)+1e-9 || d.HeightIn > inches(MaxFigureHeight)+1e-9 {
		bad = append(bad, fmt.Sprintf("%.3g×%.3g in: larger than a page takes (%.3g×%.3g in)",
			d.WidthIn, d.HeightIn, inches(MaxFigureWidth), inches(MaxFigureHeight)))
	}
	if len(d.Axes) == 0 {
		bad = append(bad, "no axis described")
	}
	axes := d.Axes
	if d.ColorBar != nil {
		axes = append(axes[:len(axes):len(axes)], *d.ColorBar)
	}
	// A panel of a grid may leave an axis unlabelled when a panel beside
	// it labels the same axis: the same ticks under a label.
	shared := map[string]bool{}
	for _, a := range axes {
		if a.Label != "" {
			shared[strings.Join(a.Ticks, "\x00")] = true
		}
	}
	for _, a := range axes {
		if a.Label == "" && len(a.Ticks) > 0 && shared[strings.Join(a.Ticks, "\x00")] {
			continue
		}
		bad = append(bad, a.check()...)
	}
	if d.HeatMap && (d.ColorBar == nil || d.ColorBar.Label == "") {
		bad = append(bad, "a heat map without a labelled colour bar")
	}
	for _, t := range d.Titles {
		if ninetyFiveCI.MatchString(t) {
			bad = append(bad, fmt.Sprintf("title %q calls an interval 95%%: say CI (≥95%%)", t))
		}
	}
	return bad
}

func (a AxisDesc) check() []string {
	var bad []string
	name := strings.ReplaceAll(a.Label, "\n", " ")
	if a.Numeric {
		switch {
		case a.Label == "":
			bad = append(bad, fmt.Sprintf("a numeric axis (ticks %q) without a label", a.Ticks))
		case !namesUnit(a.Label):
			bad = append(bad, fmt.Sprintf("axis %q names no unit in parentheses", name))
		}
	}
	if a.Log && !strings.Contains(a.Label, "log scale") {
		bad = append(bad, fmt.Sprintf("log axis %q does not say \"log scale\"", name))
	}
	for _, t := range a.Ticks {
		if computerNotation.MatchString(t) {
			bad = append(bad, fmt.Sprintf("axis %q: tick %q in computer notation", name, t))
			break
		}
	}
	if ninetyFiveCI.MatchString(a.Label) {
		bad = append(bad, fmt.Sprintf("axis %q calls an interval 95%%: say CI (≥95%%)", name))
	}
	return bad
}

// LogLabel says in label that its axis is on a log scale: inside the
// unit's parentheses when it ends with them ("delay (µs)" becomes
// "delay (µs, log scale)"), else after it.
func LogLabel(label string) string {
	if l, ok := strings.CutSuffix(label, ")"); ok {
		return l + ", log scale)"
	}
	return label + " (log scale)"
}

// namesUnit says whether label has a unit in parentheses: "(ms)",
// "(µs, log scale)", "(count)"; "(log scale)" alone is no unit.
func namesUnit(label string) bool {
	for _, m := range parenRE.FindAllStringSubmatch(label, -1) {
		if strings.Trim(strings.ReplaceAll(m[1], "log scale", ""), " ,;") != "" {
			return true
		}
	}
	return false
}

// errFigureStyle wraps what a figure breaks, so that a caller sees which.
var errFigureStyle = errors.New("figure breaks the schedlab figure style")

// checkFigure returns an error listing what d breaks, or nil.
func checkFigure(path string, d FigureDesc) error {
	if bad := d.Check(); len(bad) > 0 {
		return fmt.Errorf("%s: %w: %s", path, errFigureStyle, strings.Join(bad, "; "))
	}
	return nil
}

// descSVG inserts d into svg as the first element of its <svg>.
func descSVG(svg []byte, d FigureDesc) ([]byte, error) {
	js, err := json.Marshal(d)
	if err != nil {
		return nil, err
	}
	i := bytes.Index(svg, []byte("<svg"))
	if i < 0 {
		return nil, errors.New("no <svg> element")
	}
	end := bytes.IndexByte(svg[i:], '>')
	if end < 0 {
		return nil, errors.New("unterminated <svg> element")
	}
	at := i + end + 1
	el := "\n<desc id=\"" + FigureKeyword + "\">" + html.EscapeString(string(js)) + "</desc>"
	return append(append(append([]byte(nil), svg[:at]...), el...), svg[at:]...), nil
}

var svgDescRE = regexp.MustCompile(`<desc id="` + FigureKeyword + `">([^<]*)</desc>`)

// SVGDesc reads the description of a figure from its SVG; ok is false
// when it has none (a figure made before the style was checked).
func SVGDesc(svg []byte) (d FigureDesc, ok bool, err error) {
	m := svgDescRE.FindSubmatch(svg)
	if m == nil {
		return d, false, nil
	}
	err = json.Unmarshal([]byte(html.UnescapeString(string(m[1]))), &d)
	return d, err == nil, err
}

var pngSignature = []byte("\x89PNG\r\n\x1a\n")

// descPNG inserts d into png as a tEXt chunk after the IHDR chunk.
func descPNG(png []byte, d FigureDesc) ([]byte, error) {
	js, err := json.Marshal(d)
	if err != nil {
		return nil, err
	}
	if !bytes.HasPrefix(png, pngSignature) || len(png) < 33 {
		return nil, errors.New("not a PNG")
	}
	at := len(pngSignature) + 8 + 13 + 4 // signature, IHDR's length and type, data, CRC
	data := append([]byte(FigureKeyword+"\x00"), js...)
	chunk := make([]byte, 0, len(data)+12)
	chunk = binary.BigEndian.AppendUint32(chunk, uint32(len(data)))
	chunk = append(chunk, "tEXt"...)
	chunk = append(chunk, data...)
	chunk = binary.BigEndian.AppendUint32(chunk, crc32.ChecksumIEEE(chunk[4:]))
	return append(append(append([]byte(nil), png[:at]...), chunk...), png[at:]...), nil
}

// PNGDesc reads the description of a figure from its PNG's tEXt chunk,
// and the image's size in pixels.
func PNGDesc(png []byte) (d FigureDesc, wpx, hpx int, ok bool, err error) {
	if !bytes.HasPrefix(png, pngSignature) || len(png) < 33 {
		return d, 0, 0, false, errors.New("not a PNG")
	}
	wpx = int(binary.BigEndian.Uint32(png[16:20]))
	hpx = int(binary.BigEndian.Uint32(png[20:24]))
	for i := len(pngSignature); i+8 <= len(png); {
		n := int(binary.BigEndian.Uint32(png[i : i+4]))
		typ := string(png[i+4 : i+8])
		if i+12+n > len(png) {
			return d, wpx, hpx, false, errors.New("truncated chunk")
		}
		body := png[i+8 : i+8+n]
		if typ == "tEXt" {
			if k, v, found := bytes.Cut(body, []byte{0}); found && string(k) == FigureKeyword {
				err = json.Unmarshal(v, &d)
				return d, wpx, hpx, err == nil, err
			}
		}
		if typ == "IDAT" || typ == "IEND" {
			break
		}
		i += 12 + n
	}
	return d, wpx, hpx, false, nil
}
