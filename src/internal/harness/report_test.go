package harness

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// reportFixture copies the fixed results folder testdata/report/in to a
// temporary directory and returns it.
func reportFixture(t *testing.T) string {
	dir := t.TempDir()
	for _, f := range []string{RawFile, MetadataFile} {
		data, err := os.ReadFile(filepath.Join("testdata", "report", "in", f))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, f), data, 0o644)
	}
	return dir
}

// TestReportGolden runs Report on a fixed results folder
// (testdata/report/in) and compares the text it writes with
// testdata/report/golden.
func TestReportGolden(t *testing.T) {
	dir := reportFixture(t)
	res, err := Report(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{ReadmeFile, BenchstatFile, CSVFile} {
		got, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		golden := filepath.Join("testdata", "report", "golden", f)
		if *update {
			os.MkdirAll(filepath.Dir(golden), 0o755)
			os.WriteFile(golden, got, 0o644)
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%v (run go test -update to create it)", err)
		}
		if string(got) != string(want) {
			t.Errorf("%s differs from %s (go test -update rewrites it):\n%s", f, golden, got)
		}
	}
	if len(res.Plots) == 0 {
		t.Fatal("no plots")
	}
	for _, p := range res.Plots {
		data, err := os.ReadFile(filepath.Join(dir, p))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data[:min(len(data), 400)]), "<svg") {
			t.Errorf("%s is not an SVG", p)
		}
	}
}

func TestReportNotAFolder(t *testing.T) {
	if _, err := Report(t.TempDir()); err == nil || !strings.Contains(err.Error(), "not a schedlab results folder") {
		t.Errorf("Report(empty dir) = %v", err)
	}
}

// TestReportFindings checks that hand-written findings head the README
// and survive a second report.
func TestReportFindings(t *testing.T) {
	dir := reportFixture(t)
	const found = "The patched runtime costs nothing measurable here."
	os.WriteFile(filepath.Join(dir, FindingsFile), []byte(found+"\n"), 0o644)
	for range 2 {
		if _, err := Report(dir); err != nil {
			t.Fatal(err)
		}
		readme, err := os.ReadFile(filepath.Join(dir, ReadmeFile))
		if err != nil {
			t.Fatal(err)
		}
		s := string(readme)
		i, j := strings.Index(s, "## Findings\n\n"+found), strings.Index(s, "## What ran")
		if i < 0 || j < 0 || i > j {
			t.Fatalf("README does not start with the findings:\n%s", s)
		}
	}
}

// TestReportSweepPlots writes a small sweep (stock plus two timeslice
// values) and checks that Report draws the metric against the knob, with
// stock as a reference, and the requested trade-off plot.
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
	os.WriteFile(filepath.Join(dir, RawFile), []byte(b.String()), 0o644)
	meta := Metadata{Suite: "workloads", Count: 6, Complete: true, Sweep: &SweepInfo{
		Knob: "timeslice", Values: []string{"1000", "2000"}, Metrics: []string{"p99-wake-ns"},
		Tradeoffs: []string{"sysmon-wakeups/s:p99-wake-ns"},
	}}
	for _, v := range []string{"stock", "timeslice=1000", "timeslice=2000"} {
		meta.Variants = append(meta.Variants, VariantMeta{Name: v})
	}
	data, _ := json.Marshal(meta)
	os.WriteFile(filepath.Join(dir, MetadataFile), data, 0o644)
	res, err := Report(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		filepath.Join(PlotsDir, "sweep-p99-wake-sec-LatencyProbe-2.svg"),
		filepath.Join(PlotsDir, "tradeoff-p99-wake-sec-vs-sysmon-wakeups-per-s-LatencyProbe-2.svg"),
	}
	if !slices.Equal(res.Plots, want) {
		t.Fatalf("plots %q, want %q", res.Plots, want)
	}
	sweep, _ := os.ReadFile(filepath.Join(dir, want[0]))
	if !strings.Contains(string(sweep), ">stock (median, 95% CI band)</text>") {
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
	c, err := Compare([]string{filepath.Join(dir, RawFile)}, CompareOptions{})
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
		{"steals/op", 2, quantity{"steals per op", "", 1}},
		{"attempts/steal", 2, quantity{"attempts per steal", "", 1}},
	} {
		if got := quantityFor(tc.unit, tc.mag); got != tc.want {
			t.Errorf("quantityFor(%q, %g) = %+v, want %+v", tc.unit, tc.mag, got, tc.want)
		}
	}
}

