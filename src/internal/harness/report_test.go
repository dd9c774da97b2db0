package harness

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// TestReportGolden runs Report on a fixed results folder
// (testdata/report/in) and compares the text it writes with
// testdata/report/golden.
func TestReportGolden(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{RawFile, MetadataFile} {
		data, err := os.ReadFile(filepath.Join("testdata", "report", "in", f))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, f), data, 0o644)
	}
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
	dir := t.TempDir()
	for _, f := range []string{RawFile, MetadataFile} {
		data, err := os.ReadFile(filepath.Join("testdata", "report", "in", f))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, f), data, 0o644)
	}
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
