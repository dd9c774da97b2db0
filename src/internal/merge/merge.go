// Package merge combines results folders of one study run on several
// machines into one folder: every result of every folder in one
// bench.txt (and physical.txt), labelled with `host:` and `topology:`
// configuration lines, each host's tables against its own base, and a
// README that sets the hosts' deltas side by side and gives the
// benchstat command lines that reproduce them.
//
// A merged folder is not a results folder of one run (it has no
// metadata.json), so it is not package report's: it reads the sources
// through package results, compares each with package stats, and writes
// its own README.
package merge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/perf/benchfmt"

	"github.com/schedlab/schedlab/src/internal/physical"
	"github.com/schedlab/schedlab/src/internal/results"
	"github.com/schedlab/schedlab/src/internal/stats"
)

// RecordFile is the record of a merged folder (Result): its sources
// and what was merged. A merged folder holds no metadata.json: that name
// means "one bench run", and a merge is several.
const RecordFile = "merge.json"

// mergeUnits are the units the README's cross-host summary has a table
// for, when some host has them.
var mergeUnits = []string{"sec/op", "on-node-share", "local-steal-share"}

// A Source is one results folder in a merge.
type Source struct {
	Path     string `json:"path"`
	Host     string `json:"host"`     // label: Machine.Host, with the folder's name when two folders share it
	Machine  string `json:"machine"`  // Machine.Host as recorded
	CPU      string `json:"cpu"`      // Machine.CPU
	Topology string `json:"topology"` // "2 node(s), 64 CPUs; node0 0-31, node1 32-63"
	// Nodes are the doctor's NUMA nodes, when the folder has a doctor
	// report; without one the topology comes from Machine.NUMANodes.
	Nodes          []physical.DoctorNode `json:"nodes,omitempty"`
	Suite          string                `json:"suite"`
	Series         string                `json:"series"`
	Variants       []string              `json:"variants"`
	Base           string                `json:"base"` // the variant the deltas are against ("" without results)
	Started        time.Time             `json:"started"`
	Finished       time.Time             `json:"finished"`
	Count          int                   `json:"count"`
	Complete       bool                  `json:"complete"`
	DoctorWarnings int                   `json:"doctor_warnings"` // -1 without a doctor report
	Results        int                   `json:"results"`         // benchmark results taken from bench.txt
	Physical       int                   `json:"physical"`        // and from physical.txt (0 if it has none)

	meta *results.Metadata
}

// A Missing is a machine whose results folder did not come back (a
// campaign task that failed or was killed): it has no rows, but the
// merged README names it and says why, so that a report over the hosts
// that answered does not read as one over all the hosts asked.
type Missing struct {
	Label  string `json:"label"`  // the task or host, e.g. "task 1 (node07)"
	Reason string `json:"reason"` // one line: what happened and where its log is
}

// Result says what Folders wrote; it is also the content of
// merge.json.
type Result struct {
	Out      string    `json:"out"`
	Command  string    `json:"command"` // schedlab merge command line that redoes it
	Sources  []*Source `json:"sources"`
	Missing  []Missing `json:"missing,omitempty"`
	Warnings []string  `json:"warnings,omitempty"`
	Files    []string  `json:"files"` // written into Out

	// Comparisons are each source's tables, by source (nil where a
	// source has no results), its deltas against the source's first
	// variant as `schedlab report` computes them.
	Comparisons []*stats.Comparison `json:"-"`
}

// Folders merges the results folders dirs, the same study run on
// several machines, into one folder out: bench.txt (and physical.txt)
// with every result labelled by `host:` and `topology:` config lines,
// merge.json, the per-host benchstat tables, and a README comparing
// each host's variants with its base side by side. missing lists the
// machines that were asked and sent no folder; with none of dirs given,
// the folder holds only the README and merge.json that say so.
func Folders(out string, dirs []string, missing []Missing) (*Result, error) {
	if len(dirs) == 0 && len(missing) == 0 {
		return nil, fmt.Errorf("merge: no results folders given")
	}
	if out == "" {
		return nil, fmt.Errorf("merge: no output folder given")
	}
	if _, err := os.Stat(filepath.Join(out, results.RawFile)); err == nil {
		return nil, fmt.Errorf("%s already holds results (%s); choose another -out", out, results.RawFile)
	}
	res := &Result{Out: out, Command: mergeCommand(out, dirs, missing), Missing: missing}
	for _, d := range dirs {
		s, err := readSource(d)
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
	if len(res.Sources) > 0 {
		if err := res.mergeFiles(); err != nil {
			return nil, err
		}
		tables, err := res.compareHosts()
		if err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(out, results.BenchstatFile), tables, 0o644); err != nil {
			return nil, err
		}
		res.Files = append(res.Files, results.BenchstatFile)
	}
	res.Files = append(res.Files, results.ReadmeFile, RecordFile)
	if err := os.WriteFile(filepath.Join(out, results.ReadmeFile), []byte(renderMergeReadme(res)), 0o644); err != nil {
		return nil, err
	}
	data, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(out, RecordFile), append(data, '\n'), 0o644); err != nil {
		return nil, err
	}
	return res, nil
}

