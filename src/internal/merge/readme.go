package merge

import (
	"fmt"
	"slices"
	"strings"

	"github.com/schedlab/schedlab/src/internal/results"
	"github.com/schedlab/schedlab/src/internal/stats"
)

// mdCell escapes a Markdown table cell.
func mdCell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// renderMergeReadme writes the README of a merged folder.
func renderMergeReadme(res *Result) string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	var suites []string
	for _, s := range res.Sources {
		if !slices.Contains(suites, s.Suite) {
			suites = append(suites, s.Suite)
		}
	}
	if len(res.Sources) == 0 {
		p("# schedlab results: no host sent results\n\n")
	} else {
		p("# schedlab results: suite %s on %d hosts\n\n", strings.Join(suites, ", "), len(res.Sources))
	}
	p("Written by `schedlab merge`, which merged %d results folders (one per machine) into this one. To redo it:\n\n", len(res.Sources))
	p("```\n%s\n```\n\n", res.Command)
	if len(res.Missing) > 0 {
		p("## Machines that sent no results\n\n")
		p("%d of the %d machines asked sent no results folder; nothing below includes them.\n\n", len(res.Missing), len(res.Missing)+len(res.Sources))
		p("| machine | what happened |\n|---|---|\n")
		for _, m := range res.Missing {
			p("| %s | %s |\n", mdCell(m.Label), mdCell(m.Reason))
		}
		p("\n")
	}
	if len(res.Sources) == 0 {
		p("No machine sent results: there is nothing to compare.\n")
		return b.String()
	}
	p("`%s` holds every result of every folder, in Go benchmark format, each with two config lines added: `host:` (the machine's name, with the folder's name where two folders share it) and `topology:` (its NUMA nodes and CPUs).", results.RawFile)
	if slices.Contains(res.Files, results.PhysicalFile) {
		p(" `%s` does the same for the folders' physical evidence.", results.PhysicalFile)
	}
	p(" `%s` lists the sources; `%s` has each host's full tables.\n\n", RecordFile, results.BenchstatFile)

	p("## Hosts\n\n")
	p("| host | CPU | topology | series | suite | rounds | complete | doctor warnings | folder |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, s := range res.Sources {
		complete := "yes"
		if !s.Complete {
			complete = "**no**"
		}
		dw := "no doctor report"
		if s.DoctorWarnings >= 0 {
			dw = fmt.Sprint(s.DoctorWarnings)
		}
		p("| %s | %s | %s | %s | %s | %d | %s | %s | `%s` |\n", mdCell(s.Host), mdCell(s.CPU), mdCell(s.Topology), mdCell(s.Series), mdCell(s.Suite), s.Count, complete, dw, mdCell(s.Path))
	}
	p("\n")

	if len(res.Warnings) > 0 {
		p("## Warnings\n\n")
		for _, w := range res.Warnings {
			p("- %s\n", w)
		}
		p("\n")
	}

	p("## Across hosts\n\n")
	p("Each cell is a variant against its host's base variant, from that host's own comparison (as `schedlab report` makes it): the change in the median with the Mann-Whitney U p-value when benchstat finds a difference at α=0.05 (before Holm's correction over the rows; see `%s`), else `~` with the largest difference the two confidence intervals allow (asked for at 95%%; their actual level, at least that, is in each host's `results.csv`), the difference that run could have missed. `–`: the host has no such row. Benchmark names are without their `-N` (GOMAXPROCS) suffix, so that machines with different CPU counts line up.\n\n", results.BenchstatFile)
	var bases []string
	for _, s := range res.Sources {
		base := s.Base
		if base == "" {
			base = "(no results)"
		}
		bases = append(bases, fmt.Sprintf("%s: %s", s.Host, base))
	}
	p("Base variants: %s.\n\n", strings.Join(bases, "; "))
	tables := 0
	for _, unit := range mergeUnits {
		t, present := crossHostTable(res, unit)
		switch {
		case t != "":
			tables++
			p("### %s\n\n%s\n", unit, t)
		case present:
			tables++
			p("### %s\n\nNo host has a delta in %s: no host's base variant reports it (or no host ran a second variant). The values are in `%s`.\n\n", unit, unit, results.BenchstatFile)
		}
	}
	if tables == 0 {
		p("No host compares two variants in %s.\n\n", strings.Join(mergeUnits, ", "))
	}

	p("## Reproducing the tables with benchstat\n\n")
	p("All hosts at once:\n\n")
	p("```\nbenchstat %s\n```\n\n", strings.Join(mergeBenchstatArgs, " "))
	p("benchstat makes one table per configuration: hosts whose `topology:`, `cpu:`, `gomaxprocs:` … lines differ get tables of their own, and hosts that share them share a table, with a row per benchmark and host. A delta compares cells of one row, so of one host; but the base column is the first variant benchstat reads, which need not be each host's base. ")
	p("The commands below fix that, one host at a time.\n\n")
	p("One host's tables, the same as in `%s` (the filter picks the host, the column order puts its base first):\n\n```\n", results.BenchstatFile)
	for i, s := range res.Sources {
		c := res.Comparisons[i]
		if c == nil {
			continue
		}
		args := []string{"benchstat"}
		for _, a := range hostBenchstatArgs(s.Host, c) {
			args = append(args, results.ShellQuote(a))
		}
		p("%s\n", strings.Join(args, " "))
	}
	p("```\n\n")

	p("## Files\n\n")
	p("- `%s`: every result of every host, with `host:` and `topology:` lines\n", results.RawFile)
	if slices.Contains(res.Files, results.PhysicalFile) {
		p("- `%s`: the same for the physical evidence\n", results.PhysicalFile)
	}
	p("- `%s`: each host's tables against its base, under `# host <label>`\n", results.BenchstatFile)
	p("- `%s`: the sources (folder, host label, topology, suite, series, variants, times, rounds)\n", RecordFile)
	p("\nThe source folders keep their own README, log and metadata.\n")
	return b.String()
}

