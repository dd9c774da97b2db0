package report

import (
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/schedlab/schedlab/src/internal/results"
	"github.com/schedlab/schedlab/src/internal/stats"
)

// renderReadme writes the README of a results folder. findings, the
// contents of FindingsFile, is what a person concluded from the run; it
// goes first, under its own heading, and survives a regenerated report.
// The sections follow in a fixed order; each writer below adds one and
// leaves out what the folder has nothing for.
func renderReadme(meta *results.Metadata, res *Result, findings string) string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	writeIntro(p, meta, findings)
	writeWhatRan(p, meta)
	writeMachine(p, meta)
	writeVerdicts(p, meta, res)
	b.WriteString(oracleGap(meta, res.Comparison))
	writePhysical(p, meta, res)
	writeTraces(p, meta)
	b.WriteString(res.Profiles)
	writeWarnings(p, meta, res)
	writeTablesAndFiles(p, res)
	return b.String()
}

// writeIntro writes the title, how to reproduce the tables, and the
// findings.
func writeIntro(p func(string, ...any), meta *results.Metadata, findings string) {
	title := "schedlab results: suite " + meta.Suite
	if meta.Sweep != nil {
		title = fmt.Sprintf("schedlab sweep: %s over %s", meta.Sweep.Knob, strings.Join(meta.Sweep.Values, ", "))
	}
	p("# %s\n\n", title)
	p("Written by `schedlab report`; the raw data is `%s` (Go benchmark format, one block per run with its `variant:`, `toolchain:`, `godebug:`, `series:` … lines), ", results.RawFile)
	p("so `benchstat -col variant -ignore toolchain,godebug,series %s` reproduces the tables' numbers and verdicts (without `-ignore`, those keys split the columns).\n\n", results.RawFile)
	if f := strings.TrimSpace(findings); f != "" {
		p("## Findings\n\n%s\n\n(From `%s`, written by hand after the run.)\n\n", f, results.FindingsFile)
	}
}

// writeWhatRan writes the command, the suite and how it ran, and the
// variants.
func writeWhatRan(p func(string, ...any), meta *results.Metadata) {
	p("## What ran\n\n")
	if meta.Command != "" {
		p("- Command: `%s`\n", meta.Command)
	}
	p("- Suite `%s`, %d round(s), variants interleaved round by round in a rotating order", meta.Suite, meta.Count)
	if meta.Benchtime != "" {
		p(", benchtime %s", meta.Benchtime)
	}
	if meta.CPU != "" {
		p(", GOMAXPROCS %s (-test.cpu)", meta.CPU)
	}
	p(", timeout %s per run\n", meta.Timeout)
	if meta.Copies > 1 {
		p("- Each run started %d copies of the benchmark's process side by side; `%s` holds, per run, the mean of the copies' results (so a run stays one sample), `%s` each copy's own, marked `copy: K`\n", meta.Copies, results.RawFile, results.CopiesFile)
	}
	p("- Started %s, finished %s", meta.Started.Format("2006-01-02 15:04:05 UTC"), meta.Finished.Format("2006-01-02 15:04:05 UTC"))
	if !meta.Complete {
		p(" — **the run did not complete; these are partial results**")
	}
	p("\n- Upstream %s, patch series %s\n", meta.Upstream, meta.Series)
	p("- Benchmarks: %s\n\n", strings.Join(meta.Targets, ", "))
	p("| variant | toolchain | GODEBUG | series | GOROOT |\n|---|---|---|---|---|\n")
	for _, v := range meta.Variants {
		gd := v.GODEBUG
		if gd == "" {
			gd = "(none)"
		}
		p("| %s | %s (%s) | %s | %s | `%s` |\n", v.Name, v.Version, v.Toolchain, gd, v.Series, v.GOROOT)
	}
	p("\n")
	if same := identicalBinaries(meta); len(same) > 0 {
		p("Identical test binaries (sha256) across toolchains: %s.\n\n", strings.Join(same, "; "))
	}
}

