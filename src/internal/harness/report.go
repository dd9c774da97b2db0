package harness

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/perf/benchunit"
)

// Files a report adds to a results folder.
const (
	BenchstatFile = "benchstat.txt"
	CSVFile       = "results.csv"
	ReadmeFile    = "README.md"
	FindingsFile  = "FINDINGS.md" // optional, hand-written; quoted at the top of the README
	PlotsDir      = "plots"

	// With runs that were short of CPU, the report also compares the
	// runs without them: the raw data without those runs, and its
	// tables.
	UncontendedRawFile       = "bench-uncontended.txt"
	UncontendedBenchstatFile = "benchstat-uncontended.txt"
)

// ReportResult says what Report wrote.
type ReportResult struct {
	Comparison *Comparison
	Benchstat  string   // the text tables
	SelfCheck  []string // self-check warnings
	Plots      []string // relative paths

	// Uncontended compares the runs that were not short of CPU, when
	// some were (nil otherwise); Dropped is how many runs it leaves out.
	// UncontendedSkipped says why there is no such comparison although
	// some runs were short of CPU (all were, or what is left cannot be
	// compared); the report says it and goes on.
	Uncontended        *Comparison
	Dropped            int
	UncontendedSkipped string

	// Physical compares PhysicalFile (nil when the folder has none),
	// and PhysicalBenchstat is its text tables.
	Physical          *Comparison
	PhysicalBenchstat string

	// Profiles is the README's section on the profiles of `schedlab
	// bench -profile` (empty when there are none).
	Profiles string
}

// Report reads a results folder written by Bench and writes the
// benchstat tables, the CSV, SVG plots and README.md into it.
func Report(dir string) (*ReportResult, error) {
	meta, err := ReadMetadata(dir)
	if err != nil {
		return nil, fmt.Errorf("%s is not a schedlab results folder: %v", dir, err)
	}
	raw := filepath.Join(dir, RawFile)
	if _, err := os.Stat(raw); err != nil {
		return nil, fmt.Errorf("%s has no results: %v", dir, err)
	}
	c, err := compareAgainst(raw, baseVariant(meta))
	if err != nil {
		return nil, err
	}
	c.markWrapped(meta)
	res := &ReportResult{Comparison: c, SelfCheck: c.SelfCheck()}
	if len(meta.Contended) > 0 {
		if err := res.compareUncontended(dir, meta, c); err != nil {
			return nil, err
		}
	}
	if err := res.comparePhysical(dir, meta, c.Cols[c.Base]); err != nil {
		return nil, err
	}
	var tb bytes.Buffer
	if err := c.WriteText(&tb); err != nil {
		return nil, err
	}
	res.Benchstat = tb.String()
	if err := os.WriteFile(filepath.Join(dir, BenchstatFile), tb.Bytes(), 0o644); err != nil {
		return nil, err
	}
	var cb bytes.Buffer
	if err := c.WriteCSV(&cb); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, CSVFile), cb.Bytes(), 0o644); err != nil {
		return nil, err
	}
	res.Plots, err = writePlots(dir, c, meta)
	if err != nil {
		return nil, fmt.Errorf("plots: %v", err)
	}
	var pb bytes.Buffer
	writeProfiles(func(f string, a ...any) { fmt.Fprintf(&pb, f, a...) }, meta, dir)
	res.Profiles = pb.String()
	findings, err := os.ReadFile(filepath.Join(dir, FindingsFile))
	if err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	readme := renderReadme(meta, res, string(findings))
	if err := os.WriteFile(filepath.Join(dir, ReadmeFile), []byte(readme), 0o644); err != nil {
		return nil, err
	}
	return res, nil
}

// Verdicts summarises each variant against the base on the key units
// (time and CPU time per op, a sweep's metrics): one line per variant
// and unit, as the README's Verdicts section words them, and the same
// without the runs that were short of CPU, if some were. A variant with
// the base's toolchain and knobs is marked as the control.
func (res *ReportResult) Verdicts(meta *Metadata) []string {
	var out []string
	add := func(c *Comparison, suffix string) {
		for ci, col := range c.Cols {
			if ci == c.Base {
				continue
			}
			name := col
			if ci < len(c.ColID) && c.Base < len(c.ColID) && c.ColID[ci] == c.ColID[c.Base] {
				name += " (control: same toolchain and knobs as " + c.Cols[c.Base] + ")"
			}
			for _, t := range c.Tables {
				if keyUnit(meta, t.Unit) {
					out = append(out, fmt.Sprintf("%s vs %s%s: %s", name, c.Cols[c.Base], suffix, verdict(t, ci, c.Base)))
				}
			}
		}
	}
	add(res.Comparison, "")
	if res.UncontendedSkipped != "" {
		out = append(out, "no verdicts without runs short of CPU: "+res.UncontendedSkipped)
	}
	if res.Uncontended != nil && res.Dropped > 0 {
		add(res.Uncontended, fmt.Sprintf(", without the %d runs short of CPU", res.Dropped))
	}
	return out
}

