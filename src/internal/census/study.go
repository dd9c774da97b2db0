package census

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// A Workload is one program of the census: the census command's
// argument and its unit count.
type Workload struct {
	Name string
	N    int
}

// Workloads are benchmarks/census's programs, with their unit counts
// and the gate's threshold for each (0: not gated, only reported).
//
// Ping-pong and the ring repeat within about 0.1% and are gated at the
// default threshold. Fork-join carries +0.39% to +0.55% in findfunc that
// no scheduler code causes (results/2026-12-01-vm-census/FINDINGS.md),
// and its median over three layouts moves by about as much, so it is
// gated at 1%: that still catches a regression of the size of a hook
// called on every execute (+1.6% on fork-join), and it does not fail at
// random. Syscall follows sysmon's time-based retakes and gosched is the
// worst case of events per instruction: both are reported only, as is
// alloc (the allocator's paths, with numamem's test in refill and
// allocLarge), until its spread across layouts is known.
var Workloads = []struct {
	Workload
	Gate float64 // threshold, patched/stock - 1; 0: not gated; -1: the run's -threshold
}{
	{Workload{"pingpong", 50000}, -1},
	{Workload{"ring", 5000}, -1},
	{Workload{"forkjoin", 20}, 0.01},
	{Workload{"gosched", 50000}, 0},
	{Workload{"syscall", 100000}, 0},
	{Workload{"alloc", 50000}, 0},
}

// A Side is one toolchain of a comparison.
type Side struct {
	Name   string // stock, patched
	GOROOT string
}

// StudyOptions configures Study.
type StudyOptions struct {
	Dir       string // the census program's package directory
	Stock     Side
	Patched   Side
	Workloads []Workload
	Layouts   int     // link layouts per toolchain (seeds 1..Layouts)
	Threshold float64 // largest patched/stock - 1 allowed, e.g. 0.002
	Out       string  // results folder
	Funcs     bool    // also write the per-function census
	Footprint string  // if set, the package directory of the footprint program (footprint.md)
	Log       io.Writer
}

// A Row is one workload's verdict.
type Row struct {
	Workload
	Stock, Patched             []float64 // instructions/op per layout
	StockStartup, PatchStartup []float64 // instructions of a run of 0 units
}

// Ratio is patched/stock - 1 of the medians.
func (r Row) Ratio() float64 { return Median(r.Patched)/Median(r.Stock) - 1 }

// Spread is the larger relative range over layouts of the two sides.
func (r Row) Spread() float64 { return math.Max(Spread(r.Stock), Spread(r.Patched)) }

// Study builds the census program with both toolchains in opt.Layouts
// layouts, counts every workload's instructions per unit under each
// build at GOMAXPROCS=1 with no GODEBUG, and writes census.txt (benchfmt)
// and README.md into opt.Out. It returns the rows.
func Study(ctx context.Context, opt StudyOptions) ([]Row, error) {
	if err := os.MkdirAll(opt.Out, 0o755); err != nil {
		return nil, err
	}
	bins := filepath.Join(opt.Out, ".bin")
	if err := os.MkdirAll(bins, 0o755); err != nil {
		return nil, err
	}
	defer os.RemoveAll(bins)
	sides := []Side{opt.Stock, opt.Patched}
	bin := func(s Side, seed int) string { return filepath.Join(bins, fmt.Sprintf("census-%s-%d", s.Name, seed)) }
	for _, s := range sides {
		for seed := 1; seed <= opt.Layouts; seed++ {
			if err := Build(ctx, s.GOROOT, opt.Dir, bin(s, seed), seed); err != nil {
				return nil, err
			}
		}
	}
	env := RunEnv("GOMAXPROCS=1")
	var raw strings.Builder
	rows := make([]Row, len(opt.Workloads))
	// Interleave: for each layout, each workload, stock then patched, so
	// that slow drift on the machine lands on both sides alike.
	for seed := 1; seed <= opt.Layouts; seed++ {
		for i, w := range opt.Workloads {
			rows[i].Workload = w
			for _, s := range sides {
				perOp, startup, err := PerOp(ctx, bin(s, seed), []string{w.Name}, w.N, env)
				if err != nil {
					return nil, err
				}
				fmt.Fprintf(opt.Log, "census: %-9s %-7s layout %d: %.1f instructions/op\n", w.Name, s.Name, seed, perOp)
				fmt.Fprintf(&raw, "toolchain: %s\nlayout: %d\nBenchmarkCensus/%s %d %.2f instructions/op %d startup-instructions\n", s.Name, seed, w.Name, w.N, perOp, startup)
				if s.Name == opt.Stock.Name {
					rows[i].Stock = append(rows[i].Stock, perOp)
					rows[i].StockStartup = append(rows[i].StockStartup, float64(startup))
				} else {
					rows[i].Patched = append(rows[i].Patched, perOp)
					rows[i].PatchStartup = append(rows[i].PatchStartup, float64(startup))
				}
			}
		}
	}
	if err := os.WriteFile(filepath.Join(opt.Out, "census.txt"), []byte(raw.String()), 0o644); err != nil {
		return nil, err
	}
	if opt.Footprint != "" {
		table, err := Footprint(ctx, opt.Footprint, bins, opt.Stock, opt.Patched)
		if err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(opt.Out, "footprint.md"), []byte(table), 0o644); err != nil {
			return nil, err
		}
	}
	var funcs strings.Builder
	if opt.Funcs {
		for _, w := range opt.Workloads {
			if err := functionCensus(ctx, &funcs, opt, w, bin); err != nil {
				return nil, err
			}
		}
		if err := os.WriteFile(filepath.Join(opt.Out, "functions.md"), []byte(funcs.String()), 0o644); err != nil {
			return nil, err
		}
	}
	return rows, nil
}

