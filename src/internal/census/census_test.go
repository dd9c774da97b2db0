package census

import (
	"math"
	"slices"
	"strings"
	"testing"
)

func TestParseCachegrind(t *testing.T) {
	good := "desc: I1 cache: ...\ncmd: ./prog pingpong\nevents: Ir\nfl=x.go\n1 5\nsummary: 134229878\n"
	n, err := ParseCachegrind([]byte(good))
	if err != nil || n != 134229878 {
		t.Fatalf("ParseCachegrind(good) = %d, %v; want 134229878", n, err)
	}
	for name, bad := range map[string]string{
		"no summary":    "events: Ir\n1 5\n",
		"other event":   "events: Dr\nsummary: 5\n",
		"no events":     "summary: 5\n",
		"not a number":  "events: Ir\nsummary: lots\n",
		"empty summary": "events: Ir\nsummary:\n",
	} {
		if n, err := ParseCachegrind([]byte(bad)); err == nil {
			t.Errorf("ParseCachegrind(%s) = %d, nil; want an error", name, n)
		}
	}
}

func TestParseAnnotate(t *testing.T) {
	out := `--------------------------------------------------------------------------------
Ir
--------------------------------------------------------------------------------
78,696,234 (100.0%)  PROGRAM TOTALS

--------------------------------------------------------------------------------
Ir                  file:function
--------------------------------------------------------------------------------
 7,274,459 ( 9.24%)  ./runtime/proc.go:runtime.findRunnable [/tmp/census-patched-0]
   795,171 ( 1.01%)  ./internal/runtime/atomic/types.go:runtime.findRunnable
 5,000,569 ( 6.35%)  ./runtime/proc.go:runtime.schedule [/tmp/census-patched-0]
 1,000,000 ( 1.27%)  ./syscall/syscall_linux.go:syscall.Syscall'2 [/tmp/census-patched-0]
 2,000,000 ( 2.54%)  ./syscall/syscall_linux.go:syscall.Syscall [/tmp/census-patched-0]
       100 ( 0.00%)  ???:runtime.(*timers).check
`
	got := ParseAnnotate([]byte(out))
	want := map[string]uint64{
		"PROGRAM TOTALS":          78696234,
		"runtime.findRunnable":    7274459 + 795171, // inlined code is summed into its function
		"runtime.schedule":        5000569,
		"runtime.(*timers).check": 100,
		"syscall.Syscall":         3000000, // recursion levels (fn'2) are one function
	}
	if len(got) != len(want) {
		t.Fatalf("ParseAnnotate = %v; want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("ParseAnnotate[%q] = %d; want %d", k, got[k], v)
		}
	}
}

func TestMedianSpread(t *testing.T) {
	if m := Median([]float64{3, 1, 2}); m != 2 {
		t.Errorf("Median odd = %v", m)
	}
	if m := Median([]float64{4, 1, 3, 2}); m != 2.5 {
		t.Errorf("Median even = %v", m)
	}
	if s := Spread([]float64{99, 101, 100}); math.Abs(s-0.02) > 1e-12 {
		t.Errorf("Spread = %v; want 0.02", s)
	}
	if s := Spread([]float64{5}); s != 0 {
		t.Errorf("Spread of one value = %v", s)
	}
}