// writeMachine writes the machine, what distorts measurements on it,
// and the harness's provenance.
func writeMachine(p func(string, ...any), meta *results.Metadata) {
	m := meta.Machine
	p("## Machine\n\n")
	p("- Host %s: %s, %d cores, %d NUMA node(s)\n", m.Host, m.CPU, m.Cores, m.NUMANodes)
	p("- Kernel %s, %s/%s\n", m.Kernel, m.GOOS, m.GOARCH)
	if m.Virtualization != "" { // folders written before these fields existed lack them
		p("- SMT: %d thread(s) per core; memory %d MiB; virtualization: %s\n", m.ThreadsPerCore, m.MemoryMiB, m.Virtualization)
	}
	if d := meta.Doctor; d != nil && len(d.Warnings) > 0 {
		p("- What distorts measurements here (`schedlab doctor` at the start; full report in `%s`):\n", results.MetadataFile)
		for _, w := range d.Warnings {
			p("  - %s\n", w)
		}
	}
	if pr := meta.Project; pr.Commit != "" {
		dirty := ""
		if pr.Dirty {
			dirty = " (with uncommitted changes)"
		}
		p("- schedlab commit %s%s; harness built with %s", pr.Commit, dirty, pr.HostGo)
		if len(pr.Env) > 0 {
			var kv []string
			for k, v := range pr.Env {
				kv = append(kv, k+"="+v)
			}
			sort.Strings(kv)
			p("; environment %s", strings.Join(kv, " "))
		}
		p("\n")
	}
	p("\n")
}

// writeVerdicts writes every variant's verdicts against the base, unit
// by unit, and on the key units again without the runs that were short
// of CPU.
func writeVerdicts(p func(string, ...any), meta *results.Metadata, res *Result) {
	c := res.Comparison
	p("## Verdicts\n\n")
	if res.UncontendedSkipped != "" {
		p("Every verdict below includes runs that were short of CPU: %s.\n\n", res.UncontendedSkipped)
	}
	if len(c.Cols) < 2 {
		p("Only one variant ran; there is nothing to compare.\n\n")
	}
	for ci, col := range c.Cols {
		if ci == c.Base {
			continue
		}
		p("**%s vs %s**\n\n", col, c.Cols[c.Base])
		for _, t := range c.Tables {
			p("- %s\n", t.Verdict(ci, c.Base))
		}
		if uc := res.Uncontended; uc != nil && res.Dropped > 0 {
			p("\nWithout the %d runs that were short of CPU (`%s`, `%s`):\n\n", res.Dropped, results.UncontendedRawFile, results.UncontendedBenchstatFile)
			for _, t := range uc.Tables {
				if uci := slices.Index(uc.Cols, col); uci >= 0 && keyUnit(meta, t.Unit) {
					p("- %s\n", t.Verdict(uci, uc.Base))
				}
			}
		}
		p("\n")
	}
	writeNotes(p, c.TableNotes())
	p("Differences are benchstat's: medians with confidence intervals and a Mann-Whitney U test at α=%.2f; `~` means no significant difference, not no difference. "+
		"The intervals are asked for at 95%%; a median's interval runs between order statistics, so its actual level is %s here (`confidence` in `%s`). "+
		"Significant rows also give Holm's adjusted p over the rows of the same unit and column (a correction for testing many rows at once). "+
		"For the `~` rows, the differences they could have missed are the largest ratios the two intervals allow (cell low over baseline high, cell high over baseline low): a conservative bound.\n\n", c.Alpha, c.LevelText(), results.CSVFile)
}

