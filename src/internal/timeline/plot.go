package timeline

import (
	"cmp"
	"fmt"
	"image/color"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Options choose what Plot shows.
type Options struct {
	From, To int64 // window in ns from the trace's first event; To 0: From + DefaultWindow
	Ps       []int // Ps to show (nil: all that ran)
	Title    string
}

// DefaultWindow is the window's width when Options do not give one: wide
// enough to hold many goroutine runs and steals of a scheduler benchmark,
// narrow enough that each stays visible.
const DefaultWindow = 2_000_000 // 2 ms

// Window resolves the options' window against the trace: without From or
// To it is DefaultWindow wide, centred on the middle of the trace (where a
// benchmark's last, longest run usually is).
func (t *Trace) Window(opt Options) (from, to int64) {
	start, end := t.Span()
	from, to = opt.From, opt.To
	if from == 0 && to == 0 {
		mid := start + (end-start)/2
		from, to = max(start, mid-DefaultWindow/2), mid+DefaultWindow/2
	} else if to == 0 {
		to = from + DefaultWindow
	}
	return from, min(to, max(end, from+1))
}

// Colours: goroutines cycle through a qualitative palette (adjacent bars
// differ); the events have their own.
var (
	// runColours alternate along each P's row, so that one run ends
	// visibly where the next begins; the colour carries nothing else.
	runColours        = []color.Color{color.RGBA{158, 188, 218, 255}, color.RGBA{82, 121, 168, 255}}
	stwColour         = color.NRGBA{R: 120, G: 120, B: 120, A: 90}
	localStealColour  = color.RGBA{31, 120, 180, 255}
	remoteStealColour = color.RGBA{227, 26, 28, 255}
	hopColour         = color.RGBA{106, 61, 154, 255}
	preemptColour     = color.RGBA{0, 0, 0, 255}
	sliceColour       = color.RGBA{255, 127, 0, 255}
	overflowColour    = color.RGBA{166, 86, 40, 255}
	nodeLineColour    = color.RGBA{0, 0, 0, 255}
)

// view is the part of the trace in the window, in plot coordinates:
// x in the axis unit from the trace's first event, y the row index.
type view struct {
	t        *Trace
	from, to int64
	unit     float64 // ns per axis unit
	rows     []int   // Ps, top row last (plot y grows upwards)
	row      map[int]int
}

func (v *view) x(ns int64) float64 { return float64(ns) / v.unit }

// Plot draws the timeline of the window opt chooses; it returns the plot
// and the size it reads best at.
func Plot(t *Trace, opt Options) (*plot.Plot, vg.Length, vg.Length, error) {
	from, to := t.Window(opt)
	if to <= from {
		return nil, 0, 0, fmt.Errorf("timeline: empty window [%d, %d] ns", from, to)
	}
	ps := t.Procs()
	if opt.Ps != nil {
		ps = slices.DeleteFunc(slices.Clone(ps), func(p int) bool { return !slices.Contains(opt.Ps, p) })
	}
	if len(ps) == 0 {
		return nil, 0, 0, fmt.Errorf("timeline: no goroutine ran on the Ps chosen")
	}
	v := &view{t: t, from: from, to: to, unit: 1e3, row: map[int]int{}}
	unitName := "µs"
	if to-from > 20_000_000 {
		v.unit, unitName = 1e6, "ms"
	}
	// Node 0's first P at the top: rows count upwards from the bottom.
	for i := len(ps) - 1; i >= 0; i-- {
		v.row[ps[i]] = len(v.rows)
		v.rows = append(v.rows, ps[i])
	}

	p := plot.New()
	p.Title.Text = opt.Title
	if p.Title.Text != "" {
		p.Title.Text += "\n"
	}
	p.Title.Text += fmt.Sprintf("%s to %s %s after the trace began; one row per P, bars are goroutine runs", trimFloat(v.x(from)), trimFloat(v.x(to)), unitName)
	p.X.Label.Text = "time since the trace began (" + unitName + ")"
	p.X.Min, p.X.Max = v.x(from), v.x(to)
	p.Y.Min, p.Y.Max = -0.6, float64(len(v.rows))-0.4
	p.Y.Tick.Marker = rowTicks{v}
	p.X.Tick.Marker = timeTicks{}
	p.Add(v)
	for _, l := range v.legend() {
		p.Legend.Add(l.name, l.thumb)
	}
	p.Legend.Top = true
	p.Legend.Left = false
	p.Legend.YOffs = vg.Points(52) // above the plot area, under the title
	p.Legend.Padding = vg.Points(2)
	p.Legend.ThumbnailWidth = vg.Points(14)
	p.Legend.TextStyle.Font.Size = vg.Points(8)
	p.Title.Padding = vg.Points(58)
	h := vg.Points(math.Max(220, 24*float64(len(v.rows))+170))
	return p, 7 * vg.Inch, min(h, 9*vg.Inch), nil
}

func trimFloat(f float64) string { return fmt.Sprintf("%.6g", f) }

// timeTicks labels the time axis every 1, 2 or 5 × 10^k units, six to
// twelve labels across the window (gonum's default gives about three).
type timeTicks struct{}

func (timeTicks) Ticks(lo, hi float64) []plot.Tick {
	if hi <= lo {
		return nil
	}
	step := math.Pow(10, math.Floor(math.Log10((hi-lo)/6)))
	for _, m := range []float64{1, 2, 5, 10} {
		if (hi-lo)/(step*m) <= 12 {
			step *= m
			break
		}
	}
	var ts []plot.Tick
	for x := math.Ceil(lo/step) * step; x <= hi; x += step {
		ts = append(ts, plot.Tick{Value: x, Label: trimFloat(math.Round(x/step) * step)})
	}
	return ts
}

// rowTicks labels the rows with their P and node.
type rowTicks struct{ v *view }

func (r rowTicks) Ticks(min, max float64) []plot.Tick {
	var ts []plot.Tick
	for i, pid := range r.v.rows {
		label := fmt.Sprintf("P%d", pid)
		if len(r.v.t.Node) > 0 {
			label += fmt.Sprintf(" · node %d", r.v.t.Node[pid])
		}
		ts = append(ts, plot.Tick{Value: float64(i), Label: label})
	}
	return ts
}

// Plot implements plot.Plotter.
func (v *view) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	clipX := func(ns int64) vg.Length { return trX(v.x(min(max(ns, v.from), v.to))) }
	rect := func(x0, x1, y0, y1 vg.Length, col color.Color) {
		if x1-x0 < 0.4 {
			x1 = x0 + 0.4 // a run shorter than the resolution stays visible
		}
		c.FillPolygon(col, []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}})
	}
	top, bottom := trY(float64(len(v.rows))-0.4), trY(-0.6)
	for _, s := range v.t.STWs {
		if s.End < v.from || s.Start > v.to {
			continue
		}
		rect(clipX(s.Start), clipX(s.End), bottom, top, stwColour)
	}
	// Runs in the order they began, so that shades alternate along a row.
	runs := slices.Clone(v.t.Runs)
	slices.SortStableFunc(runs, func(a, b Run) int { return cmp.Compare(a.Start, b.Start) })
	drawn := make([]int, len(v.rows)) // runs drawn on each row so far
	for _, r := range runs {
		i, ok := v.row[r.P]
		if !ok || r.End < v.from || r.Start > v.to {
			continue
		}
		rect(clipX(r.Start), clipX(r.End), trY(float64(i)-0.32), trY(float64(i)+0.32), runColours[drawn[i]%len(runColours)])
		drawn[i]++
		if r.Preempted() && r.End <= v.to {
			mark(&c, trX(v.x(r.End)), trY(float64(i)+0.32), preemptColour, "down")
		}
	}
	// Node boundaries between rows.
	for i := 1; i < len(v.rows); i++ {
		if v.t.Node[v.rows[i]] != v.t.Node[v.rows[i-1]] {
			y := trY(float64(i) - 0.5)
			c.StrokeLine2(draw.LineStyle{Color: nodeLineColour, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(4), vg.Points(2)}}, c.Min.X, y, c.Max.X, y)
		}
	}
	for _, e := range v.t.Events {
		if e.T < v.from || e.T > v.to {
			continue
		}
		x := trX(v.x(e.T))
		to, okTo := v.row[e.P]
		switch e.Kind {
		case "WorkSteal", "TimerSteal", "NUMAHop":
			from, okFrom := v.row[e.From]
			if !okTo {
				continue
			}
			col := localStealColour
			if e.Kind == "NUMAHop" {
				col = hopColour
			} else if len(v.t.Node) > 0 && v.t.Node[e.P] != v.t.Node[e.From] {
				col = remoteStealColour
			}
			y1 := trY(float64(to))
			if okFrom {
				c.StrokeLine2(draw.LineStyle{Color: col, Width: vg.Points(0.8)}, x, trY(float64(from)), x, y1)
				dir := "up"
				if from > to {
					dir = "down"
				}
				mark(&c, x, y1, col, dir)
			} else {
				mark(&c, x, y1, col, "dot")
			}
		case "SlicePreempt":
			if okTo {
				mark(&c, x, trY(float64(to)-0.32), sliceColour, "up")
			}
		case "RunqOverflow":
			if okTo {
				mark(&c, x, trY(float64(to)), overflowColour, "dot")
			}
		}
	}
}

