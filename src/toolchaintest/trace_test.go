package toolchaintest

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/src/internal/series"
)

// floodProgram traces a fork-join workload that makes the scheduler
// steal and overflow local run queues: at GOMAXPROCS=2, one goroutine
// creates 1000 goroutines in a tight loop, so its P's local run queue
// (256 slots) spills into the global queue while the other P steals;
// short sleeps between rounds add timer steals and idle periods.
const floodProgram = `package main

import (
	"log"
	"os"
	"runtime/trace"
	"sync"
	"time"
)

var sink int

func flood(n int) {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				s := 0
				for j := range 2000 {
					s += j
				}
				sink = s
			}()
		}
	}()
	wg.Wait()
}

func main() {
	f, err := os.Create(os.Args[1])
	if err != nil {
		log.Fatal(err)
	}
	if err := trace.Start(f); err != nil {
		log.Fatal(err)
	}
	for range 20 {
		flood(1000)
		time.Sleep(200 * time.Microsecond)
	}
	time.Sleep(2 * time.Millisecond)
	trace.Stop()
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}
}
`

// stealEventNames are the Steal experiment's events (patches 0016, 0021).
var stealEventNames = []string{"WorkSteal", "TimerSteal", "NUMAHop", "NUMABind", "SlicePreempt", "ProcNUMANode", "NUMADistance", "RunqOverflow"}

