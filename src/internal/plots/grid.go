package plots

import (
	"fmt"
	"image/color"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/recorder"
)

// The layout of small multiples: a grid of panels, one per variant, at
// most gridMaxCols to a row. Every panel has the same benchmark rows and
// the same x range; the benchmarks are named left of the first column
// only, the x ticks are labelled under the last panel of each column
// only, and the x axis's label, with its unit, is written once under the
// grid, with what pale marks mean.
const (
	gridMaxCols = 6
	// gridMinPanelW is how wide, in points, a panel's data should be:
	// on a change plot's usual ±50% axis, a 5% change is then 5 points
	// long. The grid has as many columns as keep that.
	gridMinPanelW = 100
	// gridMinRowH is how tall, in points, a benchmark row must be: rows
	// of one bar each, named in gridTickSize type, stay apart at 8
	// points. Where the page's height leaves less, the grid gets more
	// columns, its panels narrower than gridMinPanelW.
	gridMinRowH = 8
	// gridMaxRowH is the tallest a row gets where the page has room.
	gridMaxRowH = 14
	// gridTickWidth is the room, in points, one labelled x tick takes.
	gridTickWidth = 20

	gridTickSize     = 7.5 // tick labels, benchmark names
	gridTitleSize    = 9   // a panel's title: the variant
	gridMinTitleSize = 7
	gridLabelSize    = 9.5 // the x axis's label, the legend
	gridHeadSize     = 11  // the figure's title and caption
)

// gridPanelColor is the colour of every panel's marks: in small
// multiples a variant is told by its panel's title, not by a colour.
var gridPanelColor = variantPalette[0]

// smallMultiples lays ch out as a grid of one panel per variant, as
// wide as a page takes: in as many columns as keep each panel
// gridMinPanelW wide, or more, up to gridMaxCols and down to half that
// width, where the rows would otherwise be shorter than gridMinRowH on a
// page's height.
func (ch *rowChart) smallMultiples() *rowFigure {
	type layout struct {
		f            *rowFigure
		panelW, rowH vg.Length
	}
	var ls []layout
	for ncols := 1; ncols <= min(gridMaxCols, len(ch.marks)); ncols++ {
		f, panelW, rowH := ch.grid(ncols)
		ls = append(ls, layout{f, panelW, rowH})
	}
	k := 0
	for k+1 < len(ls) && ls[k+1].panelW >= gridMinPanelW {
		k++
	}
	for k+1 < len(ls) && ls[k].rowH < gridMinRowH && ls[k+1].panelW >= gridMinPanelW/2 {
		k++
	}
	return ls[k].f
}

