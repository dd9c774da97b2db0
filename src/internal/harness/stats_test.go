package harness

import (
	"math"
	"os"
	"path/filepath"
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
		got := holm(tc.ps)
		if len(got) != len(tc.want) {
			t.Fatalf("holm(%v) = %v, want %v", tc.ps, got, tc.want)
		}
		for i := range got {
			if math.Abs(got[i]-tc.want[i]) > 1e-12 {
				t.Errorf("holm(%v) = %v, want %v", tc.ps, got, tc.want)
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

// TestVerdictHolm checks that the report's verdict keeps the raw verdict
// and says how many rows survive Holm's correction.
func TestVerdictHolm(t *testing.T) {
	row := func(name string, p float64, sig bool) *Row {
		return &Row{Name: name, Deltas: []*Delta{nil, {Pct: 8, Significant: sig, Cmp: benchmath.Comparison{P: p}, Limit: 12}}}
	}
	tab := &UnitTable{Unit: "sec/op", Rows: []*Row{row("A", 0.001, true), row("B", 0.04, true), row("C", 0.5, false)}, Geomean: []float64{math.NaN(), math.NaN()}}
	adjustHolm(tab.Rows, 1, 0.05)
	got := verdict(tab, 1, 0)
	for _, want := range []string{"2 slower", "A +8.0% (p=0.001, Holm p=0.003)", "B +8.0% (p=0.040, Holm p=0.080)", "1 of these significant after Holm's correction over the 3 rows", "1 without a significant difference", "largest ±12.0%"} {
		if !strings.Contains(got, want) {
			t.Errorf("verdict lacks %q:\n%s", want, got)
		}
	}
}

func TestMachineProbes(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for list, want := range map[string]int{"0\n": 1, "0,64\n": 2, "0-1\n": 2, "0-3,8-11\n": 8, "x\n": 0} {
		if got := threadsPerCore(write("siblings", list)); got != want {
			t.Errorf("threadsPerCore(%q) = %d, want %d", list, got, want)
		}
	}
	if got := threadsPerCore(filepath.Join(dir, "missing")); got != 0 {
		t.Errorf("threadsPerCore(missing) = %d, want 0", got)
	}
	mem := write("meminfo", "MemFree:  100 kB\nMemTotal:       24576000 kB\n")
	if got := memTotalMiB(mem); got != 24000 {
		t.Errorf("memTotalMiB = %d, want 24000", got)
	}
	kvm := write("cpuinfo-kvm", "processor\t: 0\nflags\t\t: fpu vme hypervisor lahf_lm\n")
	metal := write("cpuinfo-metal", "processor\t: 0\nflags\t\t: fpu vme lahf_lm\n")
	xen := write("hypervisor-type", "xen\n")
	missing := filepath.Join(dir, "missing")
	for _, tc := range []struct{ typ, cpuinfo, want string }{
		{missing, kvm, "yes (cpuinfo hypervisor flag)"},
		{missing, metal, "none seen"},
		{xen, metal, "xen"},
		{missing, missing, "unknown"},
	} {
		if got := virtualization(tc.typ, tc.cpuinfo); got != tc.want {
			t.Errorf("virtualization(%s, %s) = %q, want %q", tc.typ, tc.cpuinfo, got, tc.want)
		}
	}
}
