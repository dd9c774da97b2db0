package timeline

import (
	"image/color"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/recorder"
)

const runsCSV = `kind,start_ns,end_ns,proc,thread,goroutine,state,reason
run,0,1000,0,5,1,Runnable,preempted
run,1000,3000,0,5,2,Waiting,chan receive
run,500,2500,1,6,3,NotExist,
stw,2600,2700,-1,5,1,,stop-the-world (GC sweep termination)
run,2000,4000,2,7,4,end,
`

const stealsCSV = `time_ns,event,thief,victim,goroutines,runnext,distance,from,to,node,thread,cpu,proc,goroutine,ran
0,ProcNUMANode,,,,,,,,0,,0,0,,
0,ProcNUMANode,,,,,,,,0,,1,1,,
0,ProcNUMANode,,,,,,,,1,,2,2,,
1500,WorkSteal,1,0,2,0,10,,,,,,,,
2100,WorkSteal,2,0,1,0,20,,,,,,,,
3500,SlicePreempt,,,,,,,,,,,2,4,100
`

func readTest(t *testing.T) *Trace {
	t.Helper()
	tr := &Trace{}
	if err := tr.ReadRuns(strings.NewReader(runsCSV)); err != nil {
		t.Fatal(err)
	}
	if err := tr.ReadSteals(strings.NewReader(stealsCSV)); err != nil {
		t.Fatal(err)
	}
	return tr
}

func TestRead(t *testing.T) {
	tr := readTest(t)
	if len(tr.Runs) != 4 || len(tr.STWs) != 1 || len(tr.Events) != 3 {
		t.Fatalf("%d runs, %d stws, %d events; want 4, 1, 3", len(tr.Runs), len(tr.STWs), len(tr.Events))
	}
	if !tr.Runs[0].Preempted() || tr.Runs[1].Preempted() {
		t.Errorf("preempted: %v %v, want true false", tr.Runs[0].Preempted(), tr.Runs[1].Preempted())
	}
	if e := tr.Events[1]; e.P != 2 || e.From != 0 || e.N != 1 {
		t.Errorf("second steal %+v, want thief 2, victim 0, 1 goroutine", e)
	}
	if got := tr.Procs(); !slices.Equal(got, []int{0, 1, 2}) {
		t.Errorf("Procs %v, want [0 1 2] (node 0 first)", got)
	}
	if s, e := tr.Span(); s != 0 || e != 4000 {
		t.Errorf("span %d-%d, want 0-4000", s, e)
	}
}

