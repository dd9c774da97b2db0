package trace

import (
	"encoding/csv"
	"fmt"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/recorder"

	"github.com/schedlab/schedlab/src/internal/timeline"
)

const runsHeader = "kind,start_ns,end_ns,proc,thread,goroutine,state,reason,ready_ns,ready_from\n"

// latencyRuns: on P0 G2 created at 1000 runs at 1500 (creation delay
// 500), G3 unblocked at 4000 runs at 6000 (2000); on P1 G4 created at
// 10 runs at 8010 (8000), G5 preempted at 9000 runs at 9100 (100); G1
// was runnable when the trace began; G6 ran without a P 50 after a
// syscall.
const latencyRuns = runsHeader +
	"run,0,1000,0,10,1,Runnable,preempted,-1,\n" +
	"run,1500,3000,0,10,2,Waiting,chan receive,1000,NotExist\n" +
	"stw,3000,3100,-1,10,2,,stop-the-world (GC),-1,\n" +
	"run,6000,7000,0,10,3,end,,4000,Waiting\n" +
	"run,8010,9000,1,11,4,Runnable,preempted,10,NotExist\n" +
	"run,9100,9500,1,11,5,end,,9000,Running\n" +
	"run,9550,9600,-1,12,6,Syscall,,9500,Syscall\n"

const latencySteals = "time_ns,event,thief,victim,goroutines,runnext,distance,from,to,node,thread,cpu,proc,goroutine,ran,global\n" +
	"0,ProcNUMANode,,,,,,,,0,,0,0,,,\n" +
	"0,ProcNUMANode,,,,,,,,1,,1,1,,,\n" +
	"5000,RunqOverflow,,,129,,,,,,,,0,,,129\n" +
	"7000,RunqOverflow,,,129,,,,,,,,1,,,400\n" +
	"7500,WorkSteal,1,0,3,1,20,,,,,,,,,\n" +
	"9700,NUMAHop,,,,,,0,1,,,,,,,\n"

func loadTrace(t *testing.T, runs, steals string) *timeline.Trace {
	t.Helper()
	tr := &timeline.Trace{}
	if err := tr.ReadRuns(strings.NewReader(runs)); err != nil {
		t.Fatal(err)
	}
	if err := tr.ReadSteals(strings.NewReader(steals)); err != nil {
		t.Fatal(err)
	}
	return tr
}

func delaysOf(ds []Delay) []int64 {
	var v []int64
	for _, d := range ds {
		v = append(v, d.Delay)
	}
	return v
}

func TestLatencies(t *testing.T) {
	l, err := Latencies(loadTrace(t, latencyRuns, latencySteals))
	if err != nil {
		t.Fatal(err)
	}
	if l.Runs != 6 {
		t.Errorf("%d runs, want 6", l.Runs)
	}
	if got, want := delaysOf(l.Delays), []int64{500, 2000, 8000, 100, 50}; !slices.Equal(got, want) {
		t.Errorf("delays %v, want %v (by start; G1's unknown)", got, want)
	}
	if got, want := delaysOf(l.Creations()), []int64{500, 8000}; !slices.Equal(got, want) {
		t.Errorf("creation delays %v, want %v", got, want)
	}
	if d := l.Delays[1]; d.P != 0 || d.G != 3 || d.Start != 6000 || d.From != "Waiting" {
		t.Errorf("G3's delay %+v, want P0, start 6000, from Waiting", d)
	}
	if got := l.Procs(); !slices.Equal(got, []int{0, 1, -1}) {
		t.Errorf("Procs %v, want [0 1 -1] (no P last)", got)
	}
	if len(l.Overflows) != 2 || l.Overflows[1].Global != 400 || l.End != 9700 {
		t.Errorf("overflows %+v, end %d; want 2 (the second leaving 400), end 9700", l.Overflows, l.End)
	}
}

