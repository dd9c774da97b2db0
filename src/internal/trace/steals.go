// Package trace analyses execution traces through the patched
// toolchain's go tool trace: the Steal experiment's events
// (GODEBUG=tracesteal=1; -d=steals) as totals per node and per pair of
// Ps, a CSV and a thief × victim matrix (Analyze); who ran where, when,
// as a per-P timeline (DrawTimeline, drawn by package timeline); the
// runnable→running and creation→first-run delays of the runs, as a CSV,
// quantiles and heat maps over time (WriteLatency); the same runs and
// events as Chrome trace-event JSON for Perfetto (WritePerfetto); and a
// copy of a trace that stock tools read (StockCopy, -d=stock). The runs
// and events come from one reading of the trace (Load) into a
// timeline.Trace.
//
// It serves both `schedlab trace` on any trace file and the traced runs
// of `schedlab bench -trace`, so it takes a trace file and a folder to
// write into, and knows nothing of results folders.
package trace

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/schedlab/schedlab/src/internal/plots"
	"github.com/schedlab/schedlab/src/internal/toolchain"
)

// Files `schedlab trace` writes next to a trace.
const (
	StealsCSVFile   = "steals.csv"        // every Steal event (go tool trace -d=steals)
	StealMatrixFile = "steal-matrix.svg"  // thief × victim heatmap (and .png)
	StealTextFile   = "steal-summary.txt" // per-node and per-pair totals
)

// StealTrace is the Steal experiment of one execution trace
// (GODEBUG=tracesteal=1), read from the CSV that the patched `go tool
// trace -d=steals` writes.
type StealTrace struct {
	Procs []int            // every P seen, ordered by home node, then ID
	Node  map[int]int      // home node by P (the last ProcNUMANode)
	Ops   map[[2]int]int64 // steals by [thief, victim]
	// Moved counts goroutines moved from victim to thief: stolen, and
	// readied by running the victim's timers.
	Moved                   map[[2]int]int64
	Hops, Binds, Preempts   int64
	Steals, TimerSteals     int64
	RunnextGoroutines       int64
	LocalMoved, RemoteMoved int64 // by NUMA distance: local is 0 (no NUMA) or 10
	// Overflows counts RunqOverflow events: a P's local run queue was
	// full and runqputslow moved OverflowMoved goroutines (the new one
	// included) to the global queue, which was at most MaxGlobal long
	// right after.
	Overflows, OverflowMoved, MaxGlobal int64
}

// ReadStealCSV parses go tool trace -d=steals output.
func ReadStealCSV(r io.Reader) (*StealTrace, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("steal CSV: %v", err)
	}
	col := map[string]int{}
	for i, h := range header {
		col[h] = i
	}
	if _, ok := col["event"]; !ok {
		return nil, fmt.Errorf("steal CSV: no event column in header %q (not go tool trace -d=steals output?)", strings.Join(header, ","))
	}
	s := &StealTrace{Node: map[int]int{}, Ops: map[[2]int]int64{}, Moved: map[[2]int]int64{}}
	seen := map[int]bool{}
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("steal CSV line %d: %v", line, err)
		}
		get := func(name string) int64 {
			i, ok := col[name]
			if !ok || i >= len(rec) || rec[i] == "" {
				return 0
			}
			v, err := strconv.ParseInt(rec[i], 10, 64)
			if err != nil {
				return 0
			}
			return v
		}
		pair := [2]int{int(get("thief")), int(get("victim"))}
		local := func(n int64) {
			if d := get("distance"); d == 0 || d == 10 {
				s.LocalMoved += n
			} else {
				s.RemoteMoved += n
			}
		}
		switch rec[col["event"]] {
		case "WorkSteal":
			n := get("goroutines")
			s.Steals++
			s.Ops[pair]++
			s.Moved[pair] += n
			s.RunnextGoroutines += get("runnext")
			local(n)
			seen[pair[0]], seen[pair[1]] = true, true
		case "TimerSteal":
			n := get("goroutines")
			s.TimerSteals++
			s.Moved[pair] += n
			local(n)
			seen[pair[0]], seen[pair[1]] = true, true
		case "NUMAHop":
			s.Hops++
		case "NUMABind":
			s.Binds++
		case "SlicePreempt":
			s.Preempts++
		case "RunqOverflow":
			s.Overflows++
			s.OverflowMoved += get("goroutines")
			s.MaxGlobal = max(s.MaxGlobal, get("global"))
		case "ProcNUMANode":
			p := int(get("proc"))
			s.Node[p] = int(get("node"))
			seen[p] = true
		}
	}
	for p := range seen {
		s.Procs = append(s.Procs, p)
	}
	sort.Slice(s.Procs, func(i, j int) bool {
		a, b := s.Procs[i], s.Procs[j]
		if s.Node[a] != s.Node[b] {
			return s.Node[a] < s.Node[b]
		}
		return a < b
	})
	return s, nil
}