// mergeFiles writes the merged bench.txt into res.Out, and physical.txt
// when some source has one, and counts each source's results in them.
func (res *Result) mergeFiles() error {
	counts, warns, err := mergeBench(filepath.Join(res.Out, results.RawFile), res.Sources, results.RawFile)
	if err != nil {
		return err
	}
	res.Warnings = append(res.Warnings, warns...)
	for i, s := range res.Sources {
		s.Results = counts[i]
	}
	res.Files = append(res.Files, results.RawFile)
	hasPhysical := false
	for _, s := range res.Sources {
		if _, err := os.Stat(filepath.Join(s.Path, results.PhysicalFile)); err == nil {
			hasPhysical = true
		}
	}
	if hasPhysical {
		counts, warns, err := mergeBench(filepath.Join(res.Out, results.PhysicalFile), res.Sources, results.PhysicalFile)
		if err != nil {
			return err
		}
		res.Warnings = append(res.Warnings, warns...)
		for i, s := range res.Sources {
			s.Physical = counts[i]
		}
		res.Files = append(res.Files, results.PhysicalFile)
	}
	return nil
}

// compareHosts compares each host's variants against its own base, sets
// res.Comparisons and each source's Base, and returns the tables of all
// hosts, each under a "# host" line, for the merged benchstat.txt. A
// host without tables gets a warning, not an error.
func (res *Result) compareHosts() ([]byte, error) {
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
	return tb.Bytes(), nil
}

// readSource reads a results folder's metadata.
func readSource(dir string) (*Source, error) {
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("%s is not a schedlab results folder: %v", dir, err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("%s is not a schedlab results folder: not a directory", dir)
	}
	meta, err := results.ReadMetadata(dir)
	if err != nil {
		return nil, fmt.Errorf("%s is not a schedlab results folder: %v", dir, err)
	}
	if _, err := os.Stat(filepath.Join(dir, results.RawFile)); err != nil {
		return nil, fmt.Errorf("%s is not a schedlab results folder: %v", dir, err)
	}
	s := &Source{
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
func topology(meta *results.Metadata) string {
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
// folders share it, the name with the end of the folder's path that
// tells them apart, "vm (run-2)", or "vm (task0/2026-12-02-vm-numa)"
// for folders of the same name in different places (a campaign's tasks
// on one machine); with a number added where even that repeats.
func labelHosts(srcs []*Source) {
	host := func(s *Source) string {
		if h := oneLine(s.Machine); h != "" {
			return h
		}
		return "unknown"
	}
	byHost := map[string][]int{}
	for i, s := range srcs {
		byHost[host(s)] = append(byHost[host(s)], i)
	}
	for h, idx := range byHost {
		if len(idx) == 1 {
			srcs[idx[0]].Host = h
			continue
		}
		paths := make([]string, len(idx))
		for k, i := range idx {
			paths[k] = srcs[i].Path
		}
		for k, suffix := range pathSuffixes(paths) {
			srcs[idx[k]].Host = oneLine(fmt.Sprintf("%s (%s)", h, suffix))
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
// pathSuffixes returns, for each of paths, its last elements: as few as
// tell it from the others (the base name where the base names differ),
// the whole cleaned path where nothing shorter does.
func pathSuffixes(paths []string) []string {
	elems := make([][]string, len(paths))
	most := 0
	for i, p := range paths {
		if abs, err := filepath.Abs(p); err == nil {
			p = abs
		}
		elems[i] = strings.Split(strings.Trim(filepath.ToSlash(filepath.Clean(p)), "/"), "/")
		most = max(most, len(elems[i]))
	}
	suffix := func(i, k int) string {
		e := elems[i]
		return strings.Join(e[max(0, len(e)-k):], "/")
	}
	out := make([]string, len(paths))
	for i := range paths {
		for k := 1; k <= most; k++ {
			out[i] = suffix(i, k)
			unique := true
			for j := range paths {
				if j != i && suffix(j, k) == out[i] {
					unique = false
					break
				}
			}
			if unique {
				break
			}
		}
	}
	return out
}

// mismatchWarnings says when the sources ran different patch series or
// suites: a cross-host comparison then compares different things.
func mismatchWarnings(srcs []*Source) []string {
	var warns []string
	for _, f := range []struct {
		what string
		get  func(*Source) string
	}{
		{"patch series", func(s *Source) string { return s.Series }},
		{"suites", func(s *Source) string { return s.Suite }},
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

func distinctBases(srcs []*Source) []string {
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
func mergeBench(path string, srcs []*Source, name string) ([]int, []string, error) {
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "# schedlab merge of %d results folders; every result has host: and topology: lines naming its machine\n", len(srcs))
	w := benchfmt.NewWriter(&buf)
	units := map[benchfmt.UnitMetadataKey]string{}
	counts := make([]int, len(srcs))
	var warns []string
	for i, s := range srcs {
		src := filepath.Join(s.Path, name)
		f, err := os.Open(src)
		if os.IsNotExist(err) && name != results.RawFile {
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
// variant, as `schedlab report` does.
func compareSource(s *Source) (*stats.Comparison, error) {
	base := ""
	if len(s.Variants) > 0 {
		base = s.Variants[0]
	}
	return stats.CompareAgainst(filepath.Join(s.Path, results.RawFile), base)
}

func mergeCommand(out string, dirs []string, missing []Missing) string {
	args := []string{"schedlab", "merge", "-out", results.ShellQuote(out)}
	for _, m := range missing {
		args = append(args, "-missing", results.ShellQuote(m.Label+": "+m.Reason))
	}
	for _, d := range dirs {
		args = append(args, results.ShellQuote(d))
	}
	return strings.Join(args, " ")
}