// functionCensus writes w's per-function differences, self costs of a
// run of w.N units, median over layouts, to b.
func functionCensus(ctx context.Context, b *strings.Builder, opt StudyOptions, w Workload, bin func(Side, int) string) error {
	env := RunEnv("GOMAXPROCS=1", "GODEBUG=asyncpreemptoff=1")
	var costs [2][]map[string]uint64
	var total float64
	for k, s := range []Side{opt.Stock, opt.Patched} {
		var totals []float64
		for seed := 1; seed <= opt.Layouts; seed++ {
			out := filepath.Join(opt.Out, ".bin", fmt.Sprintf("callgrind-%s-%s-%d.out", w.Name, s.Name, seed))
			c, err := Functions(ctx, Run{Bin: bin(s, seed), Args: []string{w.Name, fmt.Sprint(w.N)}, Env: env}, out, false)
			if err != nil {
				return err
			}
			os.Remove(out)
			costs[k] = append(costs[k], c)
			totals = append(totals, float64(c["PROGRAM TOTALS"]))
		}
		if k == 0 {
			total = Median(totals)
		}
	}
	diffs := DiffFunctions(costs[0], costs[1], total, 0.0005)
	fmt.Fprintf(b, "## %s (%d units, GOMAXPROCS=1, GODEBUG=asyncpreemptoff=1, callgrind self costs, median of %d layouts)\n\n", w.Name, w.N, opt.Layouts)
	fmt.Fprintf(b, "Program total (stock median): %.0f instructions; listed: every function that moved by more than 0.05%% of it (%.0f).\n\n", total, 0.0005*total)
	if len(diffs) == 0 {
		b.WriteString("No function moved by more than that.\n\n")
		return nil
	}
	b.WriteString("| function | stock | patched | Δ | Δ per unit | layout range | label |\n|---|---:|---:|---:|---:|---:|---|\n")
	for _, d := range diffs {
		fmt.Fprintf(b, "| `%s` | %.0f | %.0f | %+.0f | %+.2f | %.0f | %s |\n", d.Name, d.Stock, d.Patch, d.Delta(), d.Delta()/float64(w.N), d.Spread, d.Label)
	}
	b.WriteString("\n")
	return nil
}

// Verdict is a row's verdict against threshold: "ok"; "over" when
// patched costs more than threshold and more than the row's layout range
// (a difference that layout alone cannot produce); or "layout" when it
// costs more than threshold but within the layout range, where the
// census cannot tell code from the placement of functions.
func (r Row) Verdict(threshold float64) string {
	switch {
	case r.Ratio() <= threshold:
		return "ok"
	case r.Ratio() <= r.Spread():
		return "layout"
	}
	return "over"
}

// Table formats rows as a Markdown table with each row's verdict
// against its gate threshold (gate[name]; 0: not gated, judged against
// threshold for the record).
func Table(rows []Row, threshold float64, gate map[string]float64) string {
	var b strings.Builder
	b.WriteString("| workload | units | stock instr/op | patched instr/op | patched/stock | layout range | startup Δ (instr) | gate | verdict |\n|---|---:|---:|---:|---:|---:|---:|---:|---|\n")
	for _, r := range rows {
		t, gated := gate[r.Name], gate[r.Name] > 0
		if !gated {
			t = threshold
		}
		var verdict string
		switch r.Verdict(t) {
		case "ok":
			verdict = "ok"
		case "layout":
			verdict = fmt.Sprintf("over %.2f%%, within the layout range", t*100)
		default:
			verdict = fmt.Sprintf("over %.2f%%", t*100)
		}
		g := fmt.Sprintf("%.2f%%", t*100)
		if !gated {
			g = "none"
			verdict += " (reported, not gated)"
		}
		fmt.Fprintf(&b, "| %s | %d | %.1f | %.1f | %+.3f%% | %.3f%% | %+.0f | %s | %s |\n", r.Name, r.N, Median(r.Stock), Median(r.Patched),
			r.Ratio()*100, r.Spread()*100, Median(r.PatchStartup)-Median(r.StockStartup), g, verdict)
	}
	return b.String()
}

// Failed returns the gated rows (gate[name] > 0) whose verdict against
// their threshold is "over".
func Failed(rows []Row, gate map[string]float64) []Row {
	var bad []Row
	for _, r := range rows {
		if t := gate[r.Name]; t > 0 && r.Verdict(t) == "over" {
			bad = append(bad, r)
		}
	}
	return bad
}

// Stamp is the time format of README headers.
func Stamp(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") }
