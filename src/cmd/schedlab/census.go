package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/schedlab/schedlab/src/internal/census"
	"github.com/schedlab/schedlab/src/internal/physical"
	"github.com/schedlab/schedlab/src/internal/results"
	"github.com/schedlab/schedlab/src/internal/toolchain"
)

// errGate is returned when the census gate fails.
var errGate = errors.New("census gate failed")

// cmdCensus counts instructions per unit of work of benchmarks/census's
// programs, stock against patched, and with -gate fails when patched
// costs more than -threshold on a gated workload.
func cmdCensus(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("census", flag.ExitOnError)
	layouts := fs.Int("layouts", 3, "link layouts per toolchain (-ldflags=-randlayout=1..N); the verdict is the median")
	threshold := fs.Float64("threshold", 0.2, "largest allowed patched/stock - 1, in percent, for ping-pong and the ring (fork-join is gated at 1%, see docs/census.md)")
	only := fs.String("workloads", "", "comma-separated workloads (default: all of "+workloadNames()+")")
	funcs := fs.Bool("funcs", false, "also write the per-function census (callgrind) to functions.md")
	gate := fs.Bool("gate", false, "exit 1 if a gated workload exceeds -threshold, printing its function census")
	out := fs.String("out", "", "results folder (default runs/<date>-<host>-census[-N]/)")
	fs.Parse(args)
	if fs.NArg() > 0 {
		return fmt.Errorf("census: unexpected arguments %q", fs.Args())
	}
	if *layouts < 1 {
		return fmt.Errorf("census: -layouts %d: want at least 1", *layouts)
	}
	r, err := root()
	if err != nil {
		return err
	}
	ws, gated, err := selectWorkloads(*only, *threshold/100)
	if err != nil {
		return err
	}
	upstream, err := toolchain.ReadUpstream(filepath.Join(r, "toolchain", "UPSTREAM"))
	if err != nil {
		return err
	}
	seriesHash, err := toolchain.SeriesHash(filepath.Join(r, "patches"))
	if err != nil {
		return err
	}
	stock, err := toolchain.Resolve(r, "stock", upstream, seriesHash)
	if err != nil {
		return err
	}
	patched, err := toolchain.Resolve(r, "patched", upstream, seriesHash)
	if err != nil {
		return err
	}
	dir := *out
	if dir == "" {
		dir = defaultOut(r, "census")
	}
	if dir, err = filepath.Abs(dir); err != nil {
		return err
	}
	started := time.Now()
	opt := census.StudyOptions{
		Dir:       filepath.Join(r, "benchmarks", "census"),
		Stock:     census.Side{Name: "stock", GOROOT: stock.GOROOT},
		Patched:   census.Side{Name: "patched", GOROOT: patched.GOROOT},
		Workloads: ws, Layouts: *layouts, Threshold: *threshold / 100, Out: dir, Funcs: *funcs, Log: os.Stderr,
		Footprint: filepath.Join(r, "benchmarks", "census", "hello"),
	}
	rows, err := census.Study(ctx, opt)
	if err != nil {
		return err
	}
	table := census.Table(rows, opt.Threshold, gated)
	meta := map[string]any{
		"command": commandLine(os.Args), "started": started.UTC().Truncate(time.Second), "finished": time.Now().UTC().Truncate(time.Second),
		"upstream": upstream, "series": seriesHash, "stock": stock.Version, "patched": patched.Version,
		"layouts": *layouts, "threshold_percent": *threshold, "gomaxprocs": 1, "godebug": "none",
		"project": results.ProbeProvenance(r), "machine": physical.ProbeMachine(),
	}
	data, _ := json.MarshalIndent(meta, "", "  ")
	if err := os.WriteFile(filepath.Join(dir, results.MetadataFile), append(data, '\n'), 0o644); err != nil {
		return err
	}
	readme := fmt.Sprintf("# Instruction census: stock %s vs patched %s\n\n"+
		"`%s`, %s, series `%s`. Instructions per unit of work under cachegrind (`--cache-sim=no`), "+
		"GOMAXPROCS=1, no GODEBUG: a run of N units less a run of none, over N, for each of %d link layouts "+
		"(`-ldflags=-randlayout=1..%d`); the columns are medians over layouts, the layout range is the larger "+
		"relative range of the two sides. Raw values: `census.txt` (benchfmt: `benchstat -col toolchain census.txt`).\n\n%s\n",
		stock.Version, patched.Version, commandLine(os.Args), census.Stamp(started), seriesHash, *layouts, *layouts, table)
	if *funcs {
		readme += "\nPer-function differences: [functions.md](functions.md).\n"
	}
	if fp, err := os.ReadFile(filepath.Join(dir, "footprint.md")); err == nil {
		readme += "\n## Footprint\n\nSection sizes of `benchmarks/census/hello` (a hello world, `-trimpath`):\n\n" + string(fp)
	}
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte(readme), 0o644); err != nil {
		return err
	}
	fmt.Print(table)
	fmt.Printf("\nresults: %s\n", dir)
	bad := census.Failed(rows, gated)
	if !*gate || len(bad) == 0 {
		return nil
	}
	for _, row := range bad {
		fmt.Printf("\ncensus gate: %s costs %+.3f%% instructions/op against stock (threshold %.2f%%, layout range %.3f%%)\n", row.Name, row.Ratio()*100, gated[row.Name]*100, row.Spread()*100)
	}
	if !*funcs {
		var fb strings.Builder
		o := opt
		o.Workloads = nil
		for _, row := range bad {
			o.Workloads = append(o.Workloads, row.Workload)
		}
		o.Funcs = true
		o.Footprint = ""
		o.Out = filepath.Join(dir, "gate-functions")
		if _, err := census.Study(ctx, o); err == nil {
			if b, err := os.ReadFile(filepath.Join(o.Out, "functions.md")); err == nil {
				fb.Write(b)
			}
		}
		fmt.Print(head(fb.String(), 40))
	}
	return errGate
}

func workloadNames() string {
	var names []string
	for _, w := range census.Workloads {
		names = append(names, w.Name)
	}
	return strings.Join(names, ",")
}

// selectWorkloads returns the named workloads (all if only is empty)
// and the gate's threshold for each (0: not gated); workloads gated at
// the default get threshold.
func selectWorkloads(only string, threshold float64) ([]census.Workload, map[string]float64, error) {
	gated := map[string]float64{}
	var ws []census.Workload
	want := map[string]bool{}
	for n := range strings.SplitSeq(only, ",") {
		if n = strings.TrimSpace(n); n != "" {
			want[n] = true
		}
	}
	for _, w := range census.Workloads {
		if len(want) > 0 && !want[w.Name] {
			continue
		}
		ws = append(ws, w.Workload)
		g := w.Gate
		if g < 0 {
			g = threshold
		}
		gated[w.Name] = g
	}
	for n := range want {
		if _, ok := gated[n]; !ok {
			return nil, nil, fmt.Errorf("census: unknown workload %q (have %s)", n, workloadNames())
		}
	}
	return ws, gated, nil
}

// head returns the first n lines of s.
func head(s string, n int) string {
	lines := strings.SplitAfter(s, "\n")
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "")
}