// keyUnit reports whether unit is one the summary without contended
// runs repeats: time and CPU time per op, and a sweep's own metrics.
func keyUnit(meta *Metadata, unit string) bool {
	if unit == "sec/op" || unit == "cpu-sec/op" {
		return true
	}
	if meta.Sweep != nil {
		for _, m := range meta.Sweep.Metrics {
			if _, u := benchunit.Tidy(1, m); u == unit {
				return true
			}
		}
	}
	return false
}

// compareUncontended writes the raw data without the runs that meta
// lists as short of CPU, and its tables, and sets res.Uncontended.
func (res *ReportResult) compareUncontended(dir string, meta *Metadata, c *Comparison) error {
	raw, err := os.ReadFile(filepath.Join(dir, RawFile))
	if err != nil {
		return err
	}
	kept, dropped := dropRuns(raw, contendedRuns(meta.Contended))
	if len(keepResults(kept)) == 0 {
		res.UncontendedSkipped = fmt.Sprintf("all %d runs with results were short of CPU, so there is no comparison without them", dropped)
		return nil
	}
	path := filepath.Join(dir, UncontendedRawFile)
	if err := os.WriteFile(path, kept, 0o644); err != nil {
		return err
	}
	uc, _, err := compareFile(path, c.Cols[c.Base], meta, filepath.Join(dir, UncontendedBenchstatFile))
	if err != nil {
		res.UncontendedSkipped = fmt.Sprintf("what is left without the %d runs short of CPU cannot be compared (%v)", dropped, err)
		return nil
	}
	res.Uncontended, res.Dropped = uc, dropped
	return nil
}

// baseVariant is the variant a folder's deltas are against: its first.
func baseVariant(meta *Metadata) string {
	if len(meta.Variants) == 0 {
		return ""
	}
	return meta.Variants[0].Name
}

// compareAgainst compares a benchmark file with base as the baseline
// column where the file has it, else with its first column.
func compareAgainst(path, base string) (*Comparison, error) {
	c, err := Compare([]string{path}, CompareOptions{})
	if err != nil || base == "" || slices.Index(c.Cols, base) <= 0 {
		return c, err
	}
	return Compare([]string{path}, CompareOptions{Base: base})
}

// compareFile compares one benchmark file of a results folder against
// base (see compareAgainst), tells its wrapped variants apart, and
// writes its tables to out.
func compareFile(path, base string, meta *Metadata, out string) (*Comparison, string, error) {
	c, err := compareAgainst(path, base)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %v", filepath.Base(path), err)
	}
	c.markWrapped(meta)
	var tb bytes.Buffer
	if err := c.WriteText(&tb); err != nil {
		return nil, "", err
	}
	return c, tb.String(), os.WriteFile(out, tb.Bytes(), 0o644)
}

// A runKey names one run: its round (from 1), target and variant.
type runKey struct {
	round           int
	target, variant string
}

// contendedRuns parses the runs out of Metadata.Contended entries
// ("round 2: workloads.LatencyProbe [stock]: other load took …").
func contendedRuns(flags []string) map[runKey]bool {
	m := map[runKey]bool{}
	for _, f := range flags {
		head, _, _ := strings.Cut(f, "]")
		round, rest, ok1 := strings.Cut(head, ": ")
		target, variant, ok2 := strings.Cut(rest, " [")
		n, err := strconv.Atoi(strings.TrimPrefix(round, "round "))
		if ok1 && ok2 && err == nil {
			m[runKey{n, target, variant}] = true
		}
	}
	return m
}

// dropRuns returns raw (bench.txt) without the blocks of the runs in
// drop, and how many blocks it left out. Each run's block starts with a
// "# round N, target" line and names its variant in a "variant:" line.
func dropRuns(raw []byte, drop map[runKey]bool) ([]byte, int) {
	var out bytes.Buffer
	dropped := 0
	var block []string
	flush := func() {
		if len(block) == 0 {
			return
		}
		var k runKey
		if _, err := fmt.Sscanf(block[0], "# round %d, %s", &k.round, &k.target); err == nil {
			for _, line := range block {
				if v, ok := strings.CutPrefix(line, "variant: "); ok {
					k.variant = strings.TrimSpace(v)
					break
				}
			}
			if drop[k] {
				dropped++
				block = block[:0]
				return
			}
		}
		for _, line := range block {
			out.WriteString(line + "\n")
		}
		block = block[:0]
	}
	for _, line := range strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n") {
		if strings.HasPrefix(line, "# round ") {
			flush()
		}
		block = append(block, line)
	}
	flush()
	return out.Bytes(), dropped
}

