package trace

import (
	"bufio"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/schedlab/schedlab/src/internal/timeline"
)

// Tracks of the Perfetto export that are not Ps: a P's track is its ID.
// Where intervals of a kind overlap (runs without a P on different
// threads), they take more tracks, numbered on from the first.
const (
	PerfettoPid    = 1       // the one process, "Go trace"
	PerfettoSTWTid = 1 << 20 // stop-the-world pauses
	PerfettoNoPTid = 1 << 21 // runs without a P
)

// A perfettoEvent is one event of the Chrome trace-event format (the JSON
// that Perfetto and chrome://tracing open). Times are in µs.
type perfettoEvent struct {
	Name string         `json:"name"`
	Cat  string         `json:"cat,omitempty"`
	Ph   string         `json:"ph"`
	Ts   float64        `json:"ts"`
	Dur  *float64       `json:"dur,omitempty"`
	Pid  int            `json:"pid"`
	Tid  int            `json:"tid"`
	ID   int            `json:"id,omitempty"`
	BP   string         `json:"bp,omitempty"`
	S    string         `json:"s,omitempty"`
	Args map[string]any `json:"args,omitempty"`
}

func us(ns int64) float64 { return float64(ns) / 1e3 }

// lanes gives each [start, end) interval the first lane free at its
// start, so that the intervals of one lane never overlap.
func lanes(n int, span func(i int) (int64, int64)) []int {
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		sa, _ := span(a)
		sb, _ := span(b)
		return cmp.Compare(sa, sb)
	})
	lane := make([]int, n)
	var ends []int64
	for _, i := range order {
		s, e := span(i)
		l := slices.IndexFunc(ends, func(end int64) bool { return end <= s })
		if l < 0 {
			l = len(ends)
			ends = append(ends, 0)
		}
		ends[l] = e
		lane[i] = l
	}
	return lane
}

