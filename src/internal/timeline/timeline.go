// Package timeline draws who ran where, when, from an execution trace: one
// row per P, grouped by NUMA node, with goroutine runs as bars and the
// scheduler's events placed on them (steals from victim to thief, NUMA
// hops, time-slice preemptions, stop-the-world pauses).
//
// It reads two CSVs that the patched go tool trace writes on one time base
// (nanoseconds from the trace's first event): -d=runs (goroutine runs and
// stop-the-world ranges, any trace; newer toolchains add when each run's
// goroutine became runnable) and -d=steals (the Steal experiment's events,
// traces taken with GODEBUG=tracesteal=1; optional). The same Trace feeds
// the other views of package trace: scheduling latency and the Perfetto
// export.
package timeline

import (
	"encoding/csv"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
)

// Run is a goroutine's run on a P.
type Run struct {
	Start, End int64 // ns from the trace's first event
	P          int   // -1 without a P
	Thread     int64
	G          int64
	State      string // what the goroutine left running for (Runnable, Waiting, Syscall, NotExist, end)
	Reason     string // e.g. "preempted", "chan receive"
	// Ready is when the goroutine last became runnable before this run
	// (ns, same base), -1 if unknown: it was runnable when the trace
	// began, or the CSV predates the ready_ns column.
	Ready int64
	// ReadyFrom is the state it left to become runnable: NotExist (it
	// was created), Waiting (unblocked), Running (preempted or
	// yielded), Syscall, Undetermined; "" when Ready is -1.
	ReadyFrom string
}

// Delay is the run's runnable→running delay (Start - Ready) and whether
// it is known.
func (r Run) Delay() (int64, bool) {
	if r.Ready < 0 {
		return 0, false
	}
	return r.Start - r.Ready, true
}

// Created reports whether the run is a goroutine's first, right after its
// creation: its delay is the creation→first-run delay.
func (r Run) Created() bool { return r.Ready >= 0 && r.ReadyFrom == "NotExist" }

// Preempted reports whether the run ended in a preemption (by sysmon's
// time slice, or by the GC asking for the goroutine's stack).
func (r Run) Preempted() bool { return r.State == "Runnable" && r.Reason == "preempted" }

// STW is a stop-the-world pause.
type STW struct {
	Start, End int64
	Reason     string // the trace's range name, "stop-the-world (…)"
}

// Event is one event of the Steal experiment that the timeline marks.
type Event struct {
	T    int64
	Kind string // WorkSteal, TimerSteal, NUMAHop, SlicePreempt, RunqOverflow
	P    int    // thief (steals), destination (hops), preempted P (SlicePreempt), overflowing P (RunqOverflow)
	From int    // victim (steals), origin (hops); -1 otherwise
	N    int64  // goroutines moved (steals; RunqOverflow: to the global queue, the new one included)
	// Global is the global run queue's length after a RunqOverflow
	// moved its batch there (-1 if not given); 0 for other events.
	Global int64
}

// Trace is what the timeline draws.
type Trace struct {
	Runs   []Run
	STWs   []STW
	Events []Event
	Node   map[int]int // home node by P, from ProcNUMANode (empty: one node)
	// Ready reports that the runs CSV had the ready_ns column (a go
	// tool trace that knows when each run's goroutine became runnable).
	Ready bool
}

// ReadRuns reads go tool trace -d=runs output into t.
func (t *Trace) ReadRuns(r io.Reader) error {
	recs, col, err := readCSV(r, "runs", "kind", "start_ns", "end_ns", "proc", "thread", "goroutine", "state", "reason")
	if err != nil {
		return err
	}
	// ready_ns and ready_from came later: an older CSV lacks them, and
	// its runs' ready times are unknown.
	readyCol, hasReady := col["ready_ns"]
	fromCol, hasFrom := col["ready_from"]
	t.Ready = t.Ready || hasReady
	for i, rec := range recs {
		var n [5]int64
		for j, c := range []string{"start_ns", "end_ns", "proc", "thread", "goroutine"} {
			if n[j], err = strconv.ParseInt(rec[col[c]], 10, 64); err != nil {
				return fmt.Errorf("runs CSV line %d: %s %q: %v", i+2, c, rec[col[c]], err)
			}
		}
		if n[1] < n[0] {
			return fmt.Errorf("runs CSV line %d: ends (%d) before it starts (%d)", i+2, n[1], n[0])
		}
		ready, from := int64(-1), ""
		if hasReady && readyCol < len(rec) && rec[readyCol] != "" {
			if ready, err = strconv.ParseInt(rec[readyCol], 10, 64); err != nil || ready < -1 {
				return fmt.Errorf("runs CSV line %d: ready_ns %q: want a time in ns or -1", i+2, rec[readyCol])
			}
			if hasFrom && fromCol < len(rec) {
				from = rec[fromCol]
			}
		}
		if ready < 0 {
			ready, from = -1, ""
		}
		switch rec[col["kind"]] {
		case "run":
			if ready > n[0] {
				return fmt.Errorf("runs CSV line %d: ready at %d, after the run starts (%d)", i+2, ready, n[0])
			}
			t.Runs = append(t.Runs, Run{Start: n[0], End: n[1], P: int(n[2]), Thread: n[3], G: n[4], State: rec[col["state"]], Reason: rec[col["reason"]], Ready: ready, ReadyFrom: from})
		case "stw":
			t.STWs = append(t.STWs, STW{Start: n[0], End: n[1], Reason: rec[col["reason"]]})
		}
	}
	return nil
}

