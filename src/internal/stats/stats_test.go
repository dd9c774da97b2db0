package stats

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"golang.org/x/perf/benchmath"
)

func TestHolm(t *testing.T) {
	for _, tc := range []struct {
		ps, want []float64
	}{
		// Sorted 0.005, 0.01, 0.03, 0.04 times 4, 3, 2, 1: 0.02, 0.03,
		// 0.06, 0.04, the last raised to 0.06 to stay monotone.
		{[]float64{0.01, 0.04, 0.03, 0.005}, []float64{0.03, 0.06, 0.06, 0.02}},
		// Capped at 1.
		{[]float64{0.5, 0.6}, []float64{1, 1}},
		{[]float64{0.2}, []float64{0.2}},
		{nil, []float64{}},
	} {
		got := Holm(tc.ps)
		if len(got) != len(tc.want) {
			t.Fatalf("Holm(%v) = %v, want %v", tc.ps, got, tc.want)
		}
		for i := range got {
			if math.Abs(got[i]-tc.want[i]) > 1e-12 {
				t.Errorf("Holm(%v) = %v, want %v", tc.ps, got, tc.want)
				break
			}
		}
	}
}

func TestDetectionLimit(t *testing.T) {
	base := benchmath.Summary{Center: 100, Lo: 95, Hi: 105}
	cell := benchmath.Summary{Center: 104, Lo: 98, Hi: 110}
	// From 98/105 (-6.7%) to 110/95 (+15.8%): the larger side.
	if got, want := detectionLimit(base, cell), (110.0/95-1)*100; math.Abs(got-want) > 1e-9 {
		t.Errorf("detectionLimit = %v, want %v", got, want)
	}
	// A CI reaching below the baseline's by more than above.
	cell = benchmath.Summary{Center: 90, Lo: 50, Hi: 100}
	if got, want := detectionLimit(base, cell), (1-50.0/105)*100; math.Abs(got-want) > 1e-9 {
		t.Errorf("detectionLimit = %v, want %v", got, want)
	}
	if got := detectionLimit(benchmath.Summary{Lo: 0, Hi: 1}, cell); !math.IsNaN(got) {
		t.Errorf("detectionLimit with a zero bound = %v, want NaN", got)
	}
}

// TestVerdictHolm checks that a verdict keeps the raw verdict
// and says how many rows survive Holm's correction.
func TestVerdictHolm(t *testing.T) {
	row := func(name string, p float64, sig bool) *Row {
		return &Row{Name: name, Deltas: []*Delta{nil, {Pct: 8, Significant: sig, Cmp: benchmath.Comparison{P: p}, Limit: 12}}}
	}
	tab := &UnitTable{Unit: "sec/op", Rows: []*Row{row("A", 0.001, true), row("B", 0.04, true), row("C", 0.5, false)}, Geomean: []float64{math.NaN(), math.NaN()}}
	adjustHolm(tab.Rows, 1, 0.05)
	got := tab.Verdict(1, 0)
	for _, want := range []string{"2 slower", "A +8.0% (p=0.001, Holm p=0.003)", "B +8.0% (p=0.040, Holm p=0.080)", "1 of these significant after Holm's correction over the 3 rows", "1 without a significant difference", "largest ±12.0%"} {
		if !strings.Contains(got, want) {
			t.Errorf("verdict lacks %q:\n%s", want, got)
		}
	}
}

// TestVerdictMedianLimit checks the "could have missed" median over an
// even number of rows: the mean of the middle two. The verdict once
// took the upper one, and FINDINGS that quoted it carried the error.
func TestVerdictMedianLimit(t *testing.T) {
	row := func(name string, limit float64) *Row {
		return &Row{Name: name, Deltas: []*Delta{nil, {Pct: 1, Cmp: benchmath.Comparison{P: 0.5}, Limit: limit}}}
	}
	tab := &UnitTable{Unit: "sec/op", Rows: []*Row{row("A", 20), row("B", 42.9), row("C", 220), row("D", 204700)}, Geomean: []float64{math.NaN(), math.NaN()}}
	adjustHolm(tab.Rows, 1, 0.05)
	if got, want := tab.Verdict(1, 0), "median ±131.4%, largest ±204700.0%"; !strings.Contains(got, want) {
		t.Errorf("verdict lacks %q:\n%s", want, got)
	}
}

const noisySame = `variant: a
toolchain: go1.27.3
godebug: none
BenchmarkX-2 1 100 ns/op
BenchmarkX-2 1 101 ns/op
BenchmarkX-2 1 102 ns/op
BenchmarkX-2 1 103 ns/op
BenchmarkX-2 1 104 ns/op
BenchmarkX-2 1 105 ns/op
variant: b
BenchmarkX-2 1 200 ns/op
BenchmarkX-2 1 201 ns/op
BenchmarkX-2 1 202 ns/op
BenchmarkX-2 1 203 ns/op
BenchmarkX-2 1 204 ns/op
BenchmarkX-2 1 205 ns/op
variant: c
toolchain: go1.27.3-schedlab.1
BenchmarkX-2 1 300 ns/op
BenchmarkX-2 1 301 ns/op
BenchmarkX-2 1 302 ns/op
BenchmarkX-2 1 303 ns/op
BenchmarkX-2 1 304 ns/op
BenchmarkX-2 1 305 ns/op
`