// OffNodeMoved sums the matrix cells whose thief and victim have
// different home nodes. It equals RemoteMoved, and the counter
// /sched/steal/remote-node:goroutines over the traced interval.
func (s *StealTrace) OffNodeMoved() int64 {
	var n int64
	for k, v := range s.Moved {
		if s.Node[k[0]] != s.Node[k[1]] {
			n += v
		}
	}
	return n
}

// WriteText writes the per-node and per-pair totals.
func (s *StealTrace) WriteText(w io.Writer) {
	total := s.LocalMoved + s.RemoteMoved
	fmt.Fprintf(w, "%d steals and %d timer steals moved %d goroutines (%d from runnext): %d within a node, %d across nodes",
		s.Steals, s.TimerSteals, total, s.RunnextGoroutines, s.LocalMoved, s.RemoteMoved)
	if total > 0 {
		fmt.Fprintf(w, " (%.1f%% local)", 100*float64(s.LocalMoved)/float64(total))
	}
	fmt.Fprintf(w, "\n%d NUMA hops, %d thread binds, %d time-slice preemptions\n", s.Hops, s.Binds, s.Preempts)
	if s.Overflows > 0 {
		fmt.Fprintf(w, "%d local run queue overflows moved %d goroutines to the global queue (at most %d there after one)\n", s.Overflows, s.OverflowMoved, s.MaxGlobal)
	}

	nodes := map[int]bool{}
	for _, p := range s.Procs {
		nodes[s.Node[p]] = true
	}
	var ns []int
	for n := range nodes {
		ns = append(ns, n)
	}
	sort.Ints(ns)
	fmt.Fprintf(w, "\nby node (thief node <- victim node: goroutines moved, steals)\n")
	byNode := map[[2]int][2]int64{}
	for k, v := range s.Moved {
		nk := [2]int{s.Node[k[0]], s.Node[k[1]]}
		c := byNode[nk]
		c[0] += v
		c[1] += s.Ops[k]
		byNode[nk] = c
	}
	for _, a := range ns {
		for _, b := range ns {
			if c, ok := byNode[[2]int{a, b}]; ok {
				fmt.Fprintf(w, "  node %d <- node %d: %d goroutines, %d steals\n", a, b, c[0], c[1])
			}
		}
	}
	fmt.Fprintf(w, "\nby pair (thief <- victim: goroutines moved, steals), largest first\n")
	var pairs [][2]int
	for k := range s.Moved {
		pairs = append(pairs, k)
	}
	sort.Slice(pairs, func(i, j int) bool {
		if s.Moved[pairs[i]] != s.Moved[pairs[j]] {
			return s.Moved[pairs[i]] > s.Moved[pairs[j]]
		}
		return pairs[i][0] < pairs[j][0] || pairs[i][0] == pairs[j][0] && pairs[i][1] < pairs[j][1]
	})
	for _, k := range pairs {
		fmt.Fprintf(w, "  P%d (node %d) <- P%d (node %d): %d goroutines, %d steals\n", k[0], s.Node[k[0]], k[1], s.Node[k[1]], s.Moved[k], s.Ops[k])
	}
}

// StealCSV runs the patched toolchain's `go tool trace -d=steals` on a
// trace file and returns its CSV.
func StealCSV(tc *toolchain.Toolchain, traceFile string) ([]byte, error) {
	out, err := tc.Run(context.Background(), "", "tool", "trace", "-d=steals", traceFile)
	if err != nil && strings.Contains(err.Error(), "invalid debug mode steals") {
		err = fmt.Errorf("%v\n(this go tool trace predates the Steal experiment: rebuild the toolchain with make toolchain)", err)
	}
	return out, err
}

