package plots

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot"

	"github.com/schedlab/schedlab/src/internal/results"
	"github.com/schedlab/schedlab/src/internal/stats"
)

// TestReportSweepPlots writes a small sweep (stock plus two timeslice
// values) and checks that its report's plots draw the metric against the
// knob, with stock as a reference, and the requested trade-off plot.
func TestReportSweepPlots(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for round := range 6 {
		for i, v := range []string{"stock", "timeslice=1000", "timeslice=2000"} {
			fmt.Fprintf(&b, "variant: %s\npkg: w\n", v)
			p99 := 40e6 / float64(i+1)
			wakeups := ""
			if i > 0 {
				wakeups = fmt.Sprintf("\t%d sysmon-wakeups/s", 1000*(3-i)+round)
			}
			fmt.Fprintf(&b, "BenchmarkLatencyProbe-2\t400\t%d ns/op\t%g p99-wake-ns%s\n\n", 2000000+round, p99+float64(round), wakeups)
		}
	}
	os.WriteFile(filepath.Join(dir, results.RawFile), []byte(b.String()), 0o644)
	meta := results.Metadata{Suite: "workloads", Count: 6, Complete: true, Sweep: &results.SweepInfo{
		Knob: "timeslice", Values: []string{"1000", "2000"}, Metrics: []string{"p99-wake-ns"},
		Tradeoffs: []string{"sysmon-wakeups/s:p99-wake-ns"},
	}}
	for _, v := range []string{"stock", "timeslice=1000", "timeslice=2000"} {
		meta.Variants = append(meta.Variants, results.VariantMeta{Name: v})
	}
	// The comparison the report draws from: against the first variant.
	c, err := stats.CompareAgainst(filepath.Join(dir, results.RawFile), meta.Variants[0].Name)
	if err != nil {
		t.Fatal(err)
	}
	plots, err := Write(dir, c, &meta)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		filepath.Join(results.PlotsDir, "sweep-p99-wake-sec-LatencyProbe-2.svg"),
		filepath.Join(results.PlotsDir, "tradeoff-p99-wake-sec-vs-sysmon-wakeups-per-s-LatencyProbe-2.svg"),
	}
	if !slices.Equal(plots, want) {
		t.Fatalf("plots %q, want %q", plots, want)
	}
	sweep, _ := os.ReadFile(filepath.Join(dir, want[0]))
	if !strings.Contains(string(sweep), ">stock (median dashed, CI shaded)</text>") {
		t.Errorf("sweep plot has no stock reference line")
	}
	for _, rel := range want {
		if _, err := os.Stat(filepath.Join(dir, strings.TrimSuffix(rel, ".svg")+".png")); err != nil {
			t.Errorf("no PNG beside %s: %v", rel, err)
		}
	}

	// Stock's p99 (40ms) is far above the swept values (20-40ms at most):
	// its line must still lie inside the plotted range, and the axes
	// must name their units.
	c, err = stats.Compare([]string{filepath.Join(dir, results.RawFile)}, stats.CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tab := c.Table("p99-wake-sec")
	p, err := sweepPlot(c, meta.Sweep, tab.Rows[0], "p99-wake-sec", map[int]float64{1: 1000, 2: 2000}, []float64{1000, 2000})
	if err != nil {
		t.Fatal(err)
	}
	if stock := tab.Rows[0].Cells[0].Summary.Center * 1e3; stock < p.Y.Min || stock > p.Y.Max {
		t.Errorf("stock's median %gms lies outside the y range [%g, %g]", stock, p.Y.Min, p.Y.Max)
	}
	if p.X.Label.Text != "GODEBUG timeslice (µs)" || p.Y.Label.Text != "p99 wake-up delay (ms)" {
		t.Errorf("axis labels %q, %q", p.X.Label.Text, p.Y.Label.Text)
	}
	if _, ok := p.X.Scale.(plot.LogScale); ok {
		t.Errorf("log x axis for values within a factor of 2")
	}
	if _, ok := p.Y.Scale.(plot.LogScale); ok {
		t.Errorf("log y axis for values within a factor of 3")
	}
	p, _ = sweepPlot(c, meta.Sweep, tab.Rows[0], "p99-wake-sec", map[int]float64{1: 100, 2: 2000}, []float64{100, 2000})
	if _, ok := p.X.Scale.(plot.LogScale); !ok {
		t.Errorf("linear x axis for values spanning more than a decade")
	}
	tradeoff, _ := os.ReadFile(filepath.Join(dir, want[1]))
	for _, label := range []string{">1000</text>", ">2000</text>"} {
		if !strings.Contains(string(tradeoff), label) {
			t.Errorf("trade-off plot lacks point label %s", label)
		}
	}
}

