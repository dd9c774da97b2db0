// Package results defines a results folder: the names of the files that
// `schedlab bench` writes into it and that a report adds, the metadata
// that describes the run (Metadata, read and written here), and the
// configuration lines that head every block of results (BlockConfig).
//
// It is the contract between the package that writes a folder (bench)
// and those that read it (report, merge), in the role benchfmt plays in
// golang.org/x/perf: they share the names and formats defined here, so
// that none of them needs another. It measures nothing and computes no
// statistics; the most it runs is git, for a folder's Provenance.
package results

import "strings"

// Files that `schedlab bench` writes into a results folder.
const (
	RawFile      = "bench.txt"     // Go benchmark format, all variants interleaved
	LogFile      = "log.txt"       // complete output of every run
	RunsFile     = "runs.tsv"      // one line per run: timing, CPU, status
	MetadataFile = "metadata.json" // Metadata

	// CopiesFile holds, with -copies N, every copy's own result lines,
	// each block marked with a "copy: K" configuration line. RawFile
	// has their mean per run instead, so that a round stays one sample.
	CopiesFile = "copies.txt"

	// PhysicalFile holds the physical evidence of every run, in Go
	// benchmark format (one line per run, named after its target, with
	// the run's variant block), so that benchstat and the report compare
	// it like any other metric. It answers what the scheduler's
	// bookkeeping cannot: where memory was allocated and placed, and
	// (with a PMU) how many loads went to another node.
	PhysicalFile = "physical.txt"

	// TracesDir holds the execution traces of `schedlab bench -trace`,
	// one per variant and target, each with its analysis in a folder of
	// the same name.
	TracesDir = "traces"

	// ProfilesDir holds the profiles of `schedlab bench -profile`.
	ProfilesDir = "profiles"
)

// Files a report adds to a results folder.
const (
	BenchstatFile = "benchstat.txt"
	CSVFile       = "results.csv"
	ReadmeFile    = "README.md"
	FindingsFile  = "FINDINGS.md" // optional, hand-written; quoted at the top of the README
	PlotsDir      = "plots"

	// PhysicalBenchstatFile holds the benchstat tables of PhysicalFile.
	PhysicalBenchstatFile = "physical-benchstat.txt"

	// With runs that were short of CPU, the report also compares the
	// runs without them: the raw data without those runs, and its
	// tables.
	UncontendedRawFile       = "bench-uncontended.txt"
	UncontendedBenchstatFile = "benchstat-uncontended.txt"
)

// SafeName turns s (a benchmark, variant or unit name) into part of a
// file name: every character other than an ASCII letter, a digit, '-',
// '_' and '.' becomes '_'. The plots, traces and profiles of a results
// folder are named with it, so a regenerated report finds and replaces
// the same files.
func SafeName(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			return r
		}
		return '_'
	}, s)
}