// Analyze reads a trace's Steal events through the toolchain and writes
// StealsCSVFile, StealTextFile and the matrix plots into dir.
func Analyze(tc *toolchain.Toolchain, traceFile, dir, title string) (*StealTrace, error) {
	data, err := StealCSV(tc, traceFile)
	if err != nil {
		return nil, err
	}
	s, err := ReadStealCSV(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, StealsCSVFile), data, 0o644); err != nil {
		return nil, err
	}
	var text bytes.Buffer
	s.WriteText(&text)
	if err := os.WriteFile(filepath.Join(dir, StealTextFile), text.Bytes(), 0o644); err != nil {
		return nil, err
	}
	if len(s.Procs) > 0 {
		if err := plotStealMatrix(filepath.Join(dir, StealMatrixFile), s, title); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// stealGrid is the matrix as a plotter.GridXYZ: column = victim, row =
// thief, both in Procs order, value = goroutines moved.
type stealGrid struct {
	s     *StealTrace
	scale *plots.LogCountScale
}

func (g stealGrid) Dims() (c, r int) { return len(g.s.Procs), len(g.s.Procs) }
func (g stealGrid) Z(c, r int) float64 {
	// NaN for none: drawn white, the background.
	return g.scale.Z(float64(g.s.Moved[[2]int{g.s.Procs[r], g.s.Procs[c]}]))
}
func (g stealGrid) X(c int) float64 { return float64(c) }
func (g stealGrid) Y(r int) float64 { return float64(r) }

// procTicks labels the axes with P numbers and their nodes.
type procTicks struct{ s *StealTrace }

func (t procTicks) Ticks(min, max float64) []plot.Tick {
	var ts []plot.Tick
	for i, p := range t.s.Procs {
		ts = append(ts, plot.Tick{Value: float64(i), Label: fmt.Sprintf("P%d/n%d", p, t.s.Node[p])})
	}
	return ts
}

// plotStealMatrix draws the thief × victim heatmap with each node's block
// outlined, as SVG and PNG.
func plotStealMatrix(path string, s *StealTrace, title string) error {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "victim P / node"
	p.Y.Label.Text = "thief P / node"
	var max float64
	for _, v := range s.Moved {
		max = math.Max(max, float64(v))
	}
	scale := plots.NewLogCountScale(max)
	p.Add(scale.HeatMap(stealGrid{s, scale}))
	// Outline the node blocks: the diagonal blocks are moves within a
	// node, everything off them crossed nodes.
	start := 0
	for i := 1; i <= len(s.Procs); i++ {
		if i < len(s.Procs) && s.Node[s.Procs[i]] == s.Node[s.Procs[start]] {
			continue
		}
		lo, hi := float64(start)-0.5, float64(i)-0.5
		box, err := plotter.NewLine(plotter.XYs{{X: lo, Y: lo}, {X: hi, Y: lo}, {X: hi, Y: hi}, {X: lo, Y: hi}, {X: lo, Y: lo}})
		if err != nil {
			return err
		}
		box.LineStyle.Width = vg.Points(2)
		p.Add(box)
		start = i
	}
	// Cell values, in text, where the matrix is small enough to read.
	if len(s.Procs) <= 16 {
		var xys plotter.XYLabels
		for r, tp := range s.Procs {
			for c, vp := range s.Procs {
				if v := s.Moved[[2]int{tp, vp}]; v > 0 {
					xys.XYs = append(xys.XYs, plotter.XY{X: float64(c), Y: float64(r)})
					xys.Labels = append(xys.Labels, strconv.FormatInt(v, 10))
				}
			}
		}
		if len(xys.XYs) > 0 {
			labels, err := plotter.NewLabels(xys)
			if err != nil {
				return err
			}
			for i := range labels.TextStyle {
				labels.TextStyle[i].XAlign = draw.XCenter
				labels.TextStyle[i].YAlign = draw.YCenter
				labels.TextStyle[i].Font.Size = vg.Points(8)
			}
			p.Add(labels)
		}
	}
	p.X.Tick.Marker = procTicks{s}
	p.Y.Tick.Marker = procTicks{s}
	p.X.Min, p.X.Max = -0.5, float64(len(s.Procs))-0.5
	p.Y.Min, p.Y.Max = -0.5, float64(len(s.Procs))-0.5
	p.Title.Text += "\ngoroutines moved, thief ← victim\n(white: none; boxes: NUMA node blocks)"
	key := scale.Key("goroutines moved (count)")
	side := vg.Points(math.Min(math.Max(360, 28*float64(len(s.Procs))+120), plots.MaxFigureWidth.Points()))
	const keyH = 0.8 * vg.Inch
	paint := func(c draw.Canvas) {
		top := c
		top.Min.Y += keyH
		p.Draw(top)
		bottom := c
		bottom.Max.Y = c.Min.Y + keyH
		bottom.Min.X += side * 0.15
		bottom.Max.X -= side * 0.15
		key.Draw(bottom)
	}
	return plots.SaveDrawing(side, side+vg.Points(20)+keyH, path, paint, plots.Figure{Panels: []*plot.Plot{p}, HeatMap: true, Key: key})
}

// ReplotStealMatrix redraws dir's StealMatrixFile from the StealsCSVFile
// Analyze kept beside it, titled title: the figure of an old analysis in
// the current figure style, without the trace.
func ReplotStealMatrix(dir, title string) error {
	f, err := os.Open(filepath.Join(dir, StealsCSVFile))
	if err != nil {
		return err
	}
	defer f.Close()
	s, err := ReadStealCSV(f)
	if err != nil {
		return err
	}
	if len(s.Procs) == 0 {
		return fmt.Errorf("%s: no steals to draw", dir)
	}
	return plotStealMatrix(filepath.Join(dir, StealMatrixFile), s, title)
}