// Without the ready columns (a toolchain before them), -latency says
// what to do rather than report no delays.
func TestLatenciesOldFormat(t *testing.T) {
	old := "kind,start_ns,end_ns,proc,thread,goroutine,state,reason\nrun,0,10,0,1,1,Waiting,\n"
	_, err := Latencies(loadTrace(t, old, latencySteals))
	if err == nil || !strings.Contains(err.Error(), "predates") {
		t.Errorf("old CSV: error %v, want one saying the toolchain predates the columns", err)
	}
}

func TestQuantilesOf(t *testing.T) {
	var ds []Delay
	for i := 100; i >= 1; i-- { // 1..100 ns, out of order
		ds = append(ds, Delay{Delay: int64(i)})
	}
	if q := QuantilesOf(ds); q != (Quantiles{N: 100, P50: 50, P90: 90, P99: 99, Max: 100}) {
		t.Errorf("quantiles of 1..100: %+v", q)
	}
	if q := QuantilesOf(ds[99:]); q != (Quantiles{N: 1, P50: 1, P90: 1, P99: 1, Max: 1}) {
		t.Errorf("quantiles of one: %+v", q)
	}
	if q := QuantilesOf(nil); q.N != 0 || q.String() != "none" {
		t.Errorf("quantiles of none: %+v %q", q, q)
	}
	if s := short(1234567); s != "1.23ms" {
		t.Errorf("short(1234567) = %q, want 1.23ms", s)
	}
}

func TestLatencyBins(t *testing.T) {
	l := &Latency{End: 8000, Delays: []Delay{{Start: 0, Delay: 300}, {Start: 99, Delay: 511}, {Start: 100, Delay: 512}, {Start: 7999, Delay: 70_000}, {Start: 8000, Delay: 300}}}
	b := newLatencyBins(l)
	// 300 ns at least: bucket 0 from 256; 70 µs needs 256·2^9 > 70000.
	if b.lo != 256 || b.nb != 9 || b.nt != LatencyTimeBins || b.width != 100 {
		t.Fatalf("bins %+v: want lo 256, 9 buckets, %d time bins 100 ns wide", b, LatencyTimeBins)
	}
	for _, c := range []struct {
		d      int64
		bucket int
	}{{0, 0}, {255, 0}, {256, 0}, {511, 0}, {512, 1}, {1023, 1}, {1024, 2}, {70_000, 8}, {1 << 40, 8}} {
		if got := b.bucket(c.d); got != c.bucket {
			t.Errorf("bucket(%d) = %d, want %d", c.d, got, c.bucket)
		}
	}
	for _, c := range []struct {
		t   int64
		bin int
	}{{0, 0}, {99, 0}, {100, 1}, {7999, 79}, {8000, 79}, {-5, 0}} {
		if got := b.timeBin(c.t); got != c.bin {
			t.Errorf("timeBin(%d) = %d, want %d", c.t, got, c.bin)
		}
	}
	counts := b.count(l.Delays)
	if counts[0][0] != 2 || counts[1][1] != 1 || counts[79][8] != 1 || counts[79][0] != 1 {
		t.Errorf("counts: [0][0]=%d [1][1]=%d [79][8]=%d [79][0]=%d; want 2 1 1 1", counts[0][0], counts[1][1], counts[79][8], counts[79][0])
	}
	// Short delays share the lowest bucket from minDelayBucket up.
	if b := newLatencyBins(&Latency{End: 1, Delays: []Delay{{Delay: 3}}}); b.lo != minDelayBucket || b.nb != 1 {
		t.Errorf("bins of a 3 ns delay: %+v, want lo %d, one bucket", b, minDelayBucket)
	}
	if b := newLatencyBins(&Latency{End: 1, Delays: []Delay{{Delay: 0}, {Delay: 256}}}); b.lo != minDelayBucket || b.nb != 2 || b.bucket(0) != 0 || b.bucket(256) != 1 {
		t.Errorf("bins of 0 and 256 ns: %+v, want lo %d, two buckets", b, minDelayBucket)
	}
}