func TestQuantityFor(t *testing.T) {
	for _, tc := range []struct {
		unit string
		mag  float64
		want quantity
	}{
		{"sec/op", 2e-6, quantity{"time per op", "µs", 1e6}},
		{"sec/op", 0.5, quantity{"time per op", "ms", 1e3}},
		{"sec/op", 3, quantity{"time per op", "s", 1}},
		{"cpu-sec/op", 2e-9, quantity{"CPU time per op", "ns", 1e9}},
		{"p99-wake-sec", 0.04, quantity{"p99 wake-up delay", "ms", 1e3}},
		{"p50-latency-sec", 1e-4, quantity{"p50 latency", "µs", 1e6}},
		{"local-steal-share", 0.9, quantity{"local steal share", "%", 100}},
		{"hog-iters/s", 1e9, quantity{"hog iters", "per second", 1}},
		{"B/op", 100, quantity{"memory allocated per op", "bytes", 1}},
		{"steals/op", 2, quantity{"steals per op", "count", 1}},
		{"attempts/steal", 2, quantity{"attempts per steal", "count", 1}},
		{"binds", 2, quantity{"binds", "count", 1}},
	} {
		if got := quantityFor(tc.unit, tc.mag); got != tc.want {
			t.Errorf("quantityFor(%q, %g) = %+v, want %+v", tc.unit, tc.mag, got, tc.want)
		}
	}
}

func TestNiceTicks(t *testing.T) {
	for _, tc := range []struct {
		min, max float64
		want     []string
	}{
		{-35, 22, []string{"-30", "-20", "-10", "0", "10", "20"}},
		{0, 100, []string{"0", "20", "40", "60", "80", "100"}},
		{1.2, 1.9, []string{"1.2", "1.4", "1.6", "1.8"}},
		{-0.004, 0.031, []string{"0", "0.01", "0.02", "0.03"}},
	} {
		var got []string
		for _, tk := range (niceTicks{}).Ticks(tc.min, tc.max) {
			got = append(got, tk.Label)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("niceTicks(%g, %g) = %q, want %q", tc.min, tc.max, got, tc.want)
		}
	}
}

// TestSweepLogY checks that a sweep whose values span more than a decade
// (a latency tail from 40ms down to 1ms) gets a log y axis
// (TestReportSweepPlots checks that one within a factor of 3 does not),
// and that the report's figures name their folder and series.
func TestSweepLogY(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "2026-12-02-vm-timeslice")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for round := range 6 {
		for i, v := range []string{"stock", "timeslice=500", "timeslice=5000"} {
			p99 := []float64{40e6, 1e6, 9e6}[i] + float64(round)*1e4
			fmt.Fprintf(&b, "variant: %s\npkg: w\nBenchmarkLatencyProbe-2\t400\t%d ns/op\t%g p99-wake-ns\n\n", v, 2000000+round, p99)
		}
	}
	os.WriteFile(filepath.Join(dir, results.RawFile), []byte(b.String()), 0o644)
	meta := results.Metadata{Suite: "workloads", Count: 6, Complete: true, Series: "e9dcce155a8c", Sweep: &results.SweepInfo{
		Knob: "timeslice", Values: []string{"500", "5000"}, Metrics: []string{"p99-wake-ns"},
	}}
	c, err := stats.CompareAgainst(filepath.Join(dir, results.RawFile), "stock")
	if err != nil {
		t.Fatal(err)
	}
	tab := c.Table("p99-wake-sec")
	p, err := sweepPlot(c, meta.Sweep, tab.Rows[0], "p99-wake-sec", map[int]float64{1: 500, 2: 5000}, []float64{500, 5000})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := p.Y.Scale.(plot.LogScale); !ok {
		t.Errorf("linear y axis for values from 1ms to 40ms")
	}
	plots, err := Write(dir, c, &meta)
	if err != nil {
		t.Fatal(err)
	}
	svg, _ := os.ReadFile(filepath.Join(dir, plots[0]))
	if !strings.Contains(string(svg), ">series e9dcce155a8c, results/2026-12-02-vm-timeslice</text>") {
		t.Errorf("%s does not name its series and folder", plots[0])
	}
}

// TestReportSkipsEmptyDeltas: a counter that only the other variants have
// (the base reads 0 in every round) has no change against the base, so
// the report draws no change plot for it; the units with a change get one.
func TestReportSkipsEmptyDeltas(t *testing.T) {
	plots := plotTwoVariants(t, func(round, i int) string {
		return fmt.Sprintf("%d ns/op\t%d numamem-syscalls/op", 2000+100*i+round, i*(5+round))
	})
	want := []string{filepath.Join(results.PlotsDir, "delta-sec-per-op.svg")}
	if !slices.Equal(plots, want) {
		t.Fatalf("plots %q, want %q (no change plot for a counter the base lacks)", plots, want)
	}
}

