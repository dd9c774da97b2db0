package harness

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/perf/benchfmt"
)

// MergeFile is the record of a merged folder (MergeResult): its sources
// and what was merged. A merged folder holds no metadata.json: that name
// means "one bench run", and a merge is several.
const MergeFile = "merge.json"

// mergeUnits are the units the README's cross-host summary has a table
// for, when some host has them.
var mergeUnits = []string{"sec/op", "on-node-share", "local-steal-share"}

// A MergeSource is one results folder in a merge.
type MergeSource struct {
	Path     string `json:"path"`
	Host     string `json:"host"`     // label: Machine.Host, with the folder's name when two folders share it
	Machine  string `json:"machine"`  // Machine.Host as recorded
	CPU      string `json:"cpu"`      // Machine.CPU
	Topology string `json:"topology"` // "2 node(s), 64 CPUs; node0 0-31, node1 32-63"
	// Nodes are the doctor's NUMA nodes, when the folder has a doctor
	// report; without one the topology comes from Machine.NUMANodes.
	Nodes          []DoctorNode `json:"nodes,omitempty"`
	Suite          string       `json:"suite"`
	Series         string       `json:"series"`
	Variants       []string     `json:"variants"`
	Base           string       `json:"base"` // the variant the deltas are against ("" without results)
	Started        time.Time    `json:"started"`
	Finished       time.Time    `json:"finished"`
	Count          int          `json:"count"`
	Complete       bool         `json:"complete"`
	DoctorWarnings int          `json:"doctor_warnings"` // -1 without a doctor report
	Results        int          `json:"results"`         // benchmark results taken from bench.txt
	Physical       int          `json:"physical"`        // and from physical.txt (0 if it has none)

	meta *Metadata
}

// MergeResult says what Merge wrote; it is also the content of
// merge.json.
type MergeResult struct {
	Out      string         `json:"out"`
	Command  string         `json:"command"` // schedlab merge command line that redoes it
	Sources  []*MergeSource `json:"sources"`
	Warnings []string       `json:"warnings,omitempty"`
	Files    []string       `json:"files"` // written into Out

	// Comparisons are each source's tables, by source (nil where a
	// source has no results), its deltas against the source's first
	// variant as `schedlab report` computes them.
	Comparisons []*Comparison `json:"-"`
}

// Merge combines the results folders dirs, the same study run on
// several machines, into one folder out: bench.txt (and physical.txt)
// with every result labelled by `host:` and `topology:` config lines,
// merge.json, the per-host benchstat tables, and a README comparing
// each host's variants with its base side by side.
func Merge(out string, dirs []string) (*MergeResult, error) {
	if len(dirs) == 0 {
		return nil, fmt.Errorf("merge: no results folders given")
	}
	if out == "" {
		return nil, fmt.Errorf("merge: no output folder given")
	}
	if _, err := os.Stat(filepath.Join(out, RawFile)); err == nil {
		return nil, fmt.Errorf("%s already holds results (%s); choose another -out", out, RawFile)
	}
	res := &MergeResult{Out: out, Command: mergeCommand(out, dirs)}
	for _, d := range dirs {
		s, err := readMergeSource(d)
		if err != nil {
			return nil, err
		}
		res.Sources = append(res.Sources, s)
	}
	labelHosts(res.Sources)
	res.Warnings = append(res.Warnings, mismatchWarnings(res.Sources)...)

	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}
	counts, warns, err := mergeBench(filepath.Join(out, RawFile), res.Sources, RawFile)
	if err != nil {
		return nil, err
	}
	res.Warnings = append(res.Warnings, warns...)
	for i, s := range res.Sources {
		s.Results = counts[i]
	}
	res.Files = append(res.Files, RawFile)
	hasPhysical := false
	for _, s := range res.Sources {
		if _, err := os.Stat(filepath.Join(s.Path, PhysicalFile)); err == nil {
			hasPhysical = true
		}
	}
	if hasPhysical {
		counts, warns, err := mergeBench(filepath.Join(out, PhysicalFile), res.Sources, PhysicalFile)
		if err != nil {
			return nil, err
		}
		res.Warnings = append(res.Warnings, warns...)
		for i, s := range res.Sources {
			s.Physical = counts[i]
		}
		res.Files = append(res.Files, PhysicalFile)
	}

	// Each host's tables, against its own base.
	var tb bytes.Buffer
	for _, s := range res.Sources {
		c, err := compareSource(s)
		res.Comparisons = append(res.Comparisons, c)
		fmt.Fprintf(&tb, "# host %s\n\n", s.Host)
		if err != nil {
			res.Warnings = append(res.Warnings, fmt.Sprintf("host %s (%s): no tables: %v", s.Host, s.Path, err))
			fmt.Fprintf(&tb, "(no tables: %v)\n\n", err)
			continue
		}
		s.Base = c.Cols[c.Base]
		if len(c.Cols) < 2 {
			res.Warnings = append(res.Warnings, fmt.Sprintf("host %s (%s) ran only one variant (%s): it has nothing to compare", s.Host, s.Path, c.Cols[0]))
		}
		if err := c.WriteText(&tb); err != nil {
			return nil, err
		}
		tb.WriteString("\n")
	}
	if bases := distinctBases(res.Sources); len(bases) > 1 {
		res.Warnings = append(res.Warnings, fmt.Sprintf("the hosts' base variants differ (%s): their deltas are against different baselines", strings.Join(bases, ", ")))
	}
	if err := os.WriteFile(filepath.Join(out, BenchstatFile), tb.Bytes(), 0o644); err != nil {
		return nil, err
	}
	res.Files = append(res.Files, BenchstatFile, ReadmeFile, MergeFile)
	if err := os.WriteFile(filepath.Join(out, ReadmeFile), []byte(renderMergeReadme(res)), 0o644); err != nil {
		return nil, err
	}
	data, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(out, MergeFile), append(data, '\n'), 0o644); err != nil {
		return nil, err
	}
	return res, nil
}