func TestWriteLatency(t *testing.T) {
	dir := t.TempDir()
	l, notes, err := WriteLatency(loadTrace(t, latencyRuns, latencySteals), dir, "test.trace", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(notes) != 0 {
		t.Errorf("notes %q, want none", notes)
	}
	f, err := os.Open(filepath.Join(dir, LatencyCSVFile))
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1+len(l.Delays) || strings.Join(recs[0], ",") != "start_ns,proc,goroutine,delay_ns,ready_from" || strings.Join(recs[1], ",") != "1500,0,2,500,NotExist" {
		t.Errorf("%s: %q", LatencyCSVFile, recs)
	}
	sum, err := os.ReadFile(filepath.Join(dir, LatencySummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"6 runs in the trace, 5 with a known ready time",
		"ready from NotExist (created)",
		"on P1 (node 1)",
		"on no P",
		"2 run queue overflows moved 258 goroutines to the global queue (at most 400 there after one)",
	} {
		if !strings.Contains(string(sum), want) {
			t.Errorf("summary lacks %q:\n%s", want, sum)
		}
	}
	// Counts and nearest-rank quantiles (p50, p90, p99, max).
	run, creation, _ := strings.Cut(string(sum), "creation→first-run")
	for _, c := range []struct{ text, row, want string }{
		{run, "all runs", "5 500ns 8µs 8µs 8µs"},
		{run, "on P0 (node 0)", "2 500ns 2µs 2µs 2µs"},
		{run, "ready from Running (preempted or yielded)", "1 100ns 100ns 100ns 100ns"},
		{creation, "all", "2 500ns 8µs 8µs 8µs"},
		{creation, "on P1 (node 1)", "1 8µs 8µs 8µs 8µs"},
	} {
		if got := row(c.text, c.row); got != c.want {
			t.Errorf("summary row %q: %q, want %q", c.row, got, c.want)
		}
	}
	for _, name := range []string{LatencyHeatmapFile, LatencyCreationFile} {
		for _, f := range []string{name, strings.TrimSuffix(name, ".svg") + ".png"} {
			if fi, err := os.Stat(filepath.Join(dir, f)); err != nil || fi.Size() == 0 {
				t.Errorf("%s not written: %v", f, err)
			}
		}
	}
	// A paper column wide, not taller than a page.
	pf, err := os.Open(filepath.Join(dir, "latency-heatmap.png"))
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	cfg, err := png.DecodeConfig(pf)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Width > 1400 || cfg.Height > 2000 {
		t.Errorf("heat map PNG %dx%d, want at most 1400x2000", cfg.Width, cfg.Height)
	}
}

// row returns the cells after name of the first line of text that
// starts with it, one space apart.
func row(text, name string) string {
	for _, line := range strings.Split(text, "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), name+" "); ok {
			return strings.Join(strings.Fields(rest), " ")
		}
	}
	return ""
}

// manyPs is a trace of n Ps, each with one known delay and one overflow.
func manyPs(n int) *timeline.Trace {
	var runs, steals strings.Builder
	runs.WriteString(runsHeader)
	steals.WriteString("time_ns,event,thief,victim,goroutines,runnext,distance,from,to,node,thread,cpu,proc,goroutine,ran,global\n")
	for p := range n {
		fmt.Fprintf(&runs, "run,%d,%d,%d,1,%d,Waiting,,%d,Waiting\n", 1000*p+500, 1000*p+900, p, p+1, 1000*p)
		fmt.Fprintf(&steals, "%d,RunqOverflow,,,129,,,,,,,,%d,,,%d\n", 1000*p+100, p, 100*p)
	}
	tr := &timeline.Trace{}
	tr.ReadRuns(strings.NewReader(runs.String()))
	tr.ReadSteals(strings.NewReader(steals.String()))
	return tr
}

func TestLatencyPanels(t *testing.T) {
	l, err := Latencies(manyPs(20))
	if err != nil {
		t.Fatal(err)
	}
	fig, err := l.heatmap("t", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(fig.panelPs) != MaxLatencyPanels || len(fig.counts) != 1+MaxLatencyPanels || len(fig.notes) != 1 || !strings.Contains(fig.notes[0], "16 of 20 Ps") {
		t.Errorf("20 Ps: panels %v, notes %q; want the first %d and a note", fig.panelPs, fig.notes, MaxLatencyPanels)
	}
	// Each P's panel counts its own run only; the whole process all.
	total := func(c [][]int) (n int) {
		for _, row := range c {
			for _, v := range row {
				n += v
			}
		}
		return n
	}
	if total(fig.counts[0]) != 20 || total(fig.counts[3]) != 1 || fig.maxCount != 1 {
		t.Errorf("counts: whole %d, P2 %d, max %d; want 20, 1, 1", total(fig.counts[0]), total(fig.counts[3]), fig.maxCount)
	}
	fig, err = l.heatmap("t", []int{3, 5, 99})
	if err != nil || !slices.Equal(fig.panelPs, []int{3, 5}) || len(fig.notes) != 0 {
		t.Errorf("-ps 3,5,99: panels %v, notes %q, %v; want [3 5]", fig.panelPs, fig.notes, err)
	}
	if _, err := l.heatmap("t", []int{99}); err == nil {
		t.Error("-ps of a P without runs: no error")
	}
}

// strokes counts the lines stroked in colour c.
func strokes(r *recorder.Canvas, c color.Color) int {
	n := 0
	var cur color.Color
	for _, a := range r.Actions {
		switch a := a.(type) {
		case *recorder.SetColor:
			cur = a.Color
		case *recorder.Stroke:
			if cur == c {
				n++
			}
		}
	}
	return n
}

// TestLatencyOverflowMarks: each overflow is marked on the whole-process
// panel and its own P's, red when it left GlobalQueueMark or more
// goroutines in the global queue.
func TestLatencyOverflowMarks(t *testing.T) {
	l, err := Latencies(loadTrace(t, latencyRuns, latencySteals))
	if err != nil {
		t.Fatal(err)
	}
	fig, err := l.heatmap("t", nil)
	if err != nil {
		t.Fatal(err)
	}
	r := &recorder.Canvas{}
	fig.paint(draw.NewCanvas(r, fig.w, fig.h))
	// On the whole process and P0 (global 129): 2 blue, plus the legend's
	// thumbnail; on the whole process and P1 (global 400): 2 red, plus it.
	if n := strokes(r, overflowColour); n != 3 {
		t.Errorf("%d blue overflow marks, want 3", n)
	}
	if n := strokes(r, globalColour); n != 3 {
		t.Errorf("%d red overflow marks, want 3", n)
	}
	// Without overflows, no strip and no marks.
	l.Overflows = nil
	fig, _ = l.heatmap("t", nil)
	r = &recorder.Canvas{}
	fig.paint(draw.NewCanvas(r, fig.w, fig.h))
	if n := strokes(r, overflowColour) + strokes(r, globalColour) + strokes(r, stripColour); n != 0 {
		t.Errorf("%d overflow marks in a trace without overflows", n)
	}
}

// A trace whose runs all began runnable: the CSV and summary, no figures.
func TestWriteLatencyNoDelays(t *testing.T) {
	dir := t.TempDir()
	_, notes, err := WriteLatency(loadTrace(t, runsHeader+"run,0,10,0,1,1,Waiting,,-1,\n", latencySteals), dir, "t", nil)
	if err != nil || len(notes) != 1 {
		t.Fatalf("notes %q, %v; want one note", notes, err)
	}
	if _, err := os.Stat(filepath.Join(dir, LatencyHeatmapFile)); err == nil {
		t.Error("a heat map of no delays")
	}
	if _, err := os.Stat(filepath.Join(dir, LatencySummaryFile)); err != nil {
		t.Error(err)
	}
}

// TestOverflowLineSteal checks that a trace with the Steal experiment and
// no overflow says none happened, and one without it says why it cannot
// tell.
func TestOverflowLineSteal(t *testing.T) {
	if got := (&Latency{Steal: true}).overflowLine(); got != "no run queue overflowed during the trace" {
		t.Errorf("tracesteal trace without overflows: %q", got)
	}
	if got := (&Latency{}).overflowLine(); !strings.Contains(got, "need GODEBUG=tracesteal=1") {
		t.Errorf("trace without the Steal experiment: %q", got)
	}
}