func TestSelfCheck(t *testing.T) {
	p := filepath.Join(t.TempDir(), "bench.txt")
	os.WriteFile(p, []byte(noisySame), 0o644)
	c, err := Compare([]string{p}, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(c.Cols, []string{"a", "b", "c"}) {
		t.Fatalf("columns %v", c.Cols)
	}
	w := c.SelfCheck()
	if len(w) != 1 || !strings.Contains(w[0], "a and b run the same toolchain") || !strings.Contains(w[0], "X-2") {
		t.Errorf("SelfCheck = %q, want one warning about a and b", w)
	}
	var buf bytes.Buffer
	c.WriteText(&buf)
	if !strings.Contains(buf.String(), "+97.56%") {
		t.Errorf("table lacks the +97.56%% delta:\n%s", buf.String())
	}
	if _, err := Compare([]string{p}, CompareOptions{Base: "zz"}); err == nil {
		t.Errorf("unknown base: no error")
	}
}

// TestFamily checks that the family correction runs over every unit,
// row and column named, not per column: three deltas at p=0.01 in
// three columns are each significant alone but adjust to 0.03 together.
func TestFamily(t *testing.T) {
	mk := func(p float64) *Delta { return &Delta{Cmp: benchmath.Comparison{P: p}, Pct: 1} }
	c := &Comparison{Cols: []string{"base", "a", "b", "c"}, Tables: []*UnitTable{
		{Unit: "x", Rows: []*Row{{Name: "B1", Deltas: []*Delta{nil, mk(0.01), mk(0.01), mk(0.01)}}}},
		{Unit: "y", Rows: []*Row{{Name: "B1", Deltas: []*Delta{nil, mk(0.5), nil, nil}}}},
	}}
	rows := c.Family([]string{"x"})
	if len(rows) != 3 {
		t.Fatalf("%d rows, want 3 (unit y is not in the family)", len(rows))
	}
	for _, r := range rows {
		if math.Abs(r.PHolm-0.03) > 1e-12 {
			t.Errorf("%s %s: holm %v, want 0.03", r.Benchmark, r.Col, r.PHolm)
		}
	}
	if rows := c.Family([]string{"x", "y"}); len(rows) != 4 || rows[3].P != 0.5 {
		t.Errorf("family x, y: %+v", rows)
	}
}

// TestUnitNotes: the sched-latency units, and only they, carry the
// caveat of golang/go#79391, under their tables and in a family.
func TestUnitNotes(t *testing.T) {
	for _, u := range []string{"p50-sched-latency-sec", "p99-sched-latency-ns", "sweep-p99-sched-latency-sec-ForkJoinTree"} {
		if UnitNote(u) != SchedLatencyNote {
			t.Errorf("UnitNote(%q) = %q", u, UnitNote(u))
		}
	}
	for _, u := range []string{"sec/op", "p99-wake-sec", "p99-gc-pause-sec", "mean-runnable-goroutines"} {
		if n := UnitNote(u); n != "" {
			t.Errorf("UnitNote(%q) = %q, want none", u, n)
		}
	}
	if n := UnitNotes("p50-sched-latency-sec", "sec/op", "p99-sched-latency-sec"); len(n) != 1 {
		t.Errorf("UnitNotes gives %d notes, want the one, once", len(n))
	}

	c := &Comparison{Cols: []string{"base", "a"}, Tables: []*UnitTable{
		{Unit: "p99-sched-latency-sec"}, {Unit: "sec/op"},
	}}
	var b strings.Builder
	if err := c.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	i, j := strings.Index(text, "unit: p99-sched-latency-sec"), strings.Index(text, "unit: sec/op")
	k := strings.Index(text, "note: "+SchedLatencyNote)
	if i < 0 || j < 0 || k < i || k > j || strings.Count(text, SchedLatencyNote) != 1 {
		t.Errorf("the note is not under the sched-latency table, once:\n%s", text)
	}
	b.Reset()
	WriteFamily(&b, nil, []string{"p99-gc-pause-sec", "p99-sched-latency-sec"}, 0.05)
	if !strings.Contains(b.String(), "note: "+SchedLatencyNote) {
		t.Errorf("family output lacks the note:\n%s", b.String())
	}
	b.Reset()
	WriteFamily(&b, nil, []string{"p99-gc-pause-sec"}, 0.05)
	if strings.Contains(b.String(), "note:") {
		t.Errorf("family without sched-latency has a note:\n%s", b.String())
	}
}