// readMergeSource reads a results folder's metadata.
func readMergeSource(dir string) (*MergeSource, error) {
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("%s is not a schedlab results folder: %v", dir, err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("%s is not a schedlab results folder: not a directory", dir)
	}
	meta, err := ReadMetadata(dir)
	if err != nil {
		return nil, fmt.Errorf("%s is not a schedlab results folder: %v", dir, err)
	}
	if _, err := os.Stat(filepath.Join(dir, RawFile)); err != nil {
		return nil, fmt.Errorf("%s is not a schedlab results folder: %v", dir, err)
	}
	s := &MergeSource{
		Path: dir, Machine: meta.Machine.Host, CPU: meta.Machine.CPU, Suite: meta.Suite, Series: meta.Series,
		Started: meta.Started, Finished: meta.Finished, Count: meta.Count, Complete: meta.Complete,
		DoctorWarnings: -1, meta: meta,
	}
	for _, v := range meta.Variants {
		s.Variants = append(s.Variants, v.Name)
	}
	if meta.Doctor != nil {
		s.DoctorWarnings = len(meta.Doctor.Warnings)
		s.Nodes = meta.Doctor.Nodes
	}
	s.Topology = topology(meta)
	return s, nil
}

// topology describes a folder's machine on one line: its NUMA nodes and
// CPUs, and each node's CPUs when the doctor listed them.
func topology(meta *Metadata) string {
	nodes := meta.Machine.NUMANodes
	var lists []string
	if d := meta.Doctor; d != nil && len(d.Nodes) > 0 {
		nodes = len(d.Nodes)
		for _, n := range d.Nodes {
			cpus := n.CPUs
			if cpus == "" {
				cpus = "no CPUs"
			}
			lists = append(lists, fmt.Sprintf("node%d %s", n.ID, cpus))
		}
	}
	s := fmt.Sprintf("%d node(s), %d CPUs", nodes, meta.Machine.Cores)
	if len(lists) > 0 {
		s += "; " + strings.Join(lists, ", ")
	}
	return oneLine(s)
}

// oneLine folds s's white space (newlines included) into single spaces,
// as a benchmark-format config value needs.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// labelHosts sets each source's Host: the machine's name, and where two
// folders share it, the name with the folder's base name, "vm (run-2)";
// with a number added where even that repeats.
func labelHosts(srcs []*MergeSource) {
	host := func(s *MergeSource) string {
		if h := oneLine(s.Machine); h != "" {
			return h
		}
		return "unknown"
	}
	n := map[string]int{}
	for _, s := range srcs {
		n[host(s)]++
	}
	for _, s := range srcs {
		s.Host = host(s)
		if n[s.Host] > 1 {
			s.Host = oneLine(fmt.Sprintf("%s (%s)", s.Host, folderName(s.Path)))
		}
	}
	seen := map[string]int{}
	for _, s := range srcs {
		seen[s.Host]++
	}
	k := map[string]int{}
	for _, s := range srcs {
		if seen[s.Host] > 1 {
			k[s.Host]++
			s.Host = fmt.Sprintf("%s #%d", s.Host, k[s.Host])
		}
	}
}