// mark draws a small triangle pointing dir ("up", "down") with its tip at
// (x, y), or a dot.
func mark(c *draw.Canvas, x, y vg.Length, col color.Color, dir string) {
	const s = 3.2
	switch dir {
	case "up":
		c.FillPolygon(col, []vg.Point{{X: x, Y: y}, {X: x - s, Y: y - 2*s}, {X: x + s, Y: y - 2*s}})
	case "down":
		c.FillPolygon(col, []vg.Point{{X: x, Y: y}, {X: x - s, Y: y + 2*s}, {X: x + s, Y: y + 2*s}})
	default:
		c.FillPolygon(col, []vg.Point{{X: x - s, Y: y - s}, {X: x + s, Y: y - s}, {X: x + s, Y: y + s}, {X: x - s, Y: y + s}})
	}
}

// thumb is a legend entry drawn by a function.
type thumb func(c *draw.Canvas)

func (f thumb) Thumbnail(c *draw.Canvas) { f(c) }

type legendEntry struct {
	name  string
	thumb plot.Thumbnailer
}

// legend lists what the window shows.
func (v *view) legend() []legendEntry {
	has := map[string]bool{}
	for _, e := range v.t.Events {
		if e.T >= v.from && e.T <= v.to {
			k := e.Kind
			if k == "WorkSteal" || k == "TimerSteal" {
				k = "local"
				if len(v.t.Node) > 0 && v.t.Node[e.P] != v.t.Node[e.From] {
					k = "remote"
				}
			}
			has[k] = true
		}
	}
	for _, s := range v.t.STWs {
		if s.End >= v.from && s.Start <= v.to {
			has["stw"] = true
		}
	}
	for _, r := range v.t.Runs {
		if r.Preempted() && r.End >= v.from && r.End <= v.to {
			if _, ok := v.row[r.P]; ok {
				has["preempted"] = true
			}
		}
	}
	box := func(col color.Color) thumb {
		return func(c *draw.Canvas) {
			c.FillPolygon(col, []vg.Point{{X: c.Min.X, Y: c.Min.Y}, {X: c.Max.X, Y: c.Min.Y}, {X: c.Max.X, Y: c.Max.Y}, {X: c.Min.X, Y: c.Max.Y}})
		}
	}
	arrow := func(col color.Color) thumb {
		return func(c *draw.Canvas) {
			x := (c.Min.X + c.Max.X) / 2
			c.StrokeLine2(draw.LineStyle{Color: col, Width: vg.Points(0.8)}, x, c.Min.Y, x, c.Max.Y)
			mark(c, x, c.Max.Y, col, "up")
		}
	}
	tri := func(col color.Color, dir string) thumb {
		return func(c *draw.Canvas) {
			x, y := (c.Min.X+c.Max.X)/2, c.Min.Y+6.4
			if dir == "down" {
				y = c.Max.Y - 6.4
			}
			mark(c, x, y, col, dir)
		}
	}
	out := []legendEntry{{"goroutine run (shades alternate between consecutive runs)", box(runColours[1])}}
	if has["local"] {
		name := "steal, victim → thief"
		if len(v.t.Node) > 0 {
			name = "steal within a node"
		}
		out = append(out, legendEntry{name, arrow(localStealColour)})
	}
	if has["remote"] {
		out = append(out, legendEntry{"steal across nodes", arrow(remoteStealColour)})
	}
	if has["NUMAHop"] {
		out = append(out, legendEntry{"NUMA hop to the work's node", arrow(hopColour)})
	}
	if has["preempted"] {
		out = append(out, legendEntry{"run ended by preemption", tri(preemptColour, "down")})
	}
	if has["SlicePreempt"] {
		out = append(out, legendEntry{"sysmon time-slice preemption", tri(sliceColour, "up")})
	}
	if has["RunqOverflow"] {
		out = append(out, legendEntry{"local run queue overflowed to the global queue", thumb(func(c *draw.Canvas) {
			mark(c, (c.Min.X+c.Max.X)/2, (c.Min.Y+c.Max.Y)/2, overflowColour, "dot")
		})})
	}
	if has["stw"] {
		out = append(out, legendEntry{"stop-the-world", box(stwColour)})
	}
	return out
}