func TestDropContendedRuns(t *testing.T) {
	raw := "\n# round 1, workloads.A\nvariant: stock\nBenchmarkA-2\t1\t10 ns/op\n" +
		"\n# round 1, workloads.A\nvariant: patched\nBenchmarkA-2\t1\t11 ns/op\n" +
		"\n# round 2, workloads.A\nvariant: stock\nBenchmarkA-2\t1\t99 ns/op\n" +
		"\n# round 2, workloads.A\nvariant: patched\nBenchmarkA-2\t1\t12 ns/op\n"
	drop := contendedRuns([]string{
		"round 2: workloads.A [stock]: other load took 0.78 CPUs (steal 0.00) during the run; it was short of CPU",
		"not a run flag",
	})
	if len(drop) != 1 || !drop[runKey{2, "workloads.A", "stock"}] {
		t.Fatalf("contendedRuns = %v", drop)
	}
	kept, n := dropRuns([]byte(raw), drop)
	if n != 1 {
		t.Errorf("dropped %d runs, want 1", n)
	}
	if strings.Contains(string(kept), "99 ns/op") || strings.Count(string(kept), "ns/op") != 3 {
		t.Errorf("kept:\n%s", kept)
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

// TestReportAllContended is the main job on a busy machine: every run
// was short of CPU. The report still writes its tables and verdicts and
// says why there is no comparison without those runs.
func TestReportAllContended(t *testing.T) {
	dir := reportFixture(t)
	raw, err := os.ReadFile(filepath.Join(dir, RawFile))
	if err != nil {
		t.Fatal(err)
	}
	// The fixture's runs are one block per round and variant, as if
	// each ran every benchmark as one target ("all").
	var flags []string
	var round int
	lines := strings.Split(string(raw), "\n")
	for i, line := range lines {
		if _, err := fmt.Sscanf(line, "# round %d", &round); err == nil {
			lines[i] = fmt.Sprintf("# round %d, workloads.all", round)
			continue
		}
		if v, ok := strings.CutPrefix(line, "variant: "); ok {
			flags = append(flags, fmt.Sprintf("round %d: workloads.all [%s]: other load took 1.50 CPUs (steal 0.00) during the run; it was short of CPU", round, strings.TrimSpace(v)))
		}
	}
	if len(flags) == 0 {
		t.Fatal("the fixture has no runs")
	}
	os.WriteFile(filepath.Join(dir, RawFile), []byte(strings.Join(lines, "\n")), 0o644)
	mp := filepath.Join(dir, MetadataFile)
	var meta map[string]any
	data, err := os.ReadFile(mp)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &meta); err != nil {
		t.Fatal(err)
	}
	meta["contended"] = flags
	data, _ = json.Marshal(meta)
	os.WriteFile(mp, data, 0o644)

	res, err := Report(dir)
	if err != nil {
		t.Fatalf("Report with every run short of CPU: %v", err)
	}
	if res.Uncontended != nil || !strings.Contains(res.UncontendedSkipped, "short of CPU") {
		t.Errorf("Uncontended = %v, UncontendedSkipped = %q", res.Uncontended, res.UncontendedSkipped)
	}
	readme, _ := os.ReadFile(filepath.Join(dir, ReadmeFile))
	if !strings.Contains(string(readme), "## Verdicts\n\nEvery verdict below includes runs that were short of CPU: all ") ||
		!strings.Contains(string(readme), "## Tables") {
		t.Errorf("README lacks the verdicts, the tables or the line saying why:\n%s", readme)
	}
	v := res.Verdicts(&Metadata{})
	if len(v) < 2 || !strings.HasPrefix(v[len(v)-1], "no verdicts without runs short of CPU: all ") {
		t.Errorf("Verdicts = %q", v)
	}
	if _, err := os.Stat(filepath.Join(dir, UncontendedRawFile)); err == nil {
		t.Errorf("%s written with nothing in it", UncontendedRawFile)
	}
}
