package trace

import (
	"bufio"
	"cmp"
	"encoding/csv"
	"fmt"
	"image/color"
	"io"
	"math"
	"math/bits"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"text/tabwriter"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/schedlab/schedlab/src/internal/plots"
	"github.com/schedlab/schedlab/src/internal/timeline"
)

// Files `schedlab trace -latency` writes.
const (
	LatencyCSVFile      = "latency.csv"          // every run with a known runnable→running delay
	LatencySummaryFile  = "latency-summary.txt"  // counts and quantiles, overall and per P
	LatencyHeatmapFile  = "latency-heatmap.svg"  // delay over time, whole process and per P (and .png)
	LatencyCreationFile = "latency-creation.svg" // creation→first-run delay, ECDF (and .png)
)

// MaxLatencyPanels caps the per-P panels of the heat map: more would not
// fit a page at a readable size.
const MaxLatencyPanels = 16

// GlobalQueueMark is the global run queue length from which a
// RunqOverflow is marked apart on the heat map: the capacity of a P's
// whole local run queue.
const GlobalQueueMark = 256

// LatencyTimeBins is the number of time bins of the heat map.
const LatencyTimeBins = 80

// minDelayBucket is the lowest delay bucket's lower edge (ns) at the
// most: delays shorter than it share that bucket.
const minDelayBucket = 128

// A Delay is the runnable→running delay of one run: from when its
// goroutine last became runnable to when the run started.
type Delay struct {
	Start int64  // the run's start, ns since the trace began
	P     int    // the P it ran on, -1 without one
	G     int64  // goroutine
	Delay int64  // ns
	From  string // the state it left to become runnable (timeline.Run.ReadyFrom)
}

// Created reports whether the delay is a creation→first-run delay.
func (d Delay) Created() bool { return d.From == "NotExist" }

// Latency is the scheduling latency of a trace.
type Latency struct {
	Delays    []Delay          // every run with a known ready time, by start
	Runs      int              // runs in the trace, known ready time or not
	End       int64            // the trace's last run end or event, ns since it began
	Overflows []timeline.Event // RunqOverflow events (tracesteal=1), by time
	Node      map[int]int      // home node by P (empty: one node)
	// Steal reports whether the trace has the Steal experiment's events
	// (tracesteal=1), so that no overflow means none happened. Such a
	// trace always has ProcNUMANode events, which fill Node.
	Steal bool
}

// Latencies computes the runnable→running delay of every run of t whose
// ready time is known. It fails for a runs CSV without the ready_ns
// column.
func Latencies(t *timeline.Trace) (*Latency, error) {
	if !t.Ready {
		return nil, fmt.Errorf("go tool trace -d=runs wrote no ready_ns column: this toolchain predates the scheduling-latency columns (rebuild it with make toolchain)")
	}
	l := &Latency{Runs: len(t.Runs), Node: t.Node, Steal: len(t.Node) > 0}
	_, l.End = t.Span()
	for _, r := range t.Runs {
		if d, ok := r.Delay(); ok {
			l.Delays = append(l.Delays, Delay{Start: r.Start, P: r.P, G: r.G, Delay: d, From: r.ReadyFrom})
		}
	}
	slices.SortStableFunc(l.Delays, func(a, b Delay) int { return cmp.Compare(a.Start, b.Start) })
	for _, e := range t.Events {
		l.End = max(l.End, e.T)
		if e.Kind == "RunqOverflow" {
			l.Overflows = append(l.Overflows, e)
		}
	}
	slices.SortStableFunc(l.Overflows, func(a, b timeline.Event) int { return cmp.Compare(a.T, b.T) })
	return l, nil
}

// Creations returns the creation→first-run delays.
func (l *Latency) Creations() []Delay {
	var out []Delay
	for _, d := range l.Delays {
		if d.Created() {
			out = append(out, d)
		}
	}
	return out
}