// folderName is dir's last element, also for "." and paths ending in /.
func folderName(dir string) string {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	return filepath.Base(filepath.Clean(dir))
}

// mismatchWarnings says when the sources ran different patch series or
// suites: a cross-host comparison then compares different things.
func mismatchWarnings(srcs []*MergeSource) []string {
	var warns []string
	for _, f := range []struct {
		what string
		get  func(*MergeSource) string
	}{
		{"patch series", func(s *MergeSource) string { return s.Series }},
		{"suites", func(s *MergeSource) string { return s.Suite }},
	} {
		var vals, hosts []string
		for _, s := range srcs {
			v := f.get(s)
			if !slices.Contains(vals, v) {
				vals = append(vals, v)
			}
			hosts = append(hosts, fmt.Sprintf("%s: %s", s.Host, v))
		}
		if len(vals) > 1 {
			warns = append(warns, fmt.Sprintf("the folders ran different %s (%s): comparisons across hosts mix them", f.what, strings.Join(hosts, "; ")))
		}
	}
	for _, s := range srcs {
		if !s.Complete {
			warns = append(warns, fmt.Sprintf("host %s (%s): the run did not complete; its results are partial", s.Host, s.Path))
		}
	}
	return warns
}

func distinctBases(srcs []*MergeSource) []string {
	var bases []string
	for _, s := range srcs {
		if s.Base != "" && !slices.Contains(bases, s.Base) {
			bases = append(bases, s.Base)
		}
	}
	return bases
}

// mergeBench writes every result of each source's file name into path,
// with the source's host and topology added to its configuration, and
// returns how many results each source gave. Unit metadata is kept,
// once per unit and key; sources that disagree on it get a warning (the
// first source's wins).
func mergeBench(path string, srcs []*MergeSource, name string) ([]int, []string, error) {
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "# schedlab merge of %d results folders; every result has host: and topology: lines naming its machine\n", len(srcs))
	w := benchfmt.NewWriter(&buf)
	units := map[benchfmt.UnitMetadataKey]string{}
	counts := make([]int, len(srcs))
	var warns []string
	for i, s := range srcs {
		src := filepath.Join(s.Path, name)
		f, err := os.Open(src)
		if os.IsNotExist(err) && name != RawFile {
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		r := benchfmt.NewReader(f, src)
		nerr := 0
		for r.Scan() {
			switch rec := r.Result().(type) {
			case *benchfmt.SyntaxError:
				if nerr++; nerr <= 3 {
					warns = append(warns, fmt.Sprintf("%s: skipped: %v", src, rec))
				}
			case *benchfmt.UnitMetadata:
				if have, ok := units[rec.UnitMetadataKey]; ok {
					if have != rec.Value {
						warns = append(warns, fmt.Sprintf("%s: unit %s has %s=%s, an earlier folder %s=%s; the merged file keeps %s", src, rec.OrigUnit, rec.Key, rec.Value, rec.Key, have, have))
					}
					continue
				}
				units[rec.UnitMetadataKey] = rec.Value
				if err := w.Write(rec); err != nil {
					f.Close()
					return nil, nil, err
				}
			case *benchfmt.Result:
				setFileConfig(rec, "host", s.Host)
				setFileConfig(rec, "topology", s.Topology)
				if err := w.Write(rec); err != nil {
					f.Close()
					return nil, nil, err
				}
				counts[i]++
			}
		}
		f.Close()
		if nerr > 3 {
			warns = append(warns, fmt.Sprintf("%s: %d more lines skipped", src, nerr-3))
		}
		if err := r.Err(); err != nil {
			return nil, nil, err
		}
	}
	return counts, warns, os.WriteFile(path, buf.Bytes(), 0o644)
}

// setFileConfig sets a file-level configuration key of r: one the
// benchfmt.Writer writes as a "key: value" line (Result.SetConfig
// alone marks the key internal, and the Writer leaves it out).
func setFileConfig(r *benchfmt.Result, key, value string) {
	r.SetConfig(key, value)
	if i, ok := r.ConfigIndex(key); ok {
		r.Config[i].File = true
	}
}

// compareSource compares a source's variants, against its first
// variant, as Report does.
func compareSource(s *MergeSource) (*Comparison, error) {
	base := ""
	if len(s.Variants) > 0 {
		base = s.Variants[0]
	}
	return compareAgainst(filepath.Join(s.Path, RawFile), base)
}

// ShellQuote quotes s for a POSIX shell where it needs it.
func ShellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func mergeCommand(out string, dirs []string) string {
	args := []string{"schedlab", "merge", "-out", ShellQuote(out)}
	for _, d := range dirs {
		args = append(args, ShellQuote(d))
	}
	return strings.Join(args, " ")
}