// TestTraceStockPerfettoLatency traces floodProgram with the patched
// toolchain, with GODEBUG=tracesteal=1 (steal.out, format version 99)
// and without (plain.out), and checks what schedlab trace makes of it:
//
//   - -stock: the pinned stock release's go tool trace refuses steal.out
//     but parses the copy cleanly, and the copy's events are steal.out's
//     less the Steal experiment's; a stock trace is copied byte for byte;
//   - -perfetto: valid trace-event JSON with one run event per run of
//     go tool trace -d=runs, a named track per P, complete flows and the
//     run queue overflows as instants;
//   - -latency: every file, and one CSV row per run with a ready time.
func TestTraceStockPerfettoLatency(t *testing.T) {
	goroot := patchedGOROOT(t)
	tmp := t.TempDir()
	writeFiles(t, tmp, map[string]string{
		"flood/go.mod":  "module example.com/flood\n\ngo 1.26\n",
		"flood/main.go": floodProgram,
	})
	prog := filepath.Join(tmp, "flood.exe")
	build := goCmd(t, goroot, "build", "-o", prog, ".")
	build.Dir = filepath.Join(tmp, "flood")
	build.Env = append(build.Env, "GOFLAGS=")
	output(t, build)

	steal := filepath.Join(tmp, "steal.out")
	plain := filepath.Join(tmp, "plain.out")
	runEnv := withoutEnv(os.Environ(), "GODEBUG", "GOMAXPROCS")
	for file, godebug := range map[string]string{steal: "tracesteal=1", plain: ""} {
		cmd := exec.Command(prog, file)
		cmd.Env = slices.Concat(runEnv, []string{"GOMAXPROCS=2"})
		if godebug != "" {
			cmd.Env = append(cmd.Env, "GODEBUG="+godebug)
		}
		output(t, cmd)
	}

	// What the patched go tool trace reads in steal.out.
	patchedTool := func(mode string) []byte {
		t.Helper()
		cmd := goCmd(t, goroot, "tool", "trace", "-d="+mode, steal)
		cmd.Env = append(cmd.Env, "GOFLAGS=")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("patched go tool trace -d=%s steal.out: %v\n%s", mode, err, stderr.Bytes())
		}
		return out
	}
	runs := readCSVTable(t, "go tool trace -d=runs", patchedTool("runs"), []string{"kind"}, []string{"proc", "ready_ns"})
	steals := readCSVTable(t, "go tool trace -d=steals", patchedTool("steals"), []string{"event"}, []string{"proc", "thief", "victim"})
	runRows := runs.where(func(r csvRow) bool { return r.get("kind") == "run" })
	if len(runRows) == 0 {
		t.Fatalf("go tool trace -d=runs steal.out has no run rows")
	}
	overflows := steals.where(func(r csvRow) bool { return r.get("event") == "RunqOverflow" && r.num("proc") >= 0 })
	workSteals := steals.where(func(r csvRow) bool { return r.get("event") == "WorkSteal" })
	if len(overflows) == 0 || len(workSteals) == 0 {
		t.Fatalf("the workload made %d RunqOverflow and %d WorkSteal events, want both > 0: is tracesteal=1 working, or does the workload need to be bigger?",
			len(overflows), len(workSteals))
	}

	// schedlab, built once, run with each feature on its own.
	base := schedlabCmd(t, tmp)
	schedlab := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(base.Path, args...)
		cmd.Dir, cmd.Env = tmp, base.Env
		return output(t, cmd)
	}

	t.Run("stock", func(t *testing.T) {
		stockGo, stockEnv := stockGoCmd(t)
		stockParsed := func(file string) ([]byte, string, error) {
			cmd := exec.Command(stockGo, "tool", "trace", "-d=parsed", file)
			cmd.Dir, cmd.Env = tmp, stockEnv
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			return out, stderr.String(), err
		}

		// Without the conversion, stock tools stop at the header.
		if _, stderr, err := stockParsed(steal); err == nil || !strings.Contains(stderr, "unsupported trace version") {
			t.Errorf("stock go tool trace -d=parsed steal.out: err %v, stderr %q; want it to refuse the format version", err, stderr)
		}

		stock := filepath.Join(tmp, "stock.out")
		t.Log(schedlab("trace", steal, "-stock", stock))
		sHead, pHead := fileHead(t, stock, 16), fileHead(t, plain, 16)
		if !bytes.Equal(sHead, pHead) {
			t.Errorf("stock.out header %q, want that of a trace taken without tracesteal, %q", sHead, pHead)
		}
		got, stderr, err := stockParsed(stock)
		if err != nil || stderr != "" {
			t.Fatalf("stock go tool trace -d=parsed stock.out: err %v, stderr:\n%s", err, stderr)
		}

		// The copy's events are steal.out's less the Steal experiment's,
		// in the same order and at the same times: -d=stock adds a
		// dropped event's time delta to the next event of its batch.
		want := patchedTool("parsed")
		wantEv, wantSteal := parsedEvents(want)
		gotEv, gotSteal := parsedEvents(got)
		if wantSteal == 0 {
			t.Errorf("patched go tool trace -d=parsed steal.out shows no Steal experiment events")
		}
		if gotSteal != 0 {
			t.Errorf("stock.out still has %d Steal experiment events", gotSteal)
		}
		if w, g := countKind(wantEv, "StateTransition"), countKind(gotEv, "StateTransition"); w != g || w == 0 {
			t.Errorf("StateTransition events: %d in stock.out (stock tool), %d in steal.out (patched tool); want equal and > 0", g, w)
		}
		if diff := sequenceDiff(wantEv, gotEv); diff != "" {
			t.Errorf("events of stock.out (stock go tool trace -d=parsed) differ from steal.out's without the Steal events (patched tool):\n%s", diff)
		}

		// A stock trace is copied as it is.
		plainStock := filepath.Join(tmp, "plain-stock.out")
		t.Log(schedlab("trace", plain, "-stock", plainStock))
		a, b := readFile(t, plain), readFile(t, plainStock)
		if !bytes.Equal(a, b) {
			t.Errorf("schedlab trace plain.out -stock: the copy (%d bytes) differs from the stock trace (%d bytes)", len(b), len(a))
		}
	})

	t.Run("perfetto", func(t *testing.T) {
		out := filepath.Join(tmp, "p.json")
		t.Log(schedlab("trace", steal, "-perfetto", out))
		checkPerfetto(t, readFile(t, out), runRows, steals, len(overflows))
	})

	t.Run("latency", func(t *testing.T) {
		dir := filepath.Join(tmp, "latency")
		t.Log(schedlab("trace", steal, "-latency", "-out", dir))
		for _, f := range []string{"latency.csv", "latency-summary.txt", "latency-heatmap.svg", "latency-heatmap.png", "latency-creation.svg", "latency-creation.png"} {
			fi, err := os.Stat(filepath.Join(dir, f))
			if err != nil {
				t.Errorf("-latency: %v", err)
			} else if fi.Size() == 0 {
				t.Errorf("-latency: %s is empty", f)
			}
		}
		ready := 0
		for _, r := range runRows {
			if r.num("ready_ns") >= 0 {
				ready++
			}
		}
		lat := readCSVTable(t, "latency.csv", readFile(t, filepath.Join(dir, "latency.csv")), nil, []string{"start_ns", "delay_ns"})
		if len(lat.rows) != ready || ready == 0 {
			t.Errorf("latency.csv has %d rows; -d=runs has %d runs with ready_ns >= 0 (want equal and > 0)", len(lat.rows), ready)
		}
	})
}

