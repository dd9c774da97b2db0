package report

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/src/internal/results"
	"github.com/schedlab/schedlab/src/internal/stats"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// reportFixture copies the fixed results folder testdata/in to a
// temporary directory and returns it.
func reportFixture(t *testing.T) string {
	dir := t.TempDir()
	for _, f := range []string{results.RawFile, results.MetadataFile} {
		data, err := os.ReadFile(filepath.Join("testdata", "in", f))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, f), data, 0o644)
	}
	return dir
}

// TestReportGolden runs Report on a fixed results folder
// (testdata/in) and compares the text it writes with testdata/golden.
func TestReportGolden(t *testing.T) {
	dir := reportFixture(t)
	res, err := Write(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{results.ReadmeFile, results.BenchstatFile, results.CSVFile} {
		got, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		golden := filepath.Join("testdata", "golden", f)
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
	if _, err := Write(t.TempDir()); err == nil || !strings.Contains(err.Error(), "not a schedlab results folder") {
		t.Errorf("Write(empty dir) = %v", err)
	}
}

// TestReportFindings checks that hand-written findings head the README
// and survive a second report.
func TestReportFindings(t *testing.T) {
	dir := reportFixture(t)
	const found = "The patched runtime costs nothing measurable here."
	os.WriteFile(filepath.Join(dir, results.FindingsFile), []byte(found+"\n"), 0o644)
	for range 2 {
		if _, err := Write(dir); err != nil {
			t.Fatal(err)
		}
		readme, err := os.ReadFile(filepath.Join(dir, results.ReadmeFile))
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

// TestReportAllContended is the main job on a busy machine: every run
// was short of CPU. The report still writes its tables and verdicts and
// says why there is no comparison without those runs.
func TestReportAllContended(t *testing.T) {
	dir := reportFixture(t)
	raw, err := os.ReadFile(filepath.Join(dir, results.RawFile))
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
	os.WriteFile(filepath.Join(dir, results.RawFile), []byte(strings.Join(lines, "\n")), 0o644)
	mp := filepath.Join(dir, results.MetadataFile)
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

	res, err := Write(dir)
	if err != nil {
		t.Fatalf("Write with every run short of CPU: %v", err)
	}
	if res.Uncontended != nil || !strings.Contains(res.UncontendedSkipped, "short of CPU") {
		t.Errorf("Uncontended = %v, UncontendedSkipped = %q", res.Uncontended, res.UncontendedSkipped)
	}
	readme, _ := os.ReadFile(filepath.Join(dir, results.ReadmeFile))
	if !strings.Contains(string(readme), "## Verdicts\n\nEvery verdict below includes runs that were short of CPU: all ") ||
		!strings.Contains(string(readme), "## Tables") {
		t.Errorf("README lacks the verdicts, the tables or the line saying why:\n%s", readme)
	}
	v := res.Verdicts(&results.Metadata{})
	if len(v) < 2 || !strings.HasPrefix(v[len(v)-1], "no verdicts without runs short of CPU: all ") {
		t.Errorf("Verdicts = %q", v)
	}
	if _, err := os.Stat(filepath.Join(dir, results.UncontendedRawFile)); err == nil {
		t.Errorf("%s written with nothing in it", results.UncontendedRawFile)
	}
}

// TestOracleGap: with stock at 100, an oracle at 80 and a variant at 90
// (ns/op), the variant closes half the gap; a benchmark where the
// oracle does not differ has no gap to close.
func TestOracleGap(t *testing.T) {
	var b strings.Builder
	for i := range 10 {
		for _, v := range []struct {
			name       string
			fast, flat float64
		}{{"stock", 100, 50}, {"oracle", 80, 50}, {"numa", 90, 45}, {"slow", 110, 55}} {
			jitter := float64(i%5) * 0.1
			fmt.Fprintf(&b, "variant: %s\nBenchmarkFast 1000 %g ns/op\nBenchmarkFlat 1000 %g ns/op\n", v.name, v.fast+jitter, v.flat+jitter)
		}
	}
	path := filepath.Join(t.TempDir(), "bench.txt")
	os.WriteFile(path, []byte(b.String()), 0o644)
	c, err := stats.Compare([]string{path}, stats.CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	meta := &results.Metadata{Variants: []results.VariantMeta{{Name: "stock"}, {Name: "oracle", Wrapper: []string{"numactl", "--membind=0"}}, {Name: "numa"},
		{Name: "slow", Wrapper: []string{"numactl", "--interleave=all"}}}}
	markWrapped(c, meta)
	got := oracleGap(meta, c)
	for _, want := range []string{
		"oracle: `numactl --membind=0`",
		"| benchmark | oracle vs stock | numa |",
		"| Fast | -20.0% (p=0.000) | 50% |",
		"| Flat | ~ (±0.8%) | no gap |",
		"| Fast | +10.0% (p=0.000) | oracle slower |",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("oracle gap lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(c.ColID[1], "numactl") == strings.Contains(c.ColID[0], "numactl") {
		t.Errorf("ColID does not tell the wrapped oracle from stock: %q", c.ColID)
	}
	if oracleGap(&results.Metadata{Variants: meta.Variants[:1]}, c) != "" {
		t.Errorf("a folder without an oracle variant got a gap section")
	}
}

func TestWriteTraces(t *testing.T) {
	meta := &results.Metadata{Traces: []results.TraceMeta{
		{Variant: "wake", Target: "workloads.ForkJoinTree", File: "traces/ForkJoinTree-wake.trace", Dir: "traces/ForkJoinTree-wake",
			Steals: 212, Moved: 1829, Local: 1683, Remote: 146, Hops: 4, Events: true},
		{Variant: "stock", Target: "workloads.ForkJoinTree", File: "traces/ForkJoinTree-stock.trace"},
		{Variant: "bind1", Target: "workloads.ForkJoinTree", Error: "traced run failed: exit status 1"},
	}}
	var b strings.Builder
	writeTraces(func(f string, a ...any) { fmt.Fprintf(&b, f, a...) }, meta)
	for _, want := range []string{
		"## Execution traces",
		"| workloads.ForkJoinTree | wake | 212 | 1829 | 1683 (92.0%) | 146 | 4 | 0 | 0 | [svg](traces/ForkJoinTree-wake/steal-matrix.svg) |",
		"| workloads.ForkJoinTree | stock | no steal events (a stock toolchain)",
		"| workloads.ForkJoinTree | bind1 | traced run failed: exit status 1 |",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("traces section lacks %q:\n%s", want, b.String())
		}
	}
}

// TestSchedLatencyNote: a folder whose workloads report the sched-latency
// units gets golang/go#79391's caveat wherever the README shows them
// (the tables, the verdicts, the plots) and in benchstat.txt, once per
// place; the fixture without them gets none (TestReportGolden).
func TestSchedLatencyNote(t *testing.T) {
	dir := reportFixture(t)
	raw, err := os.ReadFile(filepath.Join(dir, results.RawFile))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(raw), "\n")
	n, slow := 0, 0
	for i, line := range lines {
		if v, ok := strings.CutPrefix(line, "variant: "); ok {
			slow = 0
			if v == "slice1ms" {
				slow = 1 // so that both units have a change to plot
			}
		}
		if strings.HasPrefix(line, "BenchmarkForkJoinTree-2\t") {
			lines[i] = fmt.Sprintf("%s\t%d p50-sched-latency-ns\t%d p99-sched-latency-ns", line, 768+n%3*256+slow*512, 393216+n%4*65536)
			n++
		}
	}
	if n == 0 {
		t.Fatal("the fixture has no BenchmarkForkJoinTree lines")
	}
	os.WriteFile(filepath.Join(dir, results.RawFile), []byte(strings.Join(lines, "\n")), 0o644)
	res, err := Write(dir)
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(dir, results.ReadmeFile))
	if err != nil {
		t.Fatal(err)
	}
	s := string(readme)
	section := func(name string) string {
		_, rest, ok := strings.Cut(s, "## "+name+"\n")
		if !ok {
			t.Fatalf("README has no %s section:\n%s", name, s)
		}
		if i := strings.Index(rest, "\n## "); i >= 0 {
			rest = rest[:i]
		}
		return rest
	}
	note := stats.SchedLatencyNote
	for _, c := range []struct {
		section string
		want    int
	}{
		{"Verdicts", 1}, // once under every variant's verdicts
		{"Tables", 2},   // under p50- and p99-sched-latency-sec
		{"Plots", 2},    // under their two delta plots
	} {
		if got := strings.Count(section(c.section), note); got != c.want {
			t.Errorf("%s section has the note %d times, want %d:\n%s", c.section, got, c.want, section(c.section))
		}
	}
	if !strings.Contains(section("Plots"), "delta-p99-sched-latency-sec.svg)\n\nNote: "+note) {
		t.Errorf("the note is not under the p99-sched-latency-sec plot:\n%s", section("Plots"))
	}
	bs, _ := os.ReadFile(filepath.Join(dir, results.BenchstatFile))
	if got := strings.Count(string(bs), "note: "+note); got != 2 {
		t.Errorf("%s has the note %d times, want 2 (one per sched-latency table)", results.BenchstatFile, got)
	}
	if !strings.Contains(note, "golang/go#79391") || !strings.Contains(note, "schedlab trace -latency") || !strings.Contains(note, "go1.26") {
		t.Errorf("the note does not name the issue, the go1.26 change and the trace's measure: %q", note)
	}

	// The terminal summary: a sweep of p99-sched-latency-sec shows it,
	// and its note closes the list; sec/op alone carries none.
	sweep := &results.Metadata{Sweep: &results.SweepInfo{Metrics: []string{"p99-sched-latency-ns"}}}
	v := res.Verdicts(sweep)
	if len(v) == 0 || v[len(v)-1] != "note: "+note {
		t.Errorf("sweep verdicts do not end with the note: %q", v)
	}
	for _, line := range res.Verdicts(&results.Metadata{}) {
		if strings.Contains(line, note) {
			t.Errorf("verdicts on sec/op and cpu-sec/op carry the note: %q", line)
		}
	}
}