func TestDiffFunctions(t *testing.T) {
	stock := []map[string]uint64{
		{"wakep": 1000, "findfunc": 500, "gone": 300, "same": 10000},
		{"wakep": 1000, "findfunc": 700, "gone": 300, "same": 10000},
		{"wakep": 1000, "findfunc": 600, "gone": 300, "same": 10000},
	}
	patched := []map[string]uint64{
		{"wakep": 1200, "findfunc": 700, "new": 400, "same": 10001},
		{"wakep": 1200, "findfunc": 550, "new": 400, "same": 10001},
		{"wakep": 1200, "findfunc": 680, "new": 400, "same": 10001},
	}
	// total 10000, minShare 0.005: moves over 50 are listed.
	got := DiffFunctions(stock, patched, 10000, 0.005)
	labels := map[string]string{}
	for _, d := range got {
		labels[d.Name] = d.Label
	}
	want := map[string]string{"new": "new", "gone": "gone", "wakep": "code"}
	// findfunc: median 600 -> 680, within its layout range of 200.
	want["findfunc"] = "layout"
	if len(labels) != len(want) {
		t.Fatalf("DiffFunctions = %+v; want labels %v", got, want)
	}
	for k, v := range want {
		if labels[k] != v {
			t.Errorf("label of %s = %q; want %q", k, labels[k], v)
		}
	}
	if got[0].Name != "new" || got[1].Name != "gone" {
		t.Errorf("order = %s, %s, ...; want largest move first (new 400, gone 300)", got[0].Name, got[1].Name)
	}
}

func TestGateVerdict(t *testing.T) {
	rows := []Row{
		{Workload: Workload{"pingpong", 1}, Stock: []float64{1000, 1000, 1000}, Patched: []float64{1001, 1001, 1001}}, // +0.1%
		{Workload: Workload{"ring", 1}, Stock: []float64{1000, 1000, 1000}, Patched: []float64{1003, 1003, 1004}},     // +0.3%, range 0.1%
		{Workload: Workload{"syscall", 1}, Stock: []float64{1000, 1000, 1000}, Patched: []float64{1010, 1010, 1010}},  // over, but not gated
		// +0.5% at the median, but layouts alone move it by 1.5%.
		{Workload: Workload{"forkjoin", 1}, Stock: []float64{1000, 990, 1005}, Patched: []float64{995, 1010, 1005}},
	}
	gate := map[string]float64{"pingpong": 0.002, "ring": 0.002, "forkjoin": 0.002}
	bad := Failed(rows, gate)
	if len(bad) != 1 || bad[0].Name != "ring" {
		t.Fatalf("Failed = %+v; want only ring", bad)
	}
	// A workload with a threshold of its own is judged by it.
	if bad := Failed(rows, map[string]float64{"ring": 0.01}); len(bad) != 0 {
		t.Errorf("ring at a 1%% threshold: Failed = %+v; want none", bad)
	}
	if v := rows[3].Verdict(0.002); v != "layout" {
		t.Errorf("forkjoin verdict %q; want layout", v)
	}
	table := Table(rows, 0.002, gate)
	for _, want := range []string{"| ring | 1 | 1000.0 | 1003.0 | +0.300% |", "| over 0.20% |", "within the layout range", "(reported, not gated)"} {
		if !strings.Contains(table, want) {
			t.Errorf("Table lacks %q:\n%s", want, table)
		}
	}
}

// TestValgrindEnv checks that runs under valgrind get GODEBUG
// cpu.rdtscp=off, merged into a GODEBUG the run already has.
func TestValgrindEnv(t *testing.T) {
	for _, tc := range []struct {
		env  []string
		want []string
	}{
		{[]string{"A=1"}, []string{"A=1", "GODEBUG=cpu.rdtscp=off"}},
		{[]string{"GODEBUG=numa=1", "A=1"}, []string{"GODEBUG=cpu.rdtscp=off,numa=1", "A=1"}},
		{[]string{"GODEBUG="}, []string{"GODEBUG=cpu.rdtscp=off"}},
	} {
		if got := valgrindEnv(tc.env); !slices.Equal(got, tc.want) {
			t.Errorf("valgrindEnv(%q) = %q; want %q", tc.env, got, tc.want)
		}
	}
	if got := valgrindEnv(nil); !slices.Contains(got, "GODEBUG=cpu.rdtscp=off") && !strings.Contains(strings.Join(got, "\n"), "GODEBUG=cpu.rdtscp=off,") {
		t.Errorf("valgrindEnv(nil) has no cpu.rdtscp=off: %q", got)
	}
}
