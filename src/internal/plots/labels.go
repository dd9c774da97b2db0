package plots

import (
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// PointLabels names points beside them, each where it covers neither a
// point nor a label placed before it: right of its point if that is
// free, else left, above, below or at a corner; at the right as a last
// resort. A point with an empty label is kept clear but not named. It
// is placed when drawn, in the canvas's units, which is where overlap
// can be told.
type PointLabels struct {
	XYs    plotter.XYs
	Labels []string
	Style  text.Style
	// Clear is the room kept around every point (its glyph's radius and
	// a margin).
	Clear vg.Length
}

// NewPointLabels returns labels for xys in size-point type.
func NewPointLabels(xys plotter.XYs, labels []string, size vg.Length) *PointLabels {
	sty := plot.New().Title.TextStyle // the plots' font
	sty.Font.Size = size
	sty.XAlign, sty.YAlign = draw.XLeft, draw.YBottom
	return &PointLabels{XYs: xys, Labels: labels, Style: sty, Clear: vg.Points(6)}
}

// Plot implements plot.Plotter.
func (l *PointLabels) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	pts := make([]vg.Point, len(l.XYs))
	for i, xy := range l.XYs {
		pts[i] = vg.Point{X: trX(xy.X), Y: trY(xy.Y)}
	}
	var placed []vg.Rectangle
	free := func(r vg.Rectangle) bool {
		if r.Min.X < c.Min.X || r.Max.X > c.Max.X || r.Min.Y < c.Min.Y || r.Max.Y > c.Max.Y {
			return false
		}
		for _, p := range pts {
			if p.X > r.Min.X-l.Clear && p.X < r.Max.X+l.Clear && p.Y > r.Min.Y-l.Clear && p.Y < r.Max.Y+l.Clear {
				return false
			}
		}
		for _, o := range placed {
			if r.Min.X < o.Max.X && r.Max.X > o.Min.X && r.Min.Y < o.Max.Y && r.Max.Y > o.Min.Y {
				return false
			}
		}
		return true
	}
	for i, p := range pts {
		if l.Labels[i] == "" || !c.Contains(p) {
			continue
		}
		w, h := l.Style.Width(l.Labels[i]), l.Style.Height(l.Labels[i])
		gap := l.Clear + vg.Points(1)
		// Lower-left corners to try, nearest first.
		tries := []vg.Point{
			{X: p.X + gap, Y: p.Y - h/2}, {X: p.X - gap - w, Y: p.Y - h/2},
			{X: p.X - w/2, Y: p.Y + gap}, {X: p.X - w/2, Y: p.Y - gap - h},
			{X: p.X + gap, Y: p.Y + gap}, {X: p.X + gap, Y: p.Y - gap - h},
			{X: p.X - gap - w, Y: p.Y + gap}, {X: p.X - gap - w, Y: p.Y - gap - h},
			{X: p.X + gap, Y: p.Y + gap + h}, {X: p.X + gap, Y: p.Y - gap - 2*h},
			{X: p.X - gap - w, Y: p.Y + gap + h}, {X: p.X - gap - w, Y: p.Y - gap - 2*h},
		}
		at := tries[0]
		for _, t := range tries {
			if free(vg.Rectangle{Min: t, Max: vg.Point{X: t.X + w, Y: t.Y + h}}) {
				at = t
				break
			}
		}
		placed = append(placed, vg.Rectangle{Min: at, Max: vg.Point{X: at.X + w, Y: at.Y + h}})
		c.FillText(l.Style, at, l.Labels[i])
	}
}
