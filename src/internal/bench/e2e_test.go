package bench

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/schedlab/schedlab/src/internal/report"
	"github.com/schedlab/schedlab/src/internal/results"
	"github.com/schedlab/schedlab/src/internal/toolchain"
)

// smokeSuite returns the repository root and the smoke suite, the tiny
// suite the end-to-end tests run.
func smokeSuite(t *testing.T) (string, *Suite) {
	t.Helper()
	root, err := toolchain.FindRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	suite, err := LoadSuite(root, "smoke")
	if err != nil {
		t.Fatal(err)
	}
	return root, suite
}

// TestEndToEnd runs a tiny suite with two variants of the stock toolchain
// and checks the results folder. It needs the stock toolchain (downloaded
// through the module proxy) and a build of the workloads test binary.
func TestEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: builds a test binary with the stock toolchain")
	}
	root, suite := smokeSuite(t)
	smoke := suite.Targets[0]
	// A benchmark that matches nothing and one that times out: both must
	// be reported by name, and the others' results kept.
	nope := smoke
	nope.Name, nope.Bench = "workloads.Nope", "^BenchmarkNope$"
	slow := smoke
	slow.Name, slow.Benchtime, slow.Timeout = "workloads.SlowSmoke", "1000000000x", 500*time.Millisecond
	suite.Targets = append(suite.Targets, nope, slow)

	vs, err := ParseVariants([]string{"a=stock", "b=stock"})
	if err != nil {
		t.Fatal(err)
	}
	// b runs under a wrapper, as an oracle variant runs under numactl.
	if err := ApplyWrappers(vs, []string{"b=env SCHEDLAB_WRAPPED=1"}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "res")
	var progress bytes.Buffer
	meta, err := Run(context.Background(), Options{
		Root: root, Suite: suite, Variants: vs, Count: 2, Out: out, Stderr: &progress, Timeout: time.Minute, Trace: true,
	})
	t.Logf("progress:\n%s", progress.String())
	if !errors.Is(err, ErrFailures) {
		t.Fatalf("Run error = %v, want ErrFailures", err)
	}
	failures := strings.Join(meta.Failures, "\n")
	for _, want := range []string{"workloads.Nope [a]: no benchmark results", "workloads.SlowSmoke [b] timed out"} {
		if !strings.Contains(failures, want) {
			t.Errorf("failures lack %q:\n%s", want, failures)
		}
	}
	for _, want := range []string{"round 1 of 2", "round 2 of 2", "workloads.Smoke [a]", "about"} {
		if !strings.Contains(progress.String(), want) {
			t.Errorf("progress lacks %q", want)
		}
	}
	raw, err := os.ReadFile(filepath.Join(out, results.RawFile))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(raw), "\nBenchmarkSmoke-"); n != 4 {
		t.Errorf("bench.txt has %d Smoke results, want 4 (2 rounds x 2 variants):\n%s", n, raw)
	}
	upstream, err := toolchain.ReadUpstream(filepath.Join(root, "toolchain", "UPSTREAM"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"variant: a\n", "variant: b\n", "toolchain: " + upstream + "\n", "godebug: none\n", "upstream: ", "series: none\n", "gomaxprocs: ", "cpu: ", "numa-nodes: "} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("bench.txt lacks %q", want)
		}
	}
	if meta.Project.Commit == "" || meta.Project.Commit == "unknown" || meta.Project.HostGo == "" || meta.Machine.Virtualization == "" {
		t.Errorf("metadata lacks provenance: project %+v, machine %+v", meta.Project, meta.Machine)
	}
	if len(meta.Variants) != 2 || meta.Variants[0].Binaries["workloads"] == "" ||
		meta.Variants[0].Binaries["workloads"] != meta.Variants[1].Binaries["workloads"] {
		t.Errorf("variants of one toolchain must share one binary: %+v", meta.Variants)
	}

	log, _ := os.ReadFile(filepath.Join(out, results.LogFile))
	if !strings.Contains(string(log), "[b]: env SCHEDLAB_WRAPPED=1 ") {
		t.Errorf("log.txt does not show b's runs under their wrapper")
	}
	if meta.Physical == nil || len(meta.Physical.Measured)+len(meta.Physical.Unavailable) == 0 {
		t.Errorf("metadata does not say what physical evidence was collected: %+v", meta.Physical)
	}
	phys, err := os.ReadFile(filepath.Join(out, results.PhysicalFile))
	if err != nil {
		t.Fatal(err)
	}
	if measured(meta, "/proc/vmstat") {
		if n := strings.Count(string(phys), "\nBenchmarkSmoke 1 "); n != 4 || !strings.Contains(string(phys), " numa-hit/run") {
			t.Errorf("physical.txt has %d Smoke lines, want 4 with numa-hit/run:\n%s", n, phys)
		}
	}

	// -trace: one traced run per variant and target that ran, after
	// the rounds; stock toolchains trace without steal events.
	var traced int
	for _, tm := range meta.Traces {
		if tm.Target != "workloads.Smoke" {
			continue
		}
		traced++
		if fi, err := os.Stat(filepath.Join(out, tm.File)); err != nil || fi.Size() == 0 {
			t.Errorf("trace %s of %s [%s] missing: %v", tm.File, tm.Target, tm.Variant, err)
		}
		if tm.Events || strings.Contains(tm.GODEBUG, "tracesteal") {
			t.Errorf("stock trace %+v: want no steal events and no tracesteal", tm)
		}
	}
	if traced != 2 {
		t.Errorf("%d traced Smoke runs, want 2 (one per variant): %+v", traced, meta.Traces)
	}
	if n := strings.Count(string(raw), "\nBenchmarkSmoke-"); n != 4 {
		t.Errorf("traced runs leaked into bench.txt: %d Smoke results", n)
	}

	res, err := report.Write(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{results.ReadmeFile, results.BenchstatFile, results.CSVFile, results.RunsFile, results.LogFile, results.MetadataFile, "plots/delta-sec-per-op.svg"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("results folder lacks %s", f)
		}
	}
	readme, _ := os.ReadFile(filepath.Join(out, results.ReadmeFile))
	for _, want := range []string{"## Verdicts", "**b vs a**", "workloads.Nope", "timed out", "## Physical evidence", "## Execution traces"} {
		if !strings.Contains(string(readme), want) {
			t.Errorf("README lacks %q", want)
		}
	}
	if strings.Contains(string(readme), "## Gap to the oracle") {
		t.Errorf("README treats b, run under env rather than numactl, as an oracle")
	}
	if strings.Contains(string(readme), "Self-check passed") {
		t.Errorf("README treats b, run under a wrapper, as a control of a")
	}
	if !strings.Contains(res.Benchstat, "Smoke-") {
		t.Errorf("benchstat output lacks Smoke:\n%s", res.Benchstat)
	}
	// A second bench into the same folder must refuse, not mix results.
	if _, err := Run(context.Background(), Options{Root: root, Suite: suite, Variants: vs, Count: 1, Out: out}); err == nil || !strings.Contains(err.Error(), "already holds results") {
		t.Errorf("second Run into %s: %v", out, err)
	}
}