// WritePerfetto writes t as a Chrome trace-event JSON object: one
// process, one thread track per P (named "P 3 (node 0)", ordered by node
// then ID) with the goroutine runs as complete ("X") events named by
// goroutine; runs without a P on tracks "no P"; stop-the-world pauses on
// a track "STW"; steals as flows from the victim's track to the thief's
// plus an instant event on the thief; NUMA hops, time-slice preemptions
// and run queue overflows as instant events on their P.
func WritePerfetto(w io.Writer, t *timeline.Trace) error {
	bw := bufio.NewWriter(w)
	if _, err := bw.WriteString(`{"displayTimeUnit":"ns","traceEvents":[`); err != nil {
		return err
	}
	first := true
	var werr error
	emit := func(e perfettoEvent) {
		if werr != nil {
			return
		}
		b, err := json.Marshal(e)
		if err != nil {
			werr = err
			return
		}
		if !first {
			bw.WriteByte(',')
		}
		first = false
		bw.WriteByte('\n')
		_, werr = bw.Write(b)
	}
	meta := func(tid int, name string, order int) {
		emit(perfettoEvent{Name: "thread_name", Ph: "M", Pid: PerfettoPid, Tid: tid, Args: map[string]any{"name": name}})
		emit(perfettoEvent{Name: "thread_sort_index", Ph: "M", Pid: PerfettoPid, Tid: tid, Args: map[string]any{"sort_index": order}})
	}
	emit(perfettoEvent{Name: "process_name", Ph: "M", Pid: PerfettoPid, Args: map[string]any{"name": "Go trace"}})

	// Tracks: STW on top, then every P in node order, then "no P".
	order := 0
	// laneTracks names the tracks of intervals put in lanes.
	laneTracks := func(lane []int, base int, name string) {
		if len(lane) == 0 {
			return
		}
		for l := range slices.Max(lane) + 1 {
			n := name
			if l > 0 {
				n = fmt.Sprintf("%s (%d)", name, l+1)
			}
			meta(base+l, n, order)
			order++
		}
	}
	stwLane := lanes(len(t.STWs), func(i int) (int64, int64) { return t.STWs[i].Start, t.STWs[i].End })
	laneTracks(stwLane, PerfettoSTWTid, "STW")
	for i, s := range t.STWs {
		d := us(s.End - s.Start)
		name := s.Reason
		if name == "" {
			name = "stop-the-world"
		}
		emit(perfettoEvent{Name: name, Cat: "stw", Ph: "X", Ts: us(s.Start), Dur: &d, Pid: PerfettoPid, Tid: PerfettoSTWTid + stwLane[i]})
	}
	for _, p := range perfettoProcs(t) {
		name := fmt.Sprintf("P %d", p)
		if len(t.Node) > 0 {
			name += fmt.Sprintf(" (node %d)", t.Node[p])
		}
		meta(p, name, order)
		order++
	}
	var noP []timeline.Run
	for _, r := range t.Runs {
		if r.P < 0 {
			noP = append(noP, r)
		}
	}
	noPLane := lanes(len(noP), func(i int) (int64, int64) { return noP[i].Start, noP[i].End })
	laneTracks(noPLane, PerfettoNoPTid, "no P")

	run := func(r timeline.Run, tid int) {
		d := us(r.End - r.Start)
		args := map[string]any{"goroutine": r.G, "thread": r.Thread, "state": r.State, "reason": r.Reason}
		if delay, ok := r.Delay(); ok {
			args["runnable_delay_ns"] = delay
			args["ready_from"] = r.ReadyFrom
		}
		emit(perfettoEvent{Name: fmt.Sprintf("G%d", r.G), Cat: "run", Ph: "X", Ts: us(r.Start), Dur: &d, Pid: PerfettoPid, Tid: tid, Args: args})
	}
	for _, r := range t.Runs {
		if r.P >= 0 {
			run(r, r.P)
		}
	}
	for i, r := range noP {
		run(r, PerfettoNoPTid+noPLane[i])
	}

	flow := 0
	for _, e := range t.Events {
		ts := us(e.T)
		instant := func(args map[string]any) {
			emit(perfettoEvent{Name: e.Kind, Cat: "sched", Ph: "i", S: "t", Ts: ts, Pid: PerfettoPid, Tid: e.P, Args: args})
		}
		if e.P < 0 {
			continue
		}
		switch e.Kind {
		case "WorkSteal", "TimerSteal":
			if e.From >= 0 {
				flow++
				emit(perfettoEvent{Name: "steal", Cat: "steal", Ph: "s", Ts: ts, Pid: PerfettoPid, Tid: e.From, ID: flow})
				emit(perfettoEvent{Name: "steal", Cat: "steal", Ph: "f", BP: "e", Ts: ts, Pid: PerfettoPid, Tid: e.P, ID: flow})
			}
			instant(map[string]any{"thief": e.P, "victim": e.From, "goroutines": e.N})
		case "NUMAHop":
			instant(map[string]any{"from": e.From, "to": e.P})
		case "SlicePreempt":
			instant(nil)
		case "RunqOverflow":
			instant(map[string]any{"goroutines": e.N, "global": e.Global})
		}
	}
	if werr != nil {
		return werr
	}
	if _, err := bw.WriteString("\n]}\n"); err != nil {
		return err
	}
	return bw.Flush()
}

// perfettoProcs lists every P that the trace names, in runs, events or
// node assignments, by home node then ID.
func perfettoProcs(t *timeline.Trace) []int {
	seen := map[int]bool{}
	for _, r := range t.Runs {
		if r.P >= 0 {
			seen[r.P] = true
		}
	}
	for _, e := range t.Events {
		for _, p := range []int{e.P, e.From} {
			if p >= 0 {
				seen[p] = true
			}
		}
	}
	for p := range t.Node {
		if p >= 0 {
			seen[p] = true
		}
	}
	var ps []int
	for p := range seen {
		ps = append(ps, p)
	}
	slices.SortFunc(ps, func(a, b int) int {
		if c := cmp.Compare(t.Node[a], t.Node[b]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	return ps
}

// writeAtomic writes path through write into a temporary file beside it,
// renamed to path only once write succeeded: a reader never sees half a
// file, and a failure leaves what was there.
func writeAtomic(path string, write func(f *os.File) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	err = write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, 0o644)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// WritePerfettoFile writes t's Perfetto export to path, atomically.
func WritePerfettoFile(path string, t *timeline.Trace) error {
	return writeAtomic(path, func(f *os.File) error { return WritePerfetto(f, t) })
}
