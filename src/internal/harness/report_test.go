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
	if !strings.Contains(string(sweep), ">stock</text>") {
		t.Errorf("sweep plot has no stock reference line")
	}
	tradeoff, _ := os.ReadFile(filepath.Join(dir, want[1]))
	for _, label := range []string{">1000</text>", ">2000</text>"} {
		if !strings.Contains(string(tradeoff), label) {
			t.Errorf("trade-off plot lacks point label %s", label)
		}
	}
}