// Procs lists the Ps of the delays, by home node then ID, with -1 (runs
// without a P) last.
func (l *Latency) Procs() []int {
	seen := map[int]bool{}
	for _, d := range l.Delays {
		seen[d.P] = true
	}
	var ps []int
	for p := range seen {
		ps = append(ps, p)
	}
	slices.SortFunc(ps, func(a, b int) int {
		if (a < 0) != (b < 0) {
			return cmp.Compare(b, a) // -1 last
		}
		if c := cmp.Compare(l.Node[a], l.Node[b]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	return ps
}

func (l *Latency) procName(p int) string {
	switch {
	case p < 0:
		return "no P"
	case len(l.Node) > 0:
		return fmt.Sprintf("P%d (node %d)", p, l.Node[p])
	}
	return fmt.Sprintf("P%d", p)
}

// Quantiles summarise delays: their count, nearest-rank quantiles and
// maximum, in ns.
type Quantiles struct {
	N                  int
	P50, P90, P99, Max int64
}

// QuantilesOf returns the quantiles of ds's delays.
func QuantilesOf(ds []Delay) Quantiles {
	v := make([]int64, len(ds))
	for i, d := range ds {
		v[i] = d.Delay
	}
	slices.Sort(v)
	q := Quantiles{N: len(v)}
	if q.N == 0 {
		return q
	}
	rank := func(f float64) int64 {
		i := int(math.Ceil(f*float64(q.N))) - 1
		return v[min(max(i, 0), q.N-1)]
	}
	q.P50, q.P90, q.P99, q.Max = rank(0.5), rank(0.9), rank(0.99), v[q.N-1]
	return q
}

// short writes a duration in ns with three significant digits.
func short(ns int64) string {
	p := int64(1)
	for v := ns; v >= 1000; v /= 10 {
		p *= 10
	}
	return time.Duration(ns).Round(time.Duration(p)).String()
}

func (q Quantiles) cells() string {
	if q.N == 0 {
		return "0\t\t\t\t"
	}
	return fmt.Sprintf("%d\t%s\t%s\t%s\t%s", q.N, short(q.P50), short(q.P90), short(q.P99), short(q.Max))
}

func (q Quantiles) String() string {
	if q.N == 0 {
		return "none"
	}
	return fmt.Sprintf("p50 %s, p90 %s, p99 %s, max %s", short(q.P50), short(q.P90), short(q.P99), short(q.Max))
}

// readyFromNames says what each ready_from means, in the summary's order.
var readyFromNames = []struct{ from, what string }{
	{"NotExist", "created"},
	{"Waiting", "unblocked"},
	{"Running", "preempted or yielded"},
	{"Syscall", "back from a syscall"},
	{"Undetermined", "state unknown at the trace's start"},
}

// WriteSummary writes the counts and quantiles of both delays, overall,
// by what the goroutine became runnable from, and per P, and the run
// queue overflows per P.
func (l *Latency) WriteSummary(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', 0)
	fmt.Fprintf(tw, "runnable→running delay: from when a goroutine last became runnable to when its run started\n")
	fmt.Fprintf(tw, "%d runs in the trace, %d with a known ready time (the others were runnable when the trace began)\n\n", l.Runs, len(l.Delays))
	fmt.Fprintf(tw, "\truns\tp50\tp90\tp99\tmax\n")
	fmt.Fprintf(tw, "all runs\t%s\n", QuantilesOf(l.Delays).cells())
	for _, f := range readyFromNames {
		ds := filterDelays(l.Delays, func(d Delay) bool { return d.From == f.from })
		if len(ds) > 0 {
			fmt.Fprintf(tw, "  ready from %s (%s)\t%s\n", f.from, f.what, QuantilesOf(ds).cells())
		}
	}
	byP := byProc(l.Delays)
	for _, p := range l.Procs() {
		fmt.Fprintf(tw, "  on %s\t%s\n", l.procName(p), QuantilesOf(byP[p]).cells())
	}
	created := l.Creations()
	createdByP := byProc(created)
	fmt.Fprintf(tw, "\ncreation→first-run delay: the first run of a goroutine created during the trace\n\n")
	fmt.Fprintf(tw, "\tgoroutines\tp50\tp90\tp99\tmax\n")
	fmt.Fprintf(tw, "all\t%s\n", QuantilesOf(created).cells())
	for _, p := range l.Procs() {
		if ds := createdByP[p]; len(ds) > 0 {
			fmt.Fprintf(tw, "  on %s\t%s\n", l.procName(p), QuantilesOf(ds).cells())
		}
	}
	fmt.Fprintf(tw, "\n%s\n", l.overflowLine())
	if len(l.Overflows) > 0 {
		by := map[int]int{}
		for _, e := range l.Overflows {
			by[e.P]++
		}
		ps := make([]int, 0, len(by))
		for p := range by {
			ps = append(ps, p)
		}
		slices.Sort(ps)
		for _, p := range ps {
			fmt.Fprintf(tw, "  %s\t%d\n", l.procName(p), by[p])
		}
	}
	return tw.Flush()
}

func (l *Latency) overflowLine() string {
	if len(l.Overflows) == 0 {
		if l.Steal {
			return "no run queue overflowed during the trace"
		}
		return "no run queue overflows recorded (RunqOverflow events need GODEBUG=tracesteal=1)"
	}
	var moved, maxGlobal int64
	for _, e := range l.Overflows {
		moved += max(e.N, 0)
		maxGlobal = max(maxGlobal, e.Global)
	}
	return fmt.Sprintf("%d run queue overflows moved %d goroutines to the global queue (at most %d there after one)", len(l.Overflows), moved, maxGlobal)
}

// WriteShort writes the summary's first lines, for a terminal.
func (l *Latency) WriteShort(w io.Writer) {
	fmt.Fprintf(w, "runnable→running delay of %d of %d runs: %v\n", len(l.Delays), l.Runs, QuantilesOf(l.Delays))
	fmt.Fprintf(w, "creation→first-run delay of %d goroutines: %v\n", len(l.Creations()), QuantilesOf(l.Creations()))
	fmt.Fprintln(w, l.overflowLine())
}

// WriteCSV writes one record per delay: start_ns, proc, goroutine,
// delay_ns, ready_from.
func (l *Latency) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"start_ns", "proc", "goroutine", "delay_ns", "ready_from"})
	for _, d := range l.Delays {
		cw.Write([]string{strconv.FormatInt(d.Start, 10), strconv.Itoa(d.P), strconv.FormatInt(d.G, 10), strconv.FormatInt(d.Delay, 10), d.From})
	}
	cw.Flush()
	return cw.Error()
}