// mdCell escapes a Markdown table cell.
func mdCell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// deltaCell formats a table cell of a change against a base: the change
// with its p-value, or for no significant difference the largest
// difference the run could have missed ("–" without data).
func deltaCell(d *Delta) string {
	if d == nil {
		return "–"
	}
	if !d.Significant {
		if math.IsNaN(d.Limit) {
			return "~"
		}
		return fmt.Sprintf("~ (±%.1f%%)", d.Limit)
	}
	pct := d.Text
	if !math.IsNaN(d.Pct) {
		pct = fmt.Sprintf("%+.1f%%", d.Pct)
	}
	return fmt.Sprintf("%s (p=%.3f)", pct, d.Cmp.P)
}

// renderMergeReadme writes the README of a merged folder.
func renderMergeReadme(res *MergeResult) string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	var suites []string
	for _, s := range res.Sources {
		if !slices.Contains(suites, s.Suite) {
			suites = append(suites, s.Suite)
		}
	}
	p("# schedlab results: suite %s on %d hosts\n\n", strings.Join(suites, ", "), len(res.Sources))
	p("Written by `schedlab merge`, which merged %d results folders (one per machine) into this one. To redo it:\n\n", len(res.Sources))
	p("```\n%s\n```\n\n", res.Command)
	p("`%s` holds every result of every folder, in Go benchmark format, each with two config lines added: `host:` (the machine's name, with the folder's name where two folders share it) and `topology:` (its NUMA nodes and CPUs).", RawFile)
	if slices.Contains(res.Files, PhysicalFile) {
		p(" `%s` does the same for the folders' physical evidence.", PhysicalFile)
	}
	p(" `%s` lists the sources; `%s` has each host's full tables.\n\n", MergeFile, BenchstatFile)

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
	p("Each cell is a variant against its host's base variant, from that host's own comparison (as `schedlab report` makes it): the change in the median with the Mann-Whitney U p-value when benchstat finds a difference at α=0.05 (before Holm's correction over the rows; see `%s`), else `~` with the largest difference the two 95%% confidence intervals allow, the difference that run could have missed. `–`: the host has no such row. Benchmark names are without their `-N` (GOMAXPROCS) suffix, so that machines with different CPU counts line up.\n\n", BenchstatFile)
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
			p("### %s\n\nNo host has a delta in %s: no host's base variant reports it (or no host ran a second variant). The values are in `%s`.\n\n", unit, unit, BenchstatFile)
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
	p("One host's tables, the same as in `%s` (the filter picks the host, the column order puts its base first):\n\n```\n", BenchstatFile)
	for i, s := range res.Sources {
		c := res.Comparisons[i]
		if c == nil {
			continue
		}
		args := []string{"benchstat"}
		for _, a := range hostBenchstatArgs(s.Host, c) {
			args = append(args, ShellQuote(a))
		}
		p("%s\n", strings.Join(args, " "))
	}
	p("```\n\n")

	p("## Files\n\n")
	p("- `%s`: every result of every host, with `host:` and `topology:` lines\n", RawFile)
	if slices.Contains(res.Files, PhysicalFile) {
		p("- `%s`: the same for the physical evidence\n", PhysicalFile)
	}
	p("- `%s`: each host's tables against its base, under `# host <label>`\n", BenchstatFile)
	p("- `%s`: the sources (folder, host label, topology, suite, series, variants, times, rounds)\n", MergeFile)
	p("\nThe source folders keep their own README, log and metadata.\n")
	return b.String()
}

// mergeBenchstatArgs are the arguments of the benchstat command that
// shows all hosts' tables of a merged bench.txt.
var mergeBenchstatArgs = []string{"-col", "variant", "-row", ".fullname,host", "-ignore", "toolchain,godebug,series", RawFile}

// hostBenchstatArgs are the arguments of the benchstat command that
// reproduces one host's tables (c) from a merged bench.txt: a filter
// for the host, and the variants as columns with c's base first.
func hostBenchstatArgs(host string, c *Comparison) []string {
	cols := append([]string{c.Cols[c.Base]}, slices.Delete(slices.Clone(c.Cols), c.Base, c.Base+1)...)
	return []string{"-filter", "host:" + benchstatQuote(host), "-col", "variant@(" + joinQuoted(cols) + ")",
		"-ignore", "toolchain,godebug,series", RawFile}
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
func crossHostTable(res *MergeResult, unit string) (table string, present bool) {
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
				cells[k][si] = deltaCell(r.Deltas[ci])
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
func crossHostNames(t *UnitTable) []string {
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
