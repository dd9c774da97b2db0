package trace

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// chromeTrace is what the test reads back of the export.
type chromeTrace struct {
	TraceEvents     []map[string]any `json:"traceEvents"`
	DisplayTimeUnit string           `json:"displayTimeUnit"`
}

// validateChrome checks the trace-event format's rules that Perfetto
// relies on and returns the events by phase.
func validateChrome(t *testing.T, data []byte) (chromeTrace, map[string][]map[string]any) {
	t.Helper()
	var ct chromeTrace
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&ct); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	if ct.DisplayTimeUnit != "ns" || len(ct.TraceEvents) == 0 {
		t.Fatalf("displayTimeUnit %q, %d events", ct.DisplayTimeUnit, len(ct.TraceEvents))
	}
	num := func(e map[string]any, k string) (float64, bool) {
		n, ok := e[k].(json.Number)
		if !ok {
			return 0, false
		}
		f, err := n.Float64()
		return f, err == nil
	}
	by := map[string][]map[string]any{}
	flows := map[string]map[string]int{} // id → phase → count
	for i, e := range ct.TraceEvents {
		ph, _ := e["ph"].(string)
		if ph == "" {
			t.Errorf("event %d has no ph: %v", i, e)
			continue
		}
		by[ph] = append(by[ph], e)
		if _, ok := e["name"].(string); !ok {
			t.Errorf("event %d has no name: %v", i, e)
		}
		if _, ok := num(e, "pid"); !ok && ph != "M" {
			t.Errorf("event %d has no pid: %v", i, e)
		}
		if ph == "M" {
			continue
		}
		if _, ok := num(e, "tid"); !ok {
			t.Errorf("event %d has no tid: %v", i, e)
		}
		if ts, ok := num(e, "ts"); !ok || ts < 0 {
			t.Errorf("event %d: ts %v", i, e["ts"])
		}
		switch ph {
		case "X":
			if d, ok := num(e, "dur"); !ok || d < 0 {
				t.Errorf("complete event %d: dur %v", i, e["dur"])
			}
		case "s", "f":
			id := string(e["id"].(json.Number))
			if flows[id] == nil {
				flows[id] = map[string]int{}
			}
			flows[id][ph]++
			if e["cat"] != "steal" {
				t.Errorf("flow event %d: cat %v, want steal", i, e["cat"])
			}
			if ph == "f" && e["bp"] != "e" {
				t.Errorf("flow end %d: bp %v, want e", i, e["bp"])
			}
		case "i":
		default:
			t.Errorf("event %d: unexpected phase %q", i, ph)
		}
	}
	for id, n := range flows {
		if n["s"] != 1 || n["f"] != 1 {
			t.Errorf("flow %s: %d starts, %d ends; want one each", id, n["s"], n["f"])
		}
	}
	return ct, by
}

// tracks maps each track's tid to its thread_name.
func tracks(by map[string][]map[string]any) map[int]string {
	out := map[int]string{}
	for _, e := range by["M"] {
		if e["name"] == "thread_name" {
			tid, _ := e["tid"].(json.Number).Int64()
			out[int(tid)] = e["args"].(map[string]any)["name"].(string)
		}
	}
	return out
}