// checkPerfetto validates the Chrome trace-event JSON of schedlab trace
// -perfetto against the runs and steal events go tool trace reports.
func checkPerfetto(t *testing.T, data []byte, runRows []csvRow, steals *csvTable, overflows int) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		t.Fatalf("p.json: %v", err)
	}
	var events []map[string]any
	if err := json.Unmarshal(top["traceEvents"], &events); err != nil || events == nil {
		t.Fatalf("p.json: traceEvents is not an array (%v)", err)
	}
	num := func(e map[string]any, k string) (float64, bool) {
		v, ok := e[k].(float64)
		return v, ok
	}
	type flowKey struct {
		id  float64
		cat string
	}
	starts, finishes := map[flowKey]int{}, map[flowKey]int{}
	threadNames := map[float64][]string{} // tid -> thread_name names
	var xs []map[string]any
	instants := map[string]int{}
	bad := 0
	fail := func(format string, args ...any) {
		if bad++; bad <= 10 {
			t.Errorf("p.json: "+format, args...)
		}
	}
	for i, e := range events {
		ph, _ := e["ph"].(string)
		if ph == "" {
			fail("event %d has no ph: %v", i, e)
			continue
		}
		if ph == "M" {
			if e["name"] == "thread_name" {
				tid, _ := num(e, "tid")
				args, _ := e["args"].(map[string]any)
				name, _ := args["name"].(string)
				threadNames[tid] = append(threadNames[tid], name)
			}
			continue
		}
		for _, k := range []string{"pid", "tid", "ts"} {
			if _, ok := num(e, k); !ok {
				fail("event %d (ph %s) has no number %s: %v", i, ph, k, e)
			}
		}
		switch ph {
		case "X":
			if d, ok := num(e, "dur"); !ok || d < 0 {
				fail("complete event %d has dur %v, want a number >= 0: %v", i, e["dur"], e)
			}
			xs = append(xs, e)
		case "s", "f":
			id, _ := num(e, "id")
			cat, _ := e["cat"].(string)
			if ph == "s" {
				starts[flowKey{id, cat}]++
			} else {
				finishes[flowKey{id, cat}]++
			}
		case "i", "I":
			name, _ := e["name"].(string)
			instants[name]++
		}
	}
	for k, n := range starts {
		if finishes[k] != n {
			fail("flow id %v cat %q: %d starts, %d finishes", k.id, k.cat, n, finishes[k])
		}
	}
	for k := range finishes {
		if starts[k] == 0 {
			fail("flow id %v cat %q finishes without a start", k.id, k.cat)
		}
	}
	if bad > 10 {
		t.Errorf("p.json: ... and %d more such errors", bad-10)
	}
	// Every steal with a known thief and victim is a flow.
	wantFlows := len(steals.where(func(r csvRow) bool {
		ev := r.get("event")
		return (ev == "WorkSteal" || ev == "TimerSteal") && r.num("thief") >= 0 && r.num("victim") >= 0
	}))
	if len(starts) != wantFlows || wantFlows == 0 {
		t.Errorf("p.json has %d steal flows; -d=steals has %d steals with a thief and victim (want equal and > 0)", len(starts), wantFlows)
	}

	// Tracks: "P n" or "P n (node m)" per P, "no P" (and "no P (k)").
	for tid, names := range threadNames {
		if len(names) != 1 {
			t.Errorf("p.json: track %.0f has %d thread_name events %q, want 1", tid, len(names), names)
		}
	}
	pTrack, noPTrack := map[float64]bool{}, map[float64]bool{}
	for tid, names := range threadNames {
		switch n := names[0]; {
		case n == fmt.Sprintf("P %v", tid) || strings.HasPrefix(n, fmt.Sprintf("P %v (", tid)):
			pTrack[tid] = true
		case n == "no P" || strings.HasPrefix(n, "no P ("):
			noPTrack[tid] = true
		}
	}
	runsOnP, runsOffP := 0, 0
	ps := map[int64]bool{}
	for _, r := range runRows {
		if p := r.num("proc"); p >= 0 {
			runsOnP++
			ps[p] = true
		} else {
			runsOffP++
		}
	}
	for p := range ps {
		if !pTrack[float64(p)] {
			var tracks []string
			for tid, names := range threadNames {
				tracks = append(tracks, fmt.Sprintf("%.0f %q", tid, names))
			}
			slices.Sort(tracks)
			t.Errorf("p.json: no thread_name \"P %d\" for P %d, which runs goroutines in -d=runs (tracks: %s)", p, p, strings.Join(tracks, ", "))
		}
	}
	goName := regexp.MustCompile(`^G[0-9]+$`)
	onP, offP := 0, 0
	for _, e := range xs {
		name, _ := e["name"].(string)
		if !goName.MatchString(name) {
			continue
		}
		tid, _ := num(e, "tid")
		switch {
		case pTrack[tid]:
			onP++
		case noPTrack[tid]:
			offP++
		}
	}
	if onP+offP != len(runRows) || onP != runsOnP || offP != runsOffP {
		t.Errorf("p.json has %d goroutine runs on P tracks and %d on \"no P\" tracks; -d=runs has %d runs, %d with a P and %d without",
			onP, offP, len(runRows), runsOnP, runsOffP)
	}
	if instants["RunqOverflow"] != overflows {
		t.Errorf("p.json has %d RunqOverflow instants; -d=steals has %d run queue overflows on a P", instants["RunqOverflow"], overflows)
	}
}