func TestBenchMissingToolchain(t *testing.T) {
	root, suite := smokeSuite(t)
	vs, _ := ParseVariants([]string{"x=/nonexistent/goroot"})
	_, err := Run(context.Background(), Options{Root: root, Suite: suite, Variants: vs, Count: 1, Out: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "toolchain /nonexistent/goroot: no bin/go") {
		t.Errorf("missing toolchain: err = %v", err)
	}
}

// TestEndToEndCopies runs the smoke benchmark as two processes side by
// side: bench.txt gets one line per run (their mean), copies.txt both
// copies' lines, and physical.txt every CPU's busy share.
func TestEndToEndCopies(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: builds a test binary with the stock toolchain")
	}
	root, suite := smokeSuite(t)
	vs, err := ParseVariants([]string{"a=stock"})
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "res")
	meta, err := Run(context.Background(), Options{
		Root: root, Suite: suite, Variants: vs, Count: 2, Out: out, Stderr: io.Discard, Timeout: time.Minute, Copies: 2,
	})
	if err != nil {
		t.Fatal(err)
	}
	if meta.Copies != 2 {
		t.Errorf("metadata copies = %d, want 2", meta.Copies)
	}
	read := func(name string) string {
		data, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	if raw := read(results.RawFile); strings.Count(raw, "\nBenchmarkSmoke-") != 2 {
		t.Errorf("bench.txt: want 2 Smoke results (2 rounds, the copies' mean):\n%s", raw)
	}
	copies := read(results.CopiesFile)
	if strings.Count(copies, "\nBenchmarkSmoke-") != 4 || strings.Count(copies, "copy: 1\n") != 2 || strings.Count(copies, "copy: 2\n") != 2 {
		t.Errorf("copies.txt: want 4 Smoke results, 2 per copy:\n%s", copies)
	}
	if log := read(results.LogFile); strings.Count(log, "(2 copies)") != 2 || strings.Count(log, "--- copy 2\n") != 2 {
		t.Errorf("log.txt does not show two copies per run")
	}
	if measured(meta, "each CPU's busy share") {
		if phys := read(results.PhysicalFile); strings.Count(phys, " cpu0-busy-share") != 2 {
			t.Errorf("physical.txt: want cpu0-busy-share on both runs:\n%s", phys)
		}
	}
	if _, err := report.Write(out); err != nil {
		t.Fatal(err)
	}
	if readme := read("README.md"); !strings.Contains(readme, "started 2 copies") {
		t.Errorf("README does not say the runs started 2 copies")
	}
}

// measured reports whether the physical evidence of the run of meta
// includes the collector whose description starts with what: the probe
// leaves out what the machine cannot give.
func measured(meta *results.Metadata, what string) bool {
	return meta.Physical != nil && slices.ContainsFunc(meta.Physical.Measured, func(m string) bool { return strings.HasPrefix(m, what) })
}