// byProc groups delays by P.
func byProc(ds []Delay) map[int][]Delay {
	m := map[int][]Delay{}
	for _, d := range ds {
		m[d.P] = append(m[d.P], d)
	}
	return m
}

func filterDelays(ds []Delay, keep func(Delay) bool) []Delay {
	var out []Delay
	for _, d := range ds {
		if keep(d) {
			out = append(out, d)
		}
	}
	return out
}

// WriteLatency computes the latencies of t and writes LatencyCSVFile,
// LatencySummaryFile and the figures LatencyHeatmapFile and
// LatencyCreationFile (with their PNGs) into dir. ps chooses the Ps of
// the heat map's per-P panels (nil: every P, up to MaxLatencyPanels). It
// returns notes on what the figures leave out.
func WriteLatency(t *timeline.Trace, dir, title string, ps []int) (*Latency, []string, error) {
	l, err := Latencies(t)
	if err != nil {
		return nil, nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, err
	}
	if err := writeFile(filepath.Join(dir, LatencyCSVFile), l.WriteCSV); err != nil {
		return nil, nil, err
	}
	if err := writeFile(filepath.Join(dir, LatencySummaryFile), l.WriteSummary); err != nil {
		return nil, nil, err
	}
	var notes []string
	if len(l.Delays) == 0 {
		return l, append(notes, "no run has a known ready time: no figures drawn"), nil
	}
	fig, err := l.heatmap(title, ps)
	if err != nil {
		return nil, nil, err
	}
	notes = append(notes, fig.notes...)
	if err := plots.SaveDrawing(fig.w, fig.h, filepath.Join(dir, LatencyHeatmapFile), fig.paint, fig.figure); err != nil {
		return nil, nil, err
	}
	if len(l.Creations()) == 0 {
		return l, append(notes, "no goroutine was created during the trace: "+LatencyCreationFile+" not drawn"), nil
	}
	p := l.creationPlot(title)
	if err := plots.Save(p, 6.5*vg.Inch, 3.6*vg.Inch, filepath.Join(dir, LatencyCreationFile)); err != nil {
		return nil, nil, err
	}
	return l, notes, nil
}