// writeWarnings writes the self-check's warnings, the runs that were
// short of CPU, the failures and the notes, or that the self-check
// passed.
func writeWarnings(p func(string, ...any), meta *results.Metadata, res *Result) {
	if len(res.SelfCheck) > 0 || len(meta.Contended) > 0 || len(meta.Failures) > 0 || len(meta.Notes) > 0 {
		p("## Warnings\n\n")
		for _, w := range res.SelfCheck {
			p("- %s\n", w)
		}
		if n := len(meta.Contended); n > 0 {
			p("- CPU contention: %d of the runs were short of CPU (other processes or the hypervisor took more than %.1f CPUs; see `%s`)", n, results.DefaultContendedCPUs, results.RunsFile)
			if n > 5 {
				p(", for example:\n")
			} else {
				p(":\n")
			}
			for _, w := range meta.Contended[:min(n, 5)] {
				p("  - %s\n", w)
			}
		}
		for _, f := range meta.Failures {
			p("- Failure: %s\n", strings.ReplaceAll(strings.TrimSpace(f), "\n", " "))
		}
		for _, n := range meta.Notes {
			p("- Note: %s\n", n)
		}
		p("\n")
	}
	if c := res.Comparison; len(res.SelfCheck) == 0 && hasSelfCheckPair(c) {
		p("Self-check passed: variants with the same toolchain and knobs show no significant difference")
		if minSamples(c) < 6 {
			p(" (but with fewer than 6 runs per variant the check is weak)")
		}
		p(".\n\n")
	}
}

// writeTablesAndFiles writes the tables, the plots and the list of the
// folder's files.
func writeTablesAndFiles(p func(string, ...any), res *Result) {
	p("## Tables\n\n```\n%s```\n\n", res.Benchstat)
	if len(res.Plots) > 0 {
		p("## Plots\n\n")
		for _, pl := range res.Plots {
			name := strings.TrimSuffix(filepath.Base(pl), ".svg")
			p("![%s](%s)\n\n", name, filepath.ToSlash(pl))
			// The file is named after its unit (delta-UNIT,
			// sweep-UNIT-…, tradeoff-Y-vs-X-…).
			writeNotes(p, stats.UnitNotes(name))
		}
	}
	p("## Files\n\n- `%s`: raw results\n- `%s`: the tables above\n- `%s`: the same, one line per benchmark, unit and variant\n- `%s`: every run's wall time, CPU time and contention\n- `%s`: complete output of every run\n- `%s`: machine, toolchains, knobs, failures\n", results.RawFile, results.BenchstatFile, results.CSVFile, results.RunsFile, results.LogFile, results.MetadataFile)
	if res.Dropped > 0 {
		p("- `%s`, `%s`: the raw results and tables without the %d runs that were short of CPU\n", results.UncontendedRawFile, results.UncontendedBenchstatFile, res.Dropped)
	}
	if res.Physical != nil {
		p("- `%s`, `%s`: each run's physical evidence (NUMA page allocation and placement, hardware counters where they open) and its tables\n", results.PhysicalFile, results.PhysicalBenchstatFile)
	}
}

// writeNotes writes the caveats of the units just shown (see
// stats.UnitNote), one paragraph each.
func writeNotes(p func(string, ...any), notes []string) {
	for _, n := range notes {
		p("Note: %s.\n\n", n)
	}
}

func minSamples(c *stats.Comparison) int {
	n := -1
	for _, t := range c.Tables {
		for _, r := range t.Rows {
			for _, cell := range r.Cells {
				if cell != nil && (n < 0 || len(cell.Sample.Values) < n) {
					n = len(cell.Sample.Values)
				}
			}
		}
	}
	return n
}

func hasSelfCheckPair(c *stats.Comparison) bool {
	for i := range c.ColID {
		for j := i + 1; j < len(c.ColID); j++ {
			if c.ColID[i] == c.ColID[j] {
				return true
			}
		}
	}
	return false
}

func identicalBinaries(meta *results.Metadata) []string {
	var out []string
	seenTC := map[string]bool{}
	var vs []results.VariantMeta
	for _, v := range meta.Variants {
		if !seenTC[v.Toolchain] {
			seenTC[v.Toolchain] = true
			vs = append(vs, v)
		}
	}
	if len(vs) < 2 {
		return nil
	}
	var keys []string
	for k := range vs[0].Binaries {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		same := true
		for _, v := range vs[1:] {
			if v.Binaries[k] != vs[0].Binaries[k] {
				same = false
			}
		}
		if same {
			out = append(out, k)
		}
	}
	return out
}