// ReadSteals reads go tool trace -d=steals output into t: the events the
// timeline marks, and each P's home node.
func (t *Trace) ReadSteals(r io.Reader) error {
	recs, col, err := readCSV(r, "steals", "time_ns", "event")
	if err != nil {
		return err
	}
	if t.Node == nil {
		t.Node = map[int]int{}
	}
	arg := func(rec []string, name string) int64 {
		i, ok := col[name]
		if !ok || i >= len(rec) || rec[i] == "" {
			return -1
		}
		v, err := strconv.ParseInt(rec[i], 10, 64)
		if err != nil {
			return -1
		}
		return v
	}
	for i, rec := range recs {
		ts, err := strconv.ParseInt(rec[col["time_ns"]], 10, 64)
		if err != nil {
			return fmt.Errorf("steals CSV line %d: time_ns %q: %v", i+2, rec[col["time_ns"]], err)
		}
		switch kind := rec[col["event"]]; kind {
		case "WorkSteal", "TimerSteal":
			t.Events = append(t.Events, Event{T: ts, Kind: kind, P: int(arg(rec, "thief")), From: int(arg(rec, "victim")), N: arg(rec, "goroutines")})
		case "NUMAHop":
			t.Events = append(t.Events, Event{T: ts, Kind: kind, P: int(arg(rec, "to")), From: int(arg(rec, "from"))})
		case "SlicePreempt":
			t.Events = append(t.Events, Event{T: ts, Kind: kind, P: int(arg(rec, "proc")), From: -1})
		case "RunqOverflow":
			t.Events = append(t.Events, Event{T: ts, Kind: kind, P: int(arg(rec, "proc")), From: -1, N: arg(rec, "goroutines"), Global: arg(rec, "global")})
		case "ProcNUMANode":
			t.Node[int(arg(rec, "proc"))] = int(arg(rec, "node"))
		}
	}
	return nil
}

// readCSV reads a CSV with a header that has at least the want columns.
func readCSV(r io.Reader, what string, want ...string) ([][]string, map[string]int, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	recs, err := cr.ReadAll()
	if err != nil {
		return nil, nil, fmt.Errorf("%s CSV: %v", what, err)
	}
	if len(recs) == 0 {
		return nil, nil, fmt.Errorf("%s CSV: empty (not go tool trace -d=%s output?)", what, what)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	for _, w := range want {
		if _, ok := col[w]; !ok {
			return nil, nil, fmt.Errorf("%s CSV: no %s column in header %q (not go tool trace -d=%s output?)", what, w, strings.Join(recs[0], ","), what)
		}
	}
	need := 0 // fields a record needs to hold every wanted column
	for _, w := range want {
		need = max(need, col[w]+1)
	}
	recs = recs[1:]
	for i, rec := range recs {
		if len(rec) < need {
			return nil, nil, fmt.Errorf("%s CSV line %d: %d fields, want at least %d", what, i+2, len(rec), need)
		}
	}
	return recs, col, nil
}

// Span is the time the trace's runs cover.
func (t *Trace) Span() (start, end int64) {
	if len(t.Runs) == 0 {
		return 0, 0
	}
	start, end = t.Runs[0].Start, t.Runs[0].End
	for _, r := range t.Runs {
		start, end = min(start, r.Start), max(end, r.End)
	}
	return start, end
}

// Procs lists the Ps that ran something, ordered by home node, then ID.
func (t *Trace) Procs() []int {
	seen := map[int]bool{}
	for _, r := range t.Runs {
		if r.P >= 0 {
			seen[r.P] = true
		}
	}
	var ps []int
	for p := range seen {
		ps = append(ps, p)
	}
	sort.Slice(ps, func(i, j int) bool {
		a, b := ps[i], ps[j]
		if t.Node[a] != t.Node[b] {
			return t.Node[a] < t.Node[b]
		}
		return a < b
	})
	return ps
}

// ParsePs parses a list of Ps such as "0,2,4-7".
func ParsePs(list string) ([]int, error) {
	var ps []int
	for _, f := range strings.Split(list, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		lo, hi, rng := strings.Cut(f, "-")
		a, err1 := strconv.Atoi(lo)
		b := a
		var err2 error
		if rng {
			b, err2 = strconv.Atoi(hi)
		}
		if err1 != nil || err2 != nil || a < 0 || b < a {
			return nil, fmt.Errorf("-ps %q: want P IDs and ranges such as 0,2,4-7", list)
		}
		for p := a; p <= b; p++ {
			ps = append(ps, p)
		}
	}
	return ps, nil
}