// writeFile writes what write writes into path.
func writeFile(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(f)
	if err := write(bw); err != nil {
		f.Close()
		return err
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// latencyBins divide time into equal bins from the trace's start, and
// delays into buckets that double: bucket k holds delays in
// [lo·2^k, lo·2^(k+1)), bucket 0 also the shorter ones.
type latencyBins struct {
	width int64 // ns per time bin
	nt    int
	lo    int64 // ns, a power of two
	nb    int
}

func newLatencyBins(l *Latency) latencyBins {
	b := latencyBins{nt: LatencyTimeBins, lo: minDelayBucket}
	end := max(l.End, 1)
	b.width = (end + int64(b.nt) - 1) / int64(b.nt)
	if len(l.Delays) == 0 {
		b.nb = 1
		return b
	}
	lo, hi := l.Delays[0].Delay, l.Delays[0].Delay
	for _, d := range l.Delays {
		lo, hi = min(lo, d.Delay), max(hi, d.Delay)
	}
	for b.lo*2 <= lo {
		b.lo *= 2
	}
	b.nb = 1
	for b.nb < 62 && b.lo<<b.nb <= hi {
		b.nb++
	}
	return b
}

func (b latencyBins) timeBin(t int64) int { return min(max(int(t/b.width), 0), b.nt-1) }

func (b latencyBins) bucket(d int64) int {
	if d < b.lo {
		return 0
	}
	return min(bits.Len64(uint64(d/b.lo))-1, b.nb-1)
}

// count counts ds by time bin and delay bucket: [time bin][bucket].
func (b latencyBins) count(ds []Delay) [][]int {
	c := make([][]int, b.nt)
	for i := range c {
		c[i] = make([]int, b.nb)
	}
	for _, d := range ds {
		c[b.timeBin(d.Start)][b.bucket(d.Delay)]++
	}
	return c
}

// The heat maps' y coordinate is log10 of the delay in µs.
func (b latencyBins) bottom() float64 { return math.Log10(float64(b.lo) / 1e3) }
func (b latencyBins) top() float64    { return b.bottom() + float64(b.nb)*math.Log10(2) }

// heatGrid is one panel's counts as a plotter.GridXYZ.
type heatGrid struct {
	b      latencyBins
	counts [][]int
	unit   float64 // ns per x unit
	scale  *plots.LogCountScale
}

func (g heatGrid) Dims() (c, r int)   { return g.b.nt, g.b.nb }
func (g heatGrid) Z(c, r int) float64 { return g.scale.Z(float64(g.counts[c][r])) }
func (g heatGrid) X(c int) float64    { return (float64(c) + 0.5) * float64(g.b.width) / g.unit }
func (g heatGrid) Y(r int) float64    { return g.b.bottom() + (float64(r)+0.5)*math.Log10(2) }

// timeUnit is the unit of a time axis spanning span ns.
func timeUnit(span int64) (float64, string) {
	switch {
	case span >= 10e9:
		return 1e9, "s"
	case span >= 10e6:
		return 1e6, "ms"
	}
	return 1e3, "µs"
}

var (
	overflowColour = color.RGBA{37, 52, 148, 255}
	globalColour   = color.RGBA{215, 25, 28, 255}
	stripColour    = color.Gray{Y: 150}
)

// overflowMarks draws RunqOverflow events as ticks down from the top of
// a panel, in a strip above the heat map: a tick's height is the global
// queue's length right after the overflow against the longest in the
// trace, and ticks at GlobalQueueMark or more are red.
type overflowMarks struct {
	evs       []timeline.Event
	unit      float64
	top       float64 // y of the heat map's top edge
	maxGlobal int64
}

func (m overflowMarks) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	y := trY(m.top)
	c.StrokeLine2(draw.LineStyle{Color: stripColour, Width: vg.Points(0.4), Dashes: []vg.Length{vg.Points(2), vg.Points(2)}}, c.Min.X, y, c.Max.X, y)
	room := c.Max.Y - y - vg.Points(1)
	for _, e := range m.evs {
		x := trX(float64(e.T) / m.unit)
		if x < c.Min.X || x > c.Max.X {
			continue
		}
		f := 1.0
		if m.maxGlobal > 0 {
			f = 0.25 + 0.75*float64(max(e.Global, 0))/float64(m.maxGlobal)
		}
		col := overflowColour
		if e.Global >= GlobalQueueMark {
			col = globalColour
		}
		c.StrokeLine2(draw.LineStyle{Color: col, Width: vg.Points(0.7)}, x, c.Max.Y, x, c.Max.Y-vg.Length(f)*room)
	}
}

// heatFigure is the heat map figure: paint draws it on a w × h canvas.
type heatFigure struct {
	paint  func(draw.Canvas)
	w, h   vg.Length
	notes  []string
	figure plots.Figure // what paint draws, for the figure's description
	// What the panels show, for tests: the whole process's counts
	// first, then each per-P panel's P and counts.
	panelPs  []int
	counts   [][][]int
	bins     latencyBins
	maxCount int
}

// heatmap lays out the whole-process panel, the per-P panels in a grid
// under it, and the colour key with the marks' legend at the bottom.
func (l *Latency) heatmap(title string, ps []int) (*heatFigure, error) {
	b := newLatencyBins(l)
	unit, unitName := timeUnit(int64(b.nt) * b.width)
	fig := &heatFigure{bins: b}

	procs := l.Procs()
	if ps != nil {
		procs = slices.DeleteFunc(procs, func(p int) bool { return !slices.Contains(ps, p) })
		if len(procs) == 0 {
			return nil, fmt.Errorf("latency: no run with a known delay ran on the Ps chosen (%v)", ps)
		}
	}
	if n := len(procs); n > MaxLatencyPanels {
		fig.notes = append(fig.notes, fmt.Sprintf("per-P panels: the first %d of %d Ps (choose others with -ps); %s has them all", MaxLatencyPanels, n, LatencySummaryFile))
		procs = procs[:MaxLatencyPanels]
	}
	fig.panelPs = procs
	all := b.count(l.Delays)
	fig.counts = append(fig.counts, all)
	byP := byProc(l.Delays)
	for _, p := range procs {
		fig.counts = append(fig.counts, b.count(byP[p]))
	}
	for _, row := range all {
		for _, n := range row {
			fig.maxCount = max(fig.maxCount, n)
		}
	}
	scale := plots.NewLogCountScale(float64(fig.maxCount))
	var maxGlobal int64
	for _, e := range l.Overflows {
		maxGlobal = max(maxGlobal, e.Global)
	}
	yMax := b.top()
	if len(l.Overflows) > 0 {
		yMax += math.Max(math.Log10(2), 0.15*(b.top()-b.bottom()))
	}
	panel := func(counts [][]int, evs []timeline.Event, name string, small bool) *plot.Plot {
		p := plot.New()
		p.Title.Text = name
		p.Add(scale.HeatMap(heatGrid{b: b, counts: counts, unit: unit, scale: scale}))
		if len(l.Overflows) > 0 {
			p.Add(overflowMarks{evs: evs, unit: unit, top: b.top(), maxGlobal: maxGlobal})
		}
		p.X.Min, p.X.Max = 0, float64(int64(b.nt)*b.width)/unit
		p.Y.Min, p.Y.Max = b.bottom(), yMax
		p.X.Tick.Marker = plots.NiceTicks
		p.Y.Tick.Marker = belowTicks{plots.Log10Ticks, b.top()} // none in the overflow strip
		p.X.Label.Text = "time since trace start (" + unitName + ")"
		p.Y.Label.Text = "runnable→running delay\n(µs, log scale)"
		size := vg.Points(9)
		if small {
			size = vg.Points(7)
			p.X.Label.Text = "time (" + unitName + ")"
			p.Y.Label.Text = "delay (µs, log scale)"
			p.X.Tick.Length, p.Y.Tick.Length = vg.Points(3), vg.Points(3)
		}
		p.Title.TextStyle.Font.Size = size + vg.Points(1)
		p.X.Label.TextStyle.Font.Size, p.Y.Label.TextStyle.Font.Size = size, size
		p.X.Tick.Label.Font.Size, p.Y.Tick.Label.Font.Size = size-vg.Points(1), size-vg.Points(1)
		return p
	}

	top := panel(all, l.Overflows, "", false)
	top.Title.Text = fmt.Sprintf("whole process: runnable→running delay of %d runs, by run start", len(l.Delays))
	if title != "" {
		top.Title.Text = title + "\n" + top.Title.Text
	}
	const cols = 4
	nc := min(cols, len(procs))
	nr := (len(procs) + cols - 1) / cols
	grid := make([][]*plot.Plot, nr)
	for i := range grid {
		grid[i] = make([]*plot.Plot, max(nc, 1))
	}
	for i, p := range procs {
		var evs []timeline.Event
		for _, e := range l.Overflows {
			if e.P == p {
				evs = append(evs, e)
			}
		}
		pp := panel(fig.counts[i+1], evs, l.procName(p), true)
		r, c := i/cols, i%cols
		if r != nr-1 && (r+1)*cols+c < len(procs) {
			pp.X.Label.Text = "" // the panel under it says it
		}
		if c != 0 {
			pp.Y.Label.Text = ""
		}
		grid[r][c] = pp
	}

	key := scale.Key("runs per cell of time bin × delay bucket (count)")
	key.X.Label.TextStyle.Font.Size = vg.Points(8)
	key.X.Tick.Label.Font.Size = vg.Points(7)
	leg := plot.NewLegend()
	leg.TextStyle.Font.Size = vg.Points(7)
	leg.ThumbnailWidth = vg.Points(12)
	leg.Top, leg.Left = true, true
	tick := func(col color.Color, f float64) plot.Thumbnailer {
		return thumbFunc(func(c *draw.Canvas) {
			x := (c.Min.X + c.Max.X) / 2
			c.StrokeLine2(draw.LineStyle{Color: col, Width: vg.Points(1)}, x, c.Max.Y, x, c.Max.Y-vg.Length(f)*(c.Max.Y-c.Min.Y))
		})
	}
	none := thumbFunc(func(*draw.Canvas) {})
	if len(l.Overflows) > 0 {
		leg.Add(fmt.Sprintf("top strip: a run queue overflow (RunqOverflow); height: global queue length after it (max %d)", maxGlobal), tick(overflowColour, 0.6))
		leg.Add(fmt.Sprintf("overflow that left %d or more goroutines in the global queue", GlobalQueueMark), tick(globalColour, 1))
	} else if l.Steal {
		leg.Add("no run queue overflowed during the trace", none)
	} else {
		leg.Add("no RunqOverflow events in this trace (they need GODEBUG=tracesteal=1)", none)
	}
	leg.Add("per-P panels: runs (and overflows) by the P they started on; same colours", none)
	leg.Add(fmt.Sprintf("lowest row: every delay under %s", short(b.lo*2)), none)
	if len(procs) < len(l.Procs()) {
		leg.Add(fmt.Sprintf("%d of %d Ps shown", len(procs), len(l.Procs())), none)
	}

	const topH, rowH, keyH = 2.5 * vg.Inch, 1.4 * vg.Inch, 0.9 * vg.Inch
	fig.w = 7 * vg.Inch
	fig.h = topH + vg.Length(nr)*rowH + keyH
	fig.figure = plots.Figure{Panels: []*plot.Plot{top}, HeatMap: true, Key: key}
	for _, row := range grid {
		for _, p := range row {
			if p != nil {
				fig.figure.Panels = append(fig.figure.Panels, p)
			}
		}
	}
	fig.paint = func(c draw.Canvas) {
		region := func(x0, y0, x1, y1 vg.Length) draw.Canvas {
			return draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{Min: vg.Point{X: c.Min.X + x0, Y: c.Min.Y + y0}, Max: vg.Point{X: c.Min.X + x1, Y: c.Min.Y + y1}}}
		}
		top.Draw(region(0, fig.h-topH, fig.w, fig.h))
		if nr > 0 {
			tiles := draw.Tiles{Rows: nr, Cols: max(nc, 1), PadX: vg.Points(6), PadY: vg.Points(4), PadTop: vg.Points(6)}
			cs := plot.Align(grid, tiles, region(0, keyH, fig.w, fig.h-topH))
			for i, row := range grid {
				for j, p := range row {
					if p != nil {
						p.Draw(cs[i][j])
					}
				}
			}
		}
		key.Draw(region(0, 0, fig.w*0.38, keyH))
		leg.Draw(region(fig.w*0.40, 0, fig.w, keyH-vg.Points(4)))
	}
	return fig, nil
}