// grid lays ch out in ncols columns and returns the figure with the
// width of a panel's data and the height of a benchmark row in it.
func (ch *rowChart) grid(ncols int) (f *rowFigure, panelW, rowH vg.Length) {
	n, nrows := len(ch.marks), len(ch.rows)
	R := (n + ncols - 1) / ncols
	xmin, xmax := ch.xRange()
	w := MaxFigureWidth

	head := plot.New().Title.TextStyle
	head.Font.Size = vg.Points(gridHeadSize)
	head.YAlign = draw.YTop
	title := withCaption(ch.title, ch.caption)
	label := head
	label.Font.Size = vg.Points(gridLabelSize)
	label.YAlign = draw.YTop
	notes := ch.gridNotes()
	headH := head.Height(title) + vg.Points(4)
	footH := label.Height(ch.xLabel) + vg.Points(6)
	if len(notes) > 0 {
		footH += label.Height("Xg") + vg.Points(4)
	}
	padX, padY := vg.Points(8), vg.Points(6) // between panels
	margin := vg.Points(4)                   // left and right of the grid

	grid := make([][]*plot.Plot, R)
	for j := range grid {
		grid[j] = make([]*plot.Plot, ncols)
	}
	var ticker plot.Ticker = niceTicks{}
	names := make([]string, n)
	for k, m := range ch.marks {
		names[k] = m.name
	}
	titles, titleSize := names, vg.Points(gridTitleSize)
	build := func() {
		for k, m := range ch.marks {
			m.k, m.ncols, m.color = 0, 1, gridPanelColor
			p := ch.panel(m, k%ncols == 0, k+ncols >= n, xmin, xmax, ticker)
			p.Title.Text, p.Title.TextStyle.Font.Size = titles[k], titleSize
			grid[k/ncols][k%ncols] = p
		}
	}
	build()
	sp := measureGrid(grid, w)
	panelW = (w - 2*margin - sp.width(padX)) / vg.Length(ncols)
	ticker = fewTicks(max(2, int(panelW.Points()/gridTickWidth)))
	titles, titleSize = panelTitles(names, panelW+padX-vg.Points(2))
	build()
	sp = measureGrid(grid, w)

	rowH = (MaxFigureHeight - headH - footH - sp.height(padY)) / vg.Length(R*nrows)
	rowH = min(rowH, vg.Points(gridMaxRowH))
	h := headH + footH + sp.height(padY) + rowH*vg.Length(R*nrows)

	shared := plot.New().X
	shared.Min, shared.Max = xmin, xmax
	shared.Tick.Marker = ticker
	shared.Label.Text = ch.xLabel
	f = &rowFigure{w: w, h: h, grid: grid,
		figure: Figure{Title: title, Shared: []*plot.Axis{&shared}}}
	for _, row := range grid {
		for _, p := range row {
			if p != nil {
				f.figure.Panels = append(f.figure.Panels, p)
			}
		}
	}
	for _, m := range ch.marks {
		f.marks = append(f.marks, []*rowMarks{m})
	}
	f.paint = func(c draw.Canvas) {
		c.SetColor(color.White)
		c.Fill(c.Rectangle.Path())
		c.FillText(head, vg.Point{X: c.Center().X, Y: c.Max.Y}, title)
		body := c
		body.Max.Y -= headH
		body.Min.Y += footH
		body.Min.X += margin
		body.Max.X -= margin
		data := sp.place(body, padX, padY)
		for j, row := range grid {
			for i, p := range row {
				if p == nil {
					continue
				}
				pc := fitData(p, body, data[j][i])
				// Centre the title over the data, not over the
				// benchmark names beside it.
				if tw := p.Title.TextStyle.Width(p.Title.Text); tw > 0 {
					off := (data[j][i].Min.X + data[j][i].Max.X - pc.Min.X - pc.Max.X) / 2 / tw
					p.Title.TextStyle.XAlign = draw.XAlignment(float64(off) - 0.5)
				}
				p.Draw(pc)
			}
		}
		left, right := data[0][0], data[0][ncols-1]
		mid := (left.Min.X + right.Max.X) / 2
		y := body.Min.Y - vg.Points(3)
		c.FillText(label, vg.Point{X: mid, Y: y}, ch.xLabel)
		if len(notes) > 0 {
			drawNotes(c, label, notes, mid, y-label.Height(ch.xLabel)-vg.Points(4))
		}
	}
	return f, panelW, rowH
}

// gridSpacing is the room a grid of panels needs around their data, per
// column (left and right) and per row (below and above): the most any
// of its panels needs for its axes and title.
type gridSpacing struct {
	left, right, below, above []vg.Length
}

// measureGrid measures what each panel of grid draws around its data,
// on a canvas w wide: that does not depend on the canvas's size but
// where a tick label at the end of an axis reaches past the data.
func measureGrid(grid [][]*plot.Plot, w vg.Length) gridSpacing {
	ncols := len(grid[0])
	sp := gridSpacing{make([]vg.Length, ncols), make([]vg.Length, ncols), make([]vg.Length, len(grid)), make([]vg.Length, len(grid))}
	c := draw.NewCanvas(&recorder.Canvas{}, w, 100*vg.Inch)
	for j, row := range grid {
		for i, p := range row {
			if p == nil {
				continue
			}
			d := p.DataCanvas(c)
			sp.left[i] = max(sp.left[i], d.Min.X-c.Min.X)
			sp.right[i] = max(sp.right[i], c.Max.X-d.Max.X)
			sp.below[j] = max(sp.below[j], d.Min.Y-c.Min.Y)
			sp.above[j] = max(sp.above[j], c.Max.Y-d.Max.Y)
		}
	}
	return sp
}