// TestDecimalLabel: a tick's label has the decimals its axis's step
// needs, so that evenly spaced ticks do not read unevenly.
func TestDecimalLabel(t *testing.T) {
	for _, c := range []struct {
		v, step float64
		want    string
	}{
		{2.35, 0.15, "2.35"},
		{2.5, 0.15, "2.5"},
		{2.65, 0.15, "2.65"},
		{0.05, 0.05, "0.05"},
		{10000, 2000, "10000"},
		{1.25, 0.25, "1.25"},
		{0.3333333, 1.0 / 3, "0.333"},
		{-0.2, 0.1, "-0.2"},
	} {
		if got := decimalLabel(c.v, c.step); got != c.want {
			t.Errorf("decimalLabel(%v, %v) = %q, want %q", c.v, c.step, got, c.want)
		}
	}
}

// TestReportSkipsConstantPlots: a unit no variant moves (every change
// zero) gets no change plot, and a share every run reads the same gets
// no level plot.
func TestReportSkipsConstantPlots(t *testing.T) {
	plots := plotTwoVariants(t, func(round, i int) string {
		return fmt.Sprintf("%d ns/op\t2 gomaxprocs\t100 local-steal-share\t%d runnext-share", 2000+100*i+round, 10+round+i)
	})
	for _, p := range plots {
		if strings.Contains(p, "gomaxprocs") || strings.Contains(p, "levels-local-steal-share") {
			t.Errorf("drew %s, whose every run reads the same", p)
		}
	}
	if !slices.Contains(plots, filepath.Join(results.PlotsDir, "levels-runnext-share.svg")) {
		t.Errorf("plots %q lack the level plot of runnext-share, which varies", plots)
	}
}

// TestCaptionPath: a figure's caption names its results folder, and a
// folder inside one (a tune run's confirm/) with its parent.
func TestCaptionPath(t *testing.T) {
	for dir, want := range map[string]string{
		"results/2026-12-07-vm-tune-latencyprobe/confirm": "series s, results/2026-12-07-vm-tune-latencyprobe/confirm",
		"/x/results/2026-12-07-vm-cost-sched/":            "series s, results/2026-12-07-vm-cost-sched",
		"runs/2026-12-07-vm-quick":                        "series s, results/2026-12-07-vm-quick",
	} {
		if got := Caption(dir, "s"); got != want {
			t.Errorf("Caption(%q) = %q, want %q", dir, got, want)
		}
	}
}

// plotTwoVariants writes six rounds of BenchmarkAlloc-2 for the variants
// base and other, whose result values in round for variant i (0 for
// base) are values(round, i), and returns the plots Write draws.
func plotTwoVariants(t *testing.T, values func(round, i int) string) []string {
	t.Helper()
	dir := t.TempDir()
	var b strings.Builder
	for round := range 6 {
		for i, v := range []string{"base", "other"} {
			fmt.Fprintf(&b, "variant: %s\npkg: w\nBenchmarkAlloc-2\t400\t%s\n\n", v, values(round, i))
		}
	}
	os.WriteFile(filepath.Join(dir, results.RawFile), []byte(b.String()), 0o644)
	meta := results.Metadata{Suite: "workloads", Count: 6, Complete: true,
		Variants: []results.VariantMeta{{Name: "base"}, {Name: "other"}}}
	c, err := stats.CompareAgainst(filepath.Join(dir, results.RawFile), "base")
	if err != nil {
		t.Fatal(err)
	}
	plots, err := Write(dir, c, &meta)
	if err != nil {
		t.Fatal(err)
	}
	return plots
}

// TestDeltaXLabelSaysWhatIsDrawn: a change plot promises whiskers only
// where it draws them.
func TestDeltaXLabelSaysWhatIsDrawn(t *testing.T) {
	nan := math.NaN()
	mark := func(lo, hi float64) []*rowMarks {
		return []*rowMarks{{center: []float64{5}, lo: []float64{lo}, hi: []float64{hi}}}
	}
	for _, c := range []struct {
		marks []*rowMarks
		want  string
	}{
		{mark(1, 9), "whiskers: range the two CIs"},
		{mark(nan, nan), "no whiskers: too few runs"},
		{append(mark(1, 9), mark(nan, nan)...), "where both CIs exist"},
	} {
		if got := deltaXLabel(c.marks); !strings.Contains(got, c.want) {
			t.Errorf("deltaXLabel = %q, want it to say %q", got, c.want)
		}
	}
}