// stockGoCmd returns the go command of the pinned stock release and the
// environment to run it with, or skips when it cannot be had (offline).
func stockGoCmd(t *testing.T) (string, []string) {
	t.Helper()
	pin, err := series.New(repoRoot(t)).ReadPin()
	if err != nil {
		t.Fatal(err)
	}
	env := append(withoutEnv(os.Environ(), "GOROOT", "GOTOOLCHAIN", "GOFLAGS", "GODEBUG"), "GOTOOLCHAIN="+pin.Version, "GOFLAGS=")
	cmd := exec.Command("go", "env", "GOROOT", "GOVERSION")
	cmd.Dir, cmd.Env = t.TempDir(), env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Skipf("no stock %s (GOTOOLCHAIN=%s go env GOROOT: %v)\n%s", pin.Version, pin.Version, err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 2 || lines[1] != pin.Version {
		t.Fatalf("GOTOOLCHAIN=%s go env GOROOT GOVERSION = %q, want the root and %s", pin.Version, lines, pin.Version)
	}
	return filepath.Join(lines[0], "bin", "go"), env
}

// parsedEvents returns the event lines of go tool trace -d=parsed output
// (those starting "M="), without the Steal experiment's events, which it
// counts.
func parsedEvents(out []byte) (events []string, stealEvents int) {
	for _, line := range strings.Split(string(out), "\n") {
		if !strings.HasPrefix(line, "M=") {
			continue
		}
		if f := strings.Fields(line); len(f) > 3 && f[3] == "Experimental" {
			if i := strings.Index(line, " Name="); i >= 0 {
				name, _, _ := strings.Cut(line[i+len(" Name="):], " ")
				if slices.Contains(stealEventNames, name) {
					stealEvents++
					continue
				}
			}
		}
		events = append(events, line)
	}
	return events, stealEvents
}

func countKind(events []string, kind string) int {
	n := 0
	for _, e := range events {
		if f := strings.Fields(e); len(f) > 3 && f[3] == kind {
			n++
		}
	}
	return n
}

// sequenceDiff describes the first difference between the event lines
// want and got; "" if each thread (M=) has the same events in the same
// order at the same times. Times may differ by less than half the trace
// clock's 64 ns tick: the parser moves an event that shares its tick with
// the previous one a nanosecond later, so an event that followed a Steal
// event in its tick is a nanosecond earlier in the copy, and events of
// different threads within a tick may change places. A lost time delta
// is a multiple of the tick.
func sequenceDiff(want, got []string) string {
	timeField := regexp.MustCompile(` Time=([0-9]+)`)
	type event struct {
		line, rest string
		time       int64
	}
	byThread := func(lines []string) map[string][]event {
		m := map[string][]event{}
		for _, line := range lines {
			thread, _, _ := strings.Cut(line, " ")
			e := event{line: line, rest: line}
			if f := timeField.FindStringSubmatch(line); f != nil {
				e.time, _ = strconv.ParseInt(f[1], 10, 64)
				e.rest = strings.Replace(line, f[0], "", 1)
			}
			m[thread] = append(m[thread], e)
		}
		return m
	}
	w, g := byThread(want), byThread(got)
	for _, thread := range slices.Sorted(maps.Keys(w)) {
		we, ge := w[thread], g[thread]
		for i := range min(len(we), len(ge)) {
			if we[i].rest != ge[i].rest || max(we[i].time-ge[i].time, ge[i].time-we[i].time) >= 32 {
				return fmt.Sprintf("event %d of %s:\n  want %s\n  got  %s", i, thread, we[i].line, ge[i].line)
			}
		}
		if len(we) != len(ge) {
			return fmt.Sprintf("%s: %d events in steal.out, %d in stock.out", thread, len(we), len(ge))
		}
	}
	if len(w) != len(g) {
		return fmt.Sprintf("events of %d threads in steal.out, %d in stock.out", len(w), len(g))
	}
	return ""
}

// withoutEnv returns env without the variables named.
func withoutEnv(env []string, names ...string) []string {
	var out []string
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(names, k) {
			out = append(out, kv)
		}
	}
	return out
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func fileHead(t *testing.T, path string, n int) []byte {
	t.Helper()
	data := readFile(t, path)
	return data[:min(n, len(data))]
}

// A csvTable is a CSV with a header row.
type csvTable struct {
	col  map[string]int
	rows []csvRow
}

type csvRow struct {
	tab *csvTable
	rec []string
}

// readCSVTable reads go tool trace's CSV output: the header must name
// every column of text and ints, and the values of ints must be
// integers or empty.
func readCSVTable(t *testing.T, name string, data []byte, text, ints []string) *csvTable {
	t.Helper()
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord = -1
	recs, err := r.ReadAll()
	if err != nil || len(recs) == 0 {
		t.Fatalf("%s: not a CSV with a header (%v):\n%.500s", name, err, data)
	}
	tab := &csvTable{col: map[string]int{}}
	for i, h := range recs[0] {
		tab.col[h] = i
	}
	for _, c := range append(slices.Clone(text), ints...) {
		if _, ok := tab.col[c]; !ok {
			t.Fatalf("%s: no column %q in header %q", name, c, recs[0])
		}
	}
	for i, rec := range recs[1:] {
		row := csvRow{tab, rec}
		for _, c := range ints {
			if s := row.get(c); s != "" {
				if _, err := strconv.ParseInt(s, 10, 64); err != nil {
					t.Fatalf("%s line %d: %s %q: %v", name, i+2, c, s, err)
				}
			}
		}
		tab.rows = append(tab.rows, row)
	}
	return tab
}

func (tab *csvTable) where(keep func(csvRow) bool) []csvRow {
	var out []csvRow
	for _, r := range tab.rows {
		if keep(r) {
			out = append(out, r)
		}
	}
	return out
}

// get returns the row's value in column name ("" if it has none).
func (r csvRow) get(name string) string {
	if i, ok := r.tab.col[name]; ok && i < len(r.rec) {
		return r.rec[i]
	}
	return ""
}

// num returns the row's integer in column name (one readCSVTable
// checked), -1 if it is empty.
func (r csvRow) num(name string) int64 {
	v, err := strconv.ParseInt(r.get(name), 10, 64)
	if err != nil {
		return -1
	}
	return v
}