func TestReadRejects(t *testing.T) {
	for name, in := range map[string]string{
		"steals CSV as runs": stealsCSV,
		"backwards":          "kind,start_ns,end_ns,proc,thread,goroutine,state,reason\nrun,10,5,0,1,1,Waiting,\n",
		"not a number":       "kind,start_ns,end_ns,proc,thread,goroutine,state,reason\nrun,x,5,0,1,1,Waiting,\n",
		"empty":              "",
		"short record":       "kind,start_ns,end_ns,proc,thread,goroutine,state,reason\nrun,1,2\n",
	} {
		if err := (&Trace{}).ReadRuns(strings.NewReader(in)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestWindow(t *testing.T) {
	tr := readTest(t)
	if f, to := tr.Window(Options{}); f != 0 || to != 4000 {
		t.Errorf("default window of a 4 µs trace: %d-%d, want all of it", f, to)
	}
	if f, to := tr.Window(Options{From: 1000}); f != 1000 || to != 4000 {
		t.Errorf("from 1000: %d-%d, want 1000-4000 (clipped to the end)", f, to)
	}
	long := &Trace{Runs: []Run{{Start: 0, End: 10_000_000}}}
	if f, to := long.Window(Options{}); f != 4_000_000 || to != 6_000_000 {
		t.Errorf("default window of a 10 ms trace: %d-%d, want the middle 2 ms", f, to)
	}
}

func TestParsePs(t *testing.T) {
	if ps, err := ParsePs("0,2,4-6"); err != nil || !slices.Equal(ps, []int{0, 2, 4, 5, 6}) {
		t.Errorf("0,2,4-6: %v %v", ps, err)
	}
	for _, bad := range []string{"a", "3-1", "-1", "1-x"} {
		if _, err := ParsePs(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// fills counts the polygons drawn in colour c.
func fills(r *recorder.Canvas, c color.Color) int {
	n := 0
	var cur color.Color
	for _, a := range r.Actions {
		switch a := a.(type) {
		case *recorder.SetColor:
			cur = a.Color
		case *recorder.Fill:
			if cur == c {
				n++
			}
		}
	}
	return n
}

func draws(t *testing.T, tr *Trace, opt Options) *recorder.Canvas {
	t.Helper()
	p, w, h, err := Plot(tr, opt)
	if err != nil {
		t.Fatal(err)
	}
	p.Legend = plot.NewLegend() // count the marks on the timeline, not the legend's
	r := &recorder.Canvas{}
	p.Draw(draw.NewCanvas(r, w, h))
	return r
}

// TestPlotMarks checks that what is in the window is drawn and what is
// outside it is not: runs as bars, the steal within node 0 and the one
// across nodes in their colours, the preemption, the pause.
func TestPlotMarks(t *testing.T) {
	tr := readTest(t)
	r := draws(t, tr, Options{})
	var bars int
	for _, c := range runColours {
		bars += fills(r, c)
	}
	if bars < 4 {
		t.Errorf("%d run bars, want at least 4", bars)
	}
	for _, c := range []struct {
		what string
		col  color.Color
	}{{"steal within a node", localStealColour}, {"steal across nodes", remoteStealColour}, {"preemption", preemptColour}, {"slice preemption", sliceColour}, {"stop-the-world", stwColour}} {
		if fills(r, c.col) == 0 {
			t.Errorf("no %s drawn", c.what)
		}
	}
	// A window before the steals: none drawn, and a P filter.
	r = draws(t, tr, Options{From: 1, To: 1400, Ps: []int{0, 1}})
	if n := fills(r, localStealColour) + fills(r, remoteStealColour); n != 0 {
		t.Errorf("%d steal marks outside the window", n)
	}
	if _, _, _, err := Plot(tr, Options{Ps: []int{9}}); err == nil {
		t.Error("a P that never ran: no error")
	}
}

func TestTimeTicks(t *testing.T) {
	for _, c := range []struct{ lo, hi float64 }{{49621.1, 51621.1}, {0, 1}, {20000, 21000}, {3, 3.5}} {
		ts := timeTicks{}.Ticks(c.lo, c.hi)
		if len(ts) < 5 || len(ts) > 13 {
			t.Errorf("[%v, %v]: %d ticks, want 5 to 13", c.lo, c.hi, len(ts))
		}
		for _, tk := range ts {
			if tk.Value < c.lo || tk.Value > c.hi {
				t.Errorf("[%v, %v]: tick %v outside", c.lo, c.hi, tk.Value)
			}
		}
	}
}

// runsReadyCSV is -d=runs output with the ready_ns and ready_from
// columns: G5 created at 100 and first run at 400, G1 unblocked at 900
// and run at 1000, G7 runnable when the trace began.
const runsReadyCSV = `kind,start_ns,end_ns,proc,thread,goroutine,state,reason,ready_ns,ready_from
run,0,1000,0,5,7,Runnable,preempted,-1,
run,400,800,1,6,5,Waiting,chan receive,100,NotExist
stw,850,900,-1,5,1,,stop-the-world (GC mark termination),-1,
run,1000,1500,1,6,1,end,,900,Waiting
`

func TestReadRunsReady(t *testing.T) {
	tr := &Trace{}
	if err := tr.ReadRuns(strings.NewReader(runsReadyCSV)); err != nil {
		t.Fatal(err)
	}
	if !tr.Ready || len(tr.Runs) != 3 || len(tr.STWs) != 1 {
		t.Fatalf("ready %v, %d runs, %d stws; want true, 3, 1", tr.Ready, len(tr.Runs), len(tr.STWs))
	}
	for i, want := range []struct {
		ready, delay int64
		known        bool
		from         string
		created      bool
	}{{-1, 0, false, "", false}, {100, 300, true, "NotExist", true}, {900, 100, true, "Waiting", false}} {
		r := tr.Runs[i]
		d, ok := r.Delay()
		if r.Ready != want.ready || d != want.delay || ok != want.known || r.ReadyFrom != want.from || r.Created() != want.created {
			t.Errorf("run %d: ready %d from %q, delay %d %v, created %v; want %+v", i, r.Ready, r.ReadyFrom, d, ok, r.Created(), want)
		}
	}
}

// An older go tool trace wrote no ready columns: its runs read, their
// ready times unknown.
func TestReadRunsOldFormat(t *testing.T) {
	tr := &Trace{}
	if err := tr.ReadRuns(strings.NewReader(runsCSV)); err != nil {
		t.Fatal(err)
	}
	if tr.Ready {
		t.Error("an old CSV says it has ready times")
	}
	for _, r := range tr.Runs {
		if _, ok := r.Delay(); ok || r.Ready != -1 || r.ReadyFrom != "" {
			t.Errorf("old-format run %+v has a ready time", r)
		}
	}
}

func TestReadRunsReadyRejects(t *testing.T) {
	const h = "kind,start_ns,end_ns,proc,thread,goroutine,state,reason,ready_ns,ready_from\n"
	for name, in := range map[string]string{
		"ready after start": h + "run,100,200,0,1,1,Waiting,,150,Waiting\n",
		"ready not a time":  h + "run,100,200,0,1,1,Waiting,,soon,Waiting\n",
		"ready below -1":    h + "run,100,200,0,1,1,Waiting,,-5,Waiting\n",
	} {
		if err := (&Trace{}).ReadRuns(strings.NewReader(in)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	// An empty ready_ns is unknown, as is a record cut before it.
	tr := &Trace{}
	if err := tr.ReadRuns(strings.NewReader(h + "run,100,200,0,1,1,Waiting,,,\nrun,300,400,0,1,1,Waiting,\n")); err != nil {
		t.Fatal(err)
	}
	for _, r := range tr.Runs {
		if r.Ready != -1 {
			t.Errorf("run %+v: want ready -1", r)
		}
	}
}

func TestReadStealsOverflow(t *testing.T) {
	tr := &Trace{}
	in := "time_ns,event,thief,victim,goroutines,runnext,distance,from,to,node,thread,cpu,proc,goroutine,ran,global\n" +
		"100,RunqOverflow,,,129,,,,,,,,3,,,300\n" +
		"200,WorkSteal,1,3,4,0,0,,,,,,,,,\n"
	if err := tr.ReadSteals(strings.NewReader(in)); err != nil {
		t.Fatal(err)
	}
	if len(tr.Events) != 2 {
		t.Fatalf("%d events, want 2", len(tr.Events))
	}
	if e := tr.Events[0]; e.Kind != "RunqOverflow" || e.P != 3 || e.N != 129 || e.Global != 300 || e.From != -1 {
		t.Errorf("overflow %+v, want P3, 129 goroutines, global 300", e)
	}
}

func TestPlotOverflowMark(t *testing.T) {
	tr := readTest(t)
	tr.Events = append(tr.Events, Event{T: 1200, Kind: "RunqOverflow", P: 0, From: -1, N: 129, Global: 10})
	if fills(draws(t, tr, Options{}), overflowColour) == 0 {
		t.Error("no run queue overflow drawn")
	}
	var names []string
	for _, e := range (&view{t: tr, from: 0, to: 4000, row: map[int]int{0: 0}}).legend() {
		names = append(names, e.name)
	}
	if !slices.ContainsFunc(names, func(s string) bool { return strings.Contains(s, "overflow") }) {
		t.Errorf("legend %q names no overflow", names)
	}
}