func countCSVRuns(t *testing.T, runs string) int {
	recs, err := csv.NewReader(strings.NewReader(runs)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range recs {
		if r[0] == "run" {
			n++
		}
	}
	return n
}

func TestWritePerfetto(t *testing.T) {
	tr := loadTrace(t, latencyRuns, latencySteals)
	var buf bytes.Buffer
	if err := WritePerfetto(&buf, tr); err != nil {
		t.Fatal(err)
	}
	_, by := validateChrome(t, buf.Bytes())
	var runs, stws int
	for _, e := range by["X"] {
		switch e["cat"] {
		case "run":
			runs++
		case "stw":
			stws++
			if tid, _ := e["tid"].(json.Number).Int64(); tid != PerfettoSTWTid {
				t.Errorf("pause on track %d, want the STW track", tid)
			}
		}
	}
	if want := countCSVRuns(t, latencyRuns); runs != want || stws != 1 {
		t.Errorf("%d run events, %d pauses; want %d (the CSV's runs), 1", runs, stws, want)
	}
	tk := tracks(by)
	want := map[int]string{0: "P 0 (node 0)", 1: "P 1 (node 1)", PerfettoSTWTid: "STW", PerfettoNoPTid: "no P"}
	if len(tk) != len(want) {
		t.Errorf("tracks %v, want %v", tk, want)
	}
	for tid, name := range want {
		if tk[tid] != name {
			t.Errorf("track %d named %q, want %q", tid, tk[tid], name)
		}
	}
	// G2's run: on P0, named, with its arguments, in µs.
	var g2 map[string]any
	for _, e := range by["X"] {
		if e["name"] == "G2" {
			g2 = e
		}
	}
	if g2 == nil || string(g2["tid"].(json.Number)) != "0" || string(g2["ts"].(json.Number)) != "1.5" || string(g2["dur"].(json.Number)) != "1.5" {
		t.Fatalf("G2's run: %v; want on tid 0 at ts 1.5 µs for 1.5 µs", g2)
	}
	args := g2["args"].(map[string]any)
	if args["state"] != "Waiting" || args["reason"] != "chan receive" || string(args["thread"].(json.Number)) != "10" || string(args["goroutine"].(json.Number)) != "2" {
		t.Errorf("G2's args %v", args)
	}
	// The steal: a flow from victim P0 to thief P1 and an instant on P1.
	if len(by["s"]) != 1 || len(by["f"]) != 1 {
		t.Fatalf("%d flow starts, %d ends; want 1, 1", len(by["s"]), len(by["f"]))
	}
	if string(by["s"][0]["tid"].(json.Number)) != "0" || string(by["f"][0]["tid"].(json.Number)) != "1" {
		t.Errorf("steal flow from tid %v to %v, want 0 to 1", by["s"][0]["tid"], by["f"][0]["tid"])
	}
	instants := map[string]string{}
	for _, e := range by["i"] {
		instants[e["name"].(string)] = string(e["tid"].(json.Number))
	}
	if instants["WorkSteal"] != "1" || instants["RunqOverflow"] == "" || instants["NUMAHop"] != "1" {
		t.Errorf("instants %v: want the steal and the hop on P1, the overflows", instants)
	}
}

// Runs without a P on different threads overlap: they take a track each,
// since Perfetto drops slices that overlap on one track.
func TestPerfettoOverlappingNoP(t *testing.T) {
	runs := runsHeader + "run,0,100,-1,1,1,Syscall,,-1,\nrun,50,150,-1,2,2,Syscall,,-1,\nrun,120,200,-1,3,3,Syscall,,-1,\nrun,0,300,0,4,4,end,,-1,\n"
	var buf bytes.Buffer
	if err := WritePerfetto(&buf, loadTrace(t, runs, latencySteals)); err != nil {
		t.Fatal(err)
	}
	_, by := validateChrome(t, buf.Bytes())
	tk := tracks(by)
	if tk[PerfettoNoPTid] != "no P" || tk[PerfettoNoPTid+1] != "no P (2)" || tk[PerfettoNoPTid+2] != "" {
		t.Errorf("tracks %v: want two no-P tracks", tk)
	}
	end := map[int64]float64{}
	for _, e := range by["X"] {
		tid, _ := e["tid"].(json.Number).Int64()
		ts, _ := e["ts"].(json.Number).Float64()
		dur, _ := e["dur"].(json.Number).Float64()
		if ts < end[tid] {
			t.Errorf("event %v overlaps the one before it on track %d", e, tid)
		}
		end[tid] = ts + dur
	}
}

func TestWritePerfettoFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.json")
	if err := WritePerfettoFile(path, loadTrace(t, latencyRuns, latencySteals)); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	validateChrome(t, data)
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("%d files in the folder, want only out.json (no temporary left)", len(ents))
	}
	// A folder that does not exist: an error, nothing written.
	if err := WritePerfettoFile(filepath.Join(dir, "no", "out.json"), loadTrace(t, latencyRuns, latencySteals)); err == nil {
		t.Error("no error writing into a missing folder")
	}
}