func (sp gridSpacing) width(pad vg.Length) vg.Length {
	s := pad * vg.Length(len(sp.left)-1)
	for i := range sp.left {
		s += sp.left[i] + sp.right[i]
	}
	return s
}

func (sp gridSpacing) height(pad vg.Length) vg.Length {
	s := pad * vg.Length(len(sp.below)-1)
	for j := range sp.below {
		s += sp.below[j] + sp.above[j]
	}
	return s
}

// place divides c among the grid's panels and returns the rectangle of
// each panel's data, by row and column: all of one size, those of a
// column one above the other, those of a row side by side.
func (sp gridSpacing) place(c draw.Canvas, padX, padY vg.Length) [][]vg.Rectangle {
	ncols, nrows := len(sp.left), len(sp.below)
	dw := (c.Max.X - c.Min.X - sp.width(padX)) / vg.Length(ncols)
	dh := (c.Max.Y - c.Min.Y - sp.height(padY)) / vg.Length(nrows)
	out := make([][]vg.Rectangle, nrows)
	top := c.Max.Y
	for j := range out {
		out[j] = make([]vg.Rectangle, ncols)
		top -= sp.above[j]
		x := c.Min.X
		for i := range out[j] {
			x += sp.left[i]
			out[j][i] = vg.Rectangle{Min: vg.Point{X: x, Y: top - dh}, Max: vg.Point{X: x + dw, Y: top}}
			x += dw + sp.right[i] + padX
		}
		top -= dh + sp.below[j] + padY
	}
	return out
}

// fitData returns the canvas, on c's, that p draws its data in want on:
// want with the room p's axes and title take around it, as measured on
// a large canvas, then corrected for what depends on the canvas's size.
func fitData(p *plot.Plot, c draw.Canvas, want vg.Rectangle) draw.Canvas {
	big := draw.NewCanvas(&recorder.Canvas{}, 20*vg.Inch, 20*vg.Inch)
	d := p.DataCanvas(big)
	pc := c
	pc.Min = vg.Point{X: want.Min.X - (d.Min.X - big.Min.X), Y: want.Min.Y - (d.Min.Y - big.Min.Y)}
	pc.Max = vg.Point{X: want.Max.X + (big.Max.X - d.Max.X), Y: want.Max.Y + (big.Max.Y - d.Max.Y)}
	for range 3 {
		d := p.DataCanvas(pc)
		pc.Min.X += want.Min.X - d.Min.X
		pc.Min.Y += want.Min.Y - d.Min.Y
		pc.Max.X += want.Max.X - d.Max.X
		pc.Max.Y += want.Max.Y - d.Max.Y
	}
	return pc
}

// panel is the panel of one variant's marks m in a grid: its title the
// variant, the benchmarks named where it is in the first column (left),
// the x ticks labelled where no panel is under it (bottom).
func (ch *rowChart) panel(m *rowMarks, left, bottom bool, xmin, xmax float64, ticker plot.Ticker) *plot.Plot {
	p := plot.New()
	p.Title.Text = m.name
	p.Title.TextStyle.Font.Size = vg.Points(gridTitleSize)
	p.Title.Padding = vg.Points(2)
	p.X.Tick.Label.Font.Size = vg.Points(gridTickSize)
	p.Y.Tick.Label.Font.Size = vg.Points(gridTickSize)
	p.X.Tick.Marker = ticker
	if left {
		p.NominalY(bottomUp(ch.rows)...)
	} else {
		p.HideY()
		p.X.Padding = p.Y.Tick.Label.Height("X") / 2 // as NominalY sets it
	}
	if !bottom {
		p.HideX()
	}
	var xs []float64
	for _, t := range ticker.Ticks(xmin, xmax) {
		if t.Label != "" {
			xs = append(xs, t.Value)
		}
	}
	p.Add(panelGrid{xs: xs, rows: len(ch.rows)}, m)
	p.Add(ch.over...)
	p.X.Min, p.X.Max = xmin, xmax
	p.Y.Min, p.Y.Max = -0.5, float64(len(ch.rows))-0.5
	return p
}