// mergeBenchstatArgs are the arguments of the benchstat command that
// shows all hosts' tables of a merged bench.txt.
var mergeBenchstatArgs = []string{"-col", "variant", "-row", ".fullname,host", "-ignore", "toolchain,godebug,series", results.RawFile}

// hostBenchstatArgs are the arguments of the benchstat command that
// reproduces one host's tables (c) from a merged bench.txt: a filter
// for the host, and the variants as columns with c's base first.
func hostBenchstatArgs(host string, c *stats.Comparison) []string {
	cols := append([]string{c.Cols[c.Base]}, slices.Delete(slices.Clone(c.Cols), c.Base, c.Base+1)...)
	return []string{"-filter", "host:" + benchstatQuote(host), "-col", "variant@(" + joinQuoted(cols) + ")",
		"-ignore", "toolchain,godebug,series", results.RawFile}
}

// benchstatQuote quotes a value for a benchstat filter or projection
// where it is not a plain word.
func benchstatQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\"'()@,:/*-") {
		return s
	}
	return fmt.Sprintf("%q", s)
}

func joinQuoted(vals []string) string {
	q := make([]string, len(vals))
	for i, v := range vals {
		q[i] = benchstatQuote(v)
	}
	return strings.Join(q, " ")
}

// crossHostTable is the README's table of one unit: a row per benchmark
// and non-base variant that some host compares with its base, a column
// per host. It is "" when no host has such a delta; present says
// whether some host's tables have the unit at all.
func crossHostTable(res *Result, unit string) (table string, present bool) {
	type rowKey struct{ bench, variant string }
	var keys []rowKey
	cells := map[rowKey][]string{}
	for si, c := range res.Comparisons {
		if c == nil {
			continue
		}
		t := c.Table(unit)
		if t == nil {
			continue
		}
		present = true
		names := crossHostNames(t)
		for ri, r := range t.Rows {
			for ci, col := range c.Cols {
				if ci == c.Base || r.Deltas[ci] == nil {
					continue
				}
				k := rowKey{names[ri], col}
				if cells[k] == nil {
					keys = append(keys, k)
					cells[k] = make([]string, len(res.Sources))
				}
				cells[k][si] = r.Deltas[ci].Brief()
			}
		}
	}
	if len(keys) == 0 {
		return "", present
	}
	// Benchmarks in the order first seen, each with its variants in
	// the order first seen.
	var benches, variants []string
	for _, k := range keys {
		if !slices.Contains(benches, k.bench) {
			benches = append(benches, k.bench)
		}
		if !slices.Contains(variants, k.variant) {
			variants = append(variants, k.variant)
		}
	}
	var b strings.Builder
	b.WriteString("| benchmark | variant |")
	for _, s := range res.Sources {
		fmt.Fprintf(&b, " %s |", mdCell(s.Host))
	}
	b.WriteString("\n|---|---|")
	for range res.Sources {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	for _, bench := range benches {
		for _, v := range variants {
			row := cells[rowKey{bench, v}]
			if row == nil {
				continue
			}
			fmt.Fprintf(&b, "| %s | %s |", mdCell(bench), mdCell(v))
			for _, cell := range row {
				if cell == "" {
					cell = "–"
				}
				fmt.Fprintf(&b, " %s |", mdCell(cell))
			}
			b.WriteString("\n")
		}
	}
	return b.String(), present
}

// crossHostNames are the names of t's rows in the cross-host tables:
// without the -N (GOMAXPROCS) suffix, which differs between machines
// with different CPU counts, unless that would make two rows one.
func crossHostNames(t *stats.UnitTable) []string {
	names := make([]string, len(t.Rows))
	seen := map[string]bool{}
	for i, r := range t.Rows {
		names[i] = r.Name
		if j := strings.LastIndexByte(r.Name, '-'); j > 0 && j < len(r.Name)-1 && strings.Trim(r.Name[j+1:], "0123456789") == "" {
			names[i] = r.Name[:j]
		}
		if seen[names[i]] {
			names := make([]string, len(t.Rows))
			for i, r := range t.Rows {
				names[i] = r.Name
			}
			return names
		}
		seen[names[i]] = true
	}
	return names
}