// belowTicks are the ticks of an axis up to max only.
type belowTicks struct {
	plot.Ticker
	max float64
}

// Unwrap returns the ticker t cuts, so that a figure's description sees
// a log axis through it.
func (t belowTicks) Unwrap() plot.Ticker { return t.Ticker }

func (t belowTicks) Ticks(lo, hi float64) []plot.Tick {
	return t.Ticker.Ticks(lo, math.Min(hi, t.max))
}

// thumbFunc is a legend entry drawn by a function.
type thumbFunc func(c *draw.Canvas)

func (f thumbFunc) Thumbnail(c *draw.Canvas) { f(c) }

// ecdf returns the ECDF of the delays as points (log10 µs, share in
// %), at most 2000 of them.
func ecdf(ds []Delay) plotter.XYs {
	v := make([]int64, len(ds))
	for i, d := range ds {
		v[i] = d.Delay
	}
	slices.Sort(v)
	x := func(ns int64) float64 { return math.Log10(float64(max(ns, 1)) / 1e3) }
	n := len(v)
	k := min(n, 2000)
	xys := plotter.XYs{{X: x(v[0]), Y: 0}}
	for i := range k {
		j := (i+1)*n/k - 1
		xys = append(xys, plotter.XY{X: x(v[j]), Y: 100 * float64(j+1) / float64(n)})
	}
	return xys
}