// panelTitles returns the titles of panels that may be w wide, naming
// names: in gridTitleSize type, or smaller, down to gridMinTitleSize,
// where the widest would not fit; a name wider still is broken after
// its commas (a setting of several knobs), the commas kept, so that the
// lines joined are the name.
func panelTitles(names []string, w vg.Length) ([]string, vg.Length) {
	sty := plot.New().Title.TextStyle
	sty.Font.Size = vg.Points(gridTitleSize)
	var widest vg.Length
	for _, n := range names {
		widest = max(widest, sty.Width(n))
	}
	if widest > w {
		sty.Font.Size = max(vg.Points(gridMinTitleSize), sty.Font.Size*w/widest)
	}
	out := make([]string, len(names))
	for k, n := range names {
		if sty.Width(n) <= w {
			out[k] = n
			continue
		}
		var lines []string
		line := ""
		for _, part := range strings.SplitAfter(n, ",") {
			if line != "" && sty.Width(line+part) > w {
				lines = append(lines, line)
				line = ""
			}
			line += part
		}
		out[k] = strings.Join(append(lines, line), "\n")
	}
	return out, sty.Font.Size
}

// gridNotes are the legend of ch's small multiples: what a pale mark
// means, where some are.
func (ch *rowChart) gridNotes() []note {
	if ch.alpha <= 0 {
		return nil
	}
	return []note{
		{fmt.Sprintf("significant (p ≤ %g)", ch.alpha), gridPanelColor},
		{fmt.Sprintf("pale: not significant (p > %g)", ch.alpha), paler(gridPanelColor)},
	}
}

// A note is a legend entry of small multiples: a swatch and what it
// means.
type note struct {
	label string
	color color.Color
}

// drawNotes writes notes in one line centred on x, its top at y.
func drawNotes(c draw.Canvas, sty text.Style, notes []note, x, y vg.Length) {
	sw, gap, sep := vg.Points(14), vg.Points(4), vg.Points(18)
	lineH := sty.Height("Xg")
	var total vg.Length
	for i, n := range notes {
		total += sw + gap + sty.Width(n.label)
		if i > 0 {
			total += sep
		}
	}
	sty.XAlign, sty.YAlign = draw.XLeft, draw.YTop
	at := x - total/2
	for _, n := range notes {
		r := vg.Rectangle{Min: vg.Point{X: at, Y: y - lineH*0.85}, Max: vg.Point{X: at + sw, Y: y - lineH*0.15}}
		c.SetColor(n.color)
		c.Fill(r.Path())
		at += sw + gap
		c.FillText(sty, vg.Point{X: at, Y: y}, n.label)
		at += sty.Width(n.label) + sep
	}
}

// panelGrid draws a panel's grid: a light line through every benchmark
// row and at every labelled x tick (xs), and a frame, so that the eye
// can follow a row or a tick across the panels of small multiples.
type panelGrid struct {
	xs   []float64
	rows int
}

func (g panelGrid) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	ls := draw.LineStyle{Color: color.Gray{0xd8}, Width: vg.Points(0.5)}
	for _, x := range g.xs {
		if cx := trX(x); cx >= c.Min.X && cx <= c.Max.X {
			c.StrokeLine2(ls, cx, c.Min.Y, cx, c.Max.Y)
		}
	}
	for i := range g.rows {
		cy := trY(float64(i))
		c.StrokeLine2(ls, c.Min.X, cy, c.Max.X, cy)
	}
	frame := draw.LineStyle{Color: color.Gray{0xa0}, Width: vg.Points(0.5)}
	c.StrokeLines(frame, []vg.Point{c.Min, {X: c.Max.X, Y: c.Min.Y}, c.Max, {X: c.Min.X, Y: c.Max.Y}, c.Min})
}