// renderReadme writes the README of a results folder. findings, the
// contents of FindingsFile, is what a person concluded from the run; it
// goes first, under its own heading, and survives a regenerated report.
func renderReadme(meta *Metadata, res *ReportResult, findings string) string {
	c := res.Comparison
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	title := "schedlab results: suite " + meta.Suite
	if meta.Sweep != nil {
		title = fmt.Sprintf("schedlab sweep: %s over %s", meta.Sweep.Knob, strings.Join(meta.Sweep.Values, ", "))
	}
	p("# %s\n\n", title)
	p("Written by `schedlab report`; the raw data is `%s` (Go benchmark format, one block per run with its `variant:`, `toolchain:`, `godebug:`, `series:` … lines), ", RawFile)
	p("so `benchstat -col variant -ignore toolchain,godebug,series %s` reproduces the tables' numbers and verdicts (without `-ignore`, those keys split the columns).\n\n", RawFile)
	if f := strings.TrimSpace(findings); f != "" {
		p("## Findings\n\n%s\n\n(From `%s`, written by hand after the run.)\n\n", f, FindingsFile)
	}

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
		p("- Each run started %d copies of the benchmark's process side by side; `%s` holds, per run, the mean of the copies' results (so a run stays one sample), `%s` each copy's own, marked `copy: K`\n", meta.Copies, RawFile, CopiesFile)
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

	m := meta.Machine
	p("## Machine\n\n")
	p("- Host %s: %s, %d cores, %d NUMA node(s)\n", m.Host, m.CPU, m.Cores, m.NUMANodes)
	p("- Kernel %s, %s/%s\n", m.Kernel, m.GOOS, m.GOARCH)
	if m.Virtualization != "" { // folders written before these fields existed lack them
		p("- SMT: %d thread(s) per core; memory %d MiB; virtualization: %s\n", m.ThreadsPerCore, m.MemoryMiB, m.Virtualization)
	}
	if d := meta.Doctor; d != nil && len(d.Warnings) > 0 {
		p("- What distorts measurements here (`schedlab doctor` at the start; full report in `%s`):\n", MetadataFile)
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
			p("- %s\n", verdict(t, ci, c.Base))
		}
		if uc := res.Uncontended; uc != nil && res.Dropped > 0 {
			p("\nWithout the %d runs that were short of CPU (`%s`, `%s`):\n\n", res.Dropped, UncontendedRawFile, UncontendedBenchstatFile)
			for _, t := range uc.Tables {
				if uci := slices.Index(uc.Cols, col); uci >= 0 && keyUnit(meta, t.Unit) {
					p("- %s\n", verdict(t, uci, uc.Base))
				}
			}
		}
		p("\n")
	}
	p("Differences are benchstat's: medians with 95%% confidence intervals and a Mann-Whitney U test at α=%.2f; `~` means no significant difference, not no difference. "+
		"Significant rows also give Holm's adjusted p over the rows of the same unit and column (a correction for testing many rows at once). "+
		"For the `~` rows, the differences they could have missed are the largest ratios the two 95%% CIs allow (cell low over baseline high, cell high over baseline low): a conservative bound.\n\n", c.alpha)

	b.WriteString(oracleGap(meta, c))
	writePhysical(p, meta, res)
	writeTraces(p, meta)
	b.WriteString(res.Profiles)

	if len(res.SelfCheck) > 0 || len(meta.Contended) > 0 || len(meta.Failures) > 0 || len(meta.Notes) > 0 {
		p("## Warnings\n\n")
		for _, w := range res.SelfCheck {
			p("- %s\n", w)
		}
		if n := len(meta.Contended); n > 0 {
			p("- CPU contention: %d of the runs were short of CPU (other processes or the hypervisor took more than %.1f CPUs; see `%s`)", n, contendedDefault, RunsFile)
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
	if len(res.SelfCheck) == 0 && hasSelfCheckPair(c) {
		p("Self-check passed: variants with the same toolchain and knobs show no significant difference")
		if minSamples(c) < 6 {
			p(" (but with fewer than 6 runs per variant the check is weak)")
		}
		p(".\n\n")
	}

	p("## Tables\n\n```\n%s```\n\n", res.Benchstat)
	if len(res.Plots) > 0 {
		p("## Plots\n\n")
		for _, pl := range res.Plots {
			p("![%s](%s)\n\n", strings.TrimSuffix(filepath.Base(pl), ".svg"), filepath.ToSlash(pl))
		}
	}
	p("## Files\n\n- `%s`: raw results\n- `%s`: the tables above\n- `%s`: the same, one line per benchmark, unit and variant\n- `%s`: every run's wall time, CPU time and contention\n- `%s`: complete output of every run\n- `%s`: machine, toolchains, knobs, failures\n", RawFile, BenchstatFile, CSVFile, RunsFile, LogFile, MetadataFile)
	if res.Dropped > 0 {
		p("- `%s`, `%s`: the raw results and tables without the %d runs that were short of CPU\n", UncontendedRawFile, UncontendedBenchstatFile, res.Dropped)
	}
	if res.Physical != nil {
		p("- `%s`, `%s`: each run's physical evidence (NUMA page allocation and placement, hardware counters where they open) and its tables\n", PhysicalFile, PhysicalBenchstatFile)
	}
	return b.String()
}

func minSamples(c *Comparison) int {
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

func hasSelfCheckPair(c *Comparison) bool {
	for i := range c.ColID {
		for j := i + 1; j < len(c.ColID); j++ {
			if c.ColID[i] == c.ColID[j] {
				return true
			}
		}
	}
	return false
}

func identicalBinaries(meta *Metadata) []string {
	var out []string
	seenTC := map[string]bool{}
	var vs []VariantMeta
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

// verdict describes column ci against the base in one unit's table.
func verdict(t *UnitTable, ci, base int) string {
	better, worse := "better", "worse"
	if t.Unit == "sec/op" {
		better, worse = "faster", "slower"
	}
	var good, bad []string
	same, missing, holmKept := 0, 0, 0
	var limits []float64 // detection limits of the rows without a difference
	for _, r := range t.Rows {
		d := r.Deltas[ci]
		if d == nil {
			missing++
			continue
		}
		if !d.Significant || math.IsNaN(d.Pct) {
			same++
			if !math.IsNaN(d.Limit) {
				limits = append(limits, d.Limit)
			}
			continue
		}
		if d.SignificantHolm {
			holmKept++
		}
		up := d.Pct > 0
		s := fmt.Sprintf("%s %+.1f%% (p=%.3f, Holm p=%.3f)", r.Name, d.Pct, d.Cmp.P, d.PHolm)
		if up == t.BetterHigher {
			good = append(good, s)
		} else {
			bad = append(bad, s)
		}
	}
	dir := "lower is better"
	if t.BetterHigher {
		dir = "higher is better"
	}
	s := fmt.Sprintf("%s (%s): ", t.Unit, dir)
	var parts []string
	if len(good) > 0 {
		parts = append(parts, fmt.Sprintf("%d %s at p<0.05 (%s)", len(good), better, strings.Join(good, ", ")))
	}
	if len(bad) > 0 {
		parts = append(parts, fmt.Sprintf("%d %s at p<0.05 (%s)", len(bad), worse, strings.Join(bad, ", ")))
	}
	if n := len(good) + len(bad); n > 0 {
		if holmKept == 0 {
			parts = append(parts, fmt.Sprintf("none of the %d significant after Holm's correction over the %d rows", n, len(t.Rows)-missing))
		} else {
			parts = append(parts, fmt.Sprintf("%d of these significant after Holm's correction over the %d rows", holmKept, len(t.Rows)-missing))
		}
	}
	if same > 0 {
		part := fmt.Sprintf("%d without a significant difference", same)
		if len(limits) > 0 {
			sort.Float64s(limits)
			part += fmt.Sprintf(" (differences these rows could have missed, from the 95%% CIs: median ±%.1f%%, largest ±%.1f%%)", limits[len(limits)/2], limits[len(limits)-1])
		}
		parts = append(parts, part)
	}
	if missing > 0 {
		parts = append(parts, fmt.Sprintf("%d not comparable (missing data)", missing))
	}
	s += strings.Join(parts, "; ")
	if len(t.Rows) > 1 {
		g, gb := t.Geomean[ci], t.Geomean[base]
		if !math.IsNaN(g) && !math.IsNaN(gb) && gb != 0 {
			s += fmt.Sprintf("; geomean %+.2f%%", (g/gb-1)*100)
		}
	}
	return s
}