// creationPlot draws the ECDF of the creation→first-run delay, and for
// comparison that of every run's runnable→running delay.
func (l *Latency) creationPlot(title string) *plot.Plot {
	p := plot.New()
	created := l.Creations()
	p.Title.Text = fmt.Sprintf("creation→first-run delay of %d goroutines created during the trace: ECDF", len(created))
	if title != "" {
		p.Title.Text = title + "\n" + p.Title.Text
	}
	p.Title.TextStyle.Font.Size = vg.Points(10)
	p.X.Label.Text = "delay (µs, log scale)"
	p.Y.Label.Text = "share with a delay ≤ x (%)"
	p.X.Tick.Marker = plots.Log10Ticks
	p.Y.Tick.Marker = plots.NiceTicks
	p.Y.Min, p.Y.Max = 0, 100
	for i, s := range []struct {
		ds   []Delay
		name string
		col  color.Color
	}{
		{created, fmt.Sprintf("creation → first run (%d goroutines)", len(created)), globalColour},
		{l.Delays, fmt.Sprintf("every runnable → running (%d runs)", len(l.Delays)), color.Gray{Y: 110}},
	} {
		if len(s.ds) == 0 {
			continue
		}
		line, err := plotter.NewLine(ecdf(s.ds))
		if err != nil {
			continue // a delay that is not finite: nothing to draw
		}
		line.StepStyle = plotter.PostStep
		line.Color = s.col
		line.Width = vg.Points(1.5)
		if i == 1 {
			line.Width = vg.Points(1)
			line.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
		}
		p.Add(line)
		p.Legend.Add(s.name, line)
	}
	// The legend above the plot area, under the title: off the data.
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.YOffs = vg.Points(24)
	p.Legend.TextStyle.Font.Size = vg.Points(8)
	p.Title.Padding = vg.Points(26)
	p.X.Label.TextStyle.Font.Size, p.Y.Label.TextStyle.Font.Size = vg.Points(10), vg.Points(10)
	p.X.Tick.Label.Font.Size, p.Y.Tick.Label.Font.Size = vg.Points(9), vg.Points(9)
	p.Add(plotter.NewGrid())
	return p
}
