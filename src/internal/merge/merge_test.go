package merge

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"

	"github.com/schedlab/schedlab/src/internal/benchstattest"
	"github.com/schedlab/schedlab/src/internal/physical"
	"github.com/schedlab/schedlab/src/internal/results"
	"github.com/schedlab/schedlab/src/internal/resultstest"
	"github.com/schedlab/schedlab/src/internal/stats"
	"github.com/schedlab/schedlab/src/internal/toolchain"
)

// readMerged parses a merged benchmark file and returns its results'
// host and topology values and how many results it holds.
func readMerged(t *testing.T, path string) (hosts, topos []string, n int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := benchfmt.NewReader(f, path)
	for r.Scan() {
		switch rec := r.Result().(type) {
		case *benchfmt.SyntaxError:
			t.Errorf("%s: %v", path, rec)
		case *benchfmt.Result:
			n++
			h, topo := rec.GetConfig("host"), rec.GetConfig("topology")
			if h == "" || topo == "" {
				t.Errorf("%s: result %s lacks host or topology (host %q, topology %q)", path, rec.Name.Full(), h, topo)
			}
			if rec.GetConfig("variant") == "" {
				t.Errorf("%s: result %s lost its variant", path, rec.Name.Full())
			}
			if !slices.Contains(hosts, h) {
				hosts = append(hosts, h)
			}
			if !slices.Contains(topos, topo) {
				topos = append(topos, topo)
			}
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return hosts, topos, n
}

func TestMerge(t *testing.T) {
	tmp := t.TempDir()
	a, b := filepath.Join(tmp, "a"), filepath.Join(tmp, "b")
	doc := &physical.Doctor{Nodes: []physical.DoctorNode{{ID: 0, CPUs: "0-3", Distances: "10 21"}, {ID: 1, CPUs: "4-7", Distances: "21 10"}}, Warnings: []string{"numa balancing on"}}
	resultstest.WriteFolder(t, a, resultstest.Host{Name: "alpha", Doctor: doc, Physical: true})
	resultstest.WriteFolder(t, b, resultstest.Host{Name: "beta", Procs: 4}) // rows Fast-4, Same-4: they line up with alpha's Fast-8, Same-8
	out := filepath.Join(tmp, "merged")
	res, err := Folders(out, []string{a, b}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := []string{res.Sources[0].Host, res.Sources[1].Host}; !slices.Equal(got, []string{"alpha", "beta"}) {
		t.Errorf("hosts %v", got)
	}
	if got, want := res.Sources[0].Topology, "2 node(s), 8 CPUs; node0 0-3, node1 4-7"; got != want {
		t.Errorf("topology with doctor: %q, want %q", got, want)
	}
	if got, want := res.Sources[1].Topology, "2 node(s), 8 CPUs"; got != want {
		t.Errorf("topology without doctor: %q, want %q", got, want)
	}
	for _, s := range res.Sources {
		if s.Base != "stock" || s.Results != 24 {
			t.Errorf("%s: base %q, %d results; want stock, 24", s.Host, s.Base, s.Results)
		}
	}

	hosts, topos, n := readMerged(t, filepath.Join(out, results.RawFile))
	if !slices.Equal(hosts, []string{"alpha", "beta"}) || len(topos) != 2 || n != 48 {
		t.Errorf("merged bench.txt: hosts %v, topologies %q, %d results; want alpha, beta, 2, 48", hosts, topos, n)
	}
	// Only a has physical.txt; the merged one holds its results.
	hosts, _, n = readMerged(t, filepath.Join(out, results.PhysicalFile))
	if !slices.Equal(hosts, []string{"alpha"}) || n != 12 {
		t.Errorf("merged physical.txt: hosts %v, %d results; want alpha, 12", hosts, n)
	}
	// The merged file still compares: per host, the same tables.
	c, err := stats.Compare([]string{filepath.Join(out, results.RawFile)}, stats.CompareOptions{Col: "host"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(c.Cols, []string{"alpha", "beta"}) {
		t.Errorf("merged bench.txt by host: columns %v", c.Cols)
	}

	if _, err := os.Stat(filepath.Join(out, results.MetadataFile)); err == nil {
		t.Errorf("merge wrote %s", results.MetadataFile)
	}
	var rec Result
	data, err := os.ReadFile(filepath.Join(out, RecordFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatal(err)
	}
	if len(rec.Sources) != 2 || rec.Sources[0].Path != a || rec.Sources[0].Suite != "workloads" || !slices.Equal(rec.Sources[0].Variants, []string{"stock", "patched"}) || rec.Sources[0].Count != 6 {
		t.Errorf("%s: sources %+v", RecordFile, rec.Sources)
	}

	bs, err := os.ReadFile(filepath.Join(out, results.BenchstatFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# host alpha\n", "# host beta\n", "vs stock"} {
		if !strings.Contains(string(bs), want) {
			t.Errorf("%s lacks %q:\n%s", results.BenchstatFile, want, bs)
		}
	}

	readme, err := os.ReadFile(filepath.Join(out, results.ReadmeFile))
	if err != nil {
		t.Fatal(err)
	}
	rd := string(readme)
	for _, want := range []string{
		"| alpha |", "| beta |", "schedlab merge -out " + out + " " + a + " " + b,
		"### sec/op", "### on-node-share",
		"| Fast | patched | -20.0% (p=0.002) | -20.0% (p=0.002) |", // a delta cell, per host
		"| Same | patched | ~ (±0.2%) | ~ (±0.2%) |",
		"| Fast | patched | +37.4% (p=0.002) | +37.4% (p=0.002) |", // on-node-share
		"benchstat -col variant -row .fullname,host -ignore toolchain,godebug,series bench.txt",
		"benchstat -filter host:alpha -col 'variant@(stock patched)' -ignore toolchain,godebug,series bench.txt",
		"| 2 node(s), 8 CPUs; node0 0-3, node1 4-7 |", "| 1 |", "no doctor report",
	} {
		if !strings.Contains(rd, want) {
			t.Errorf("README lacks %q:\n%s", want, rd)
		}
	}
	if strings.Contains(rd, "## Warnings") {
		t.Errorf("README has warnings for matching folders:\n%s", rd)
	}
}

func TestMergeDuplicateHosts(t *testing.T) {
	tmp := t.TempDir()
	dirs := []string{filepath.Join(tmp, "run1"), filepath.Join(tmp, "run2"), filepath.Join(tmp, "x", "run1"), filepath.Join(tmp, "other")}
	for i, d := range dirs {
		h := resultstest.Host{Name: "vm"}
		if i == 3 {
			h = resultstest.Host{Name: "solo", Series: "aaaaaaaaaaaa"}
		}
		resultstest.WriteFolder(t, d, h)
	}
	res, err := Folders(filepath.Join(tmp, "out"), dirs, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range res.Sources {
		got = append(got, s.Host)
	}
	// run1 and x/run1 share a base name: their labels take as much of
	// the path as tells them apart.
	want := []string{"vm (" + filepath.Base(tmp) + "/run1)", "vm (run2)", "vm (x/run1)", "solo"}
	if !slices.Equal(got, want) {
		t.Errorf("host labels %q, want %q", got, want)
	}
	hosts, _, _ := readMerged(t, filepath.Join(tmp, "out", results.RawFile))
	if !slices.Equal(hosts, want) {
		t.Errorf("merged bench.txt hosts %q, want %q", hosts, want)
	}
	// Different series: allowed, with a warning.
	readme, err := os.ReadFile(filepath.Join(tmp, "out", results.ReadmeFile))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "## Warnings") || !strings.Contains(string(readme), "different patch series") {
		t.Errorf("README does not warn of the different series:\n%s", readme)
	}
	if _, err := os.Stat(filepath.Join(tmp, "out", results.PhysicalFile)); err == nil {
		t.Errorf("merge wrote %s though no source has one", results.PhysicalFile)
	}
}

func TestMergeErrors(t *testing.T) {
	tmp := t.TempDir()
	good := filepath.Join(tmp, "good")
	resultstest.WriteFolder(t, good, resultstest.Host{Name: "h"})
	empty := filepath.Join(tmp, "not-results")
	os.MkdirAll(empty, 0o755)
	noBench := filepath.Join(tmp, "no-bench")
	resultstest.WriteFolder(t, noBench, resultstest.Host{Name: "h"})
	os.Remove(filepath.Join(noBench, results.RawFile))

	if _, err := Folders(filepath.Join(tmp, "o0"), nil, nil); err == nil {
		t.Errorf("merging no folders: no error")
	}
	for _, bad := range []string{empty, noBench, filepath.Join(tmp, "missing")} {
		_, err := Folders(filepath.Join(tmp, "o1"), []string{good, bad}, nil)
		if err == nil || !strings.Contains(err.Error(), bad) || !strings.Contains(err.Error(), "not a schedlab results folder") {
			t.Errorf("merging %s: %v; want an error naming it", bad, err)
		}
	}
	if _, err := os.Stat(filepath.Join(tmp, "o1", results.RawFile)); err == nil {
		t.Errorf("a failed merge wrote %s", results.RawFile)
	}
	// An out folder that holds results is refused (a source is one).
	if _, err := Folders(good, []string{good}, nil); err == nil || !strings.Contains(err.Error(), "already holds results") {
		t.Errorf("merging into a results folder: %v", err)
	}
	// A single folder merges.
	if _, err := Folders(filepath.Join(tmp, "o2"), []string{good}, nil); err != nil {
		t.Errorf("merging one folder: %v", err)
	}
}

// TestMergeBenchstatReproducesHosts merges two committed results
// folders and runs the real benchstat with the README's per-host
// command lines: each must reproduce that host's tables in
// benchstat.txt, and the all-hosts command must run.
func TestMergeBenchstatReproducesHosts(t *testing.T) {
	if testing.Short() {
		t.Skip("builds benchstat")
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command: %v", err)
	}
	root, err := toolchain.FindRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, f := range []string{"2026-11-30-vm-numa-3", "2026-11-30-vm-cost-workloads-4"} {
		d := filepath.Join(root, "results", f)
		if _, err := os.Stat(filepath.Join(d, results.RawFile)); err != nil {
			t.Skipf("%s: %v", f, err)
		}
		dirs = append(dirs, d)
	}
	out := filepath.Join(t.TempDir(), "merged")
	res, err := Folders(out, dirs, nil)
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "benchstat")
	build := exec.Command(goCmd, "build", "-o", bin, "golang.org/x/perf/cmd/benchstat")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build golang.org/x/perf/cmd/benchstat: %v\n%s", err, out)
	}
	run := func(args []string) []byte {
		cmd := exec.Command(bin, args...)
		cmd.Dir = out
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		got, err := cmd.Output()
		if err != nil {
			t.Fatalf("benchstat %s: %v\n%s", strings.Join(args, " "), err, stderr.Bytes())
		}
		return got
	}
	run(mergeBenchstatArgs)
	for i, s := range res.Sources {
		t.Run(s.Host, func(t *testing.T) {
			var tb bytes.Buffer
			res.Comparisons[i].WriteText(&tb)
			want, err := benchstattest.Parse(tb.String(), true)
			if err != nil {
				t.Fatal(err)
			}
			got, err := benchstattest.Parse(string(run(hostBenchstatArgs(s.Host, res.Comparisons[i]))), false)
			if err != nil {
				t.Fatal(err)
			}
			benchstattest.Compare(t, got, want)
		})
	}
}

func TestCrossHostNames(t *testing.T) {
	rows := func(names ...string) *stats.UnitTable {
		t := &stats.UnitTable{}
		for _, n := range names {
			t.Rows = append(t.Rows, &stats.Row{Name: n})
		}
		return t
	}
	for _, tc := range []struct{ in, want []string }{
		{[]string{"Fast-8", "Same-8", "Sub/n=2-8", "NoProcs"}, []string{"Fast", "Same", "Sub/n=2", "NoProcs"}},
		{[]string{"Fast-2", "Fast-8"}, []string{"Fast-2", "Fast-8"}}, // -test.cpu=2,8: keep them apart
		{[]string{"Odd-", "-8"}, []string{"Odd-", "-8"}},
	} {
		if got := crossHostNames(rows(tc.in...)); !slices.Equal(got, tc.want) {
			t.Errorf("crossHostNames(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
