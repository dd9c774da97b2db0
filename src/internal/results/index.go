package results

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/schedlab/schedlab/src/internal/series"
)

// Files of the results index, in results/.
const (
	IndexFile     = "INDEX.md"
	IndexJSONFile = "INDEX.json"
)

// An IndexEntry describes one results folder.
type IndexEntry struct {
	Folder  string `json:"folder"`
	Date    string `json:"date"`
	Study   string `json:"study"`
	Series  string `json:"series,omitempty"`  // metadata.json's, else bench.txt's first series: line
	Runtime string `json:"runtime,omitempty"` // the series' runtime fingerprint, "" where unknown
	// Status is "current" (the current series), "current runtime"
	// (another series with the current runtime's code: it changed
	// only tools, tests, messages or how the changes are split into
	// patches), "older runtime", or "unknown"
	// (no series recorded, or one the history does not hold).
	Status   string `json:"status"`
	Harness  string `json:"harness,omitempty"` // harness commit of the run, "-dirty" if its tree was
	Metadata bool   `json:"metadata"`          // has metadata.json
	// Control says whether the run carried a control: two variants
	// with the same toolchain, GODEBUG and wrapper (stock and stock2),
	// whose difference shows what the machine alone does. "yes", "no",
	// or "" where metadata.json lists no variants (hand-run folders).
	Control string   `json:"control,omitempty"`
	Newer   string   `json:"newer,omitempty"` // the latest folder of the same study, if not this one
	CitedBy []string `json:"cited_by,omitempty"`
}

// Index lists the folders in root/results. fps maps series to runtime
// fingerprints (series.RuntimeFingerprints); current is the current
// series.
func Index(root string, fps map[string]string, current string) ([]IndexEntry, error) {
	dirs, err := os.ReadDir(filepath.Join(root, "results"))
	if err != nil {
		return nil, err
	}
	docs, err := readDocs(root)
	if err != nil {
		return nil, err
	}
	var out []IndexEntry
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		e := IndexEntry{Folder: d.Name()}
		e.Date, e.Study = splitFolder(d.Name())
		dir := filepath.Join(root, "results", d.Name())
		if m, err := ReadMetadata(dir); err == nil {
			e.Metadata = true
			e.Series = m.Series
			e.Control = control(m.Variants)
			if c := m.Project.Commit; c != "" {
				e.Harness = c[:min(12, len(c))]
				if m.Project.Dirty {
					e.Harness += "-dirty"
				}
			}
		}
		if e.Series == "" {
			e.Series = benchSeries(filepath.Join(dir, RawFile))
		}
		e.Runtime = fps[e.Series]
		switch {
		case e.Series == "" || e.Runtime == "":
			e.Status = "unknown"
		case e.Series == current:
			e.Status = "current"
		case e.Runtime == fps[current]:
			e.Status = "current runtime"
		default:
			e.Status = "older runtime"
		}
		cite := regexp.MustCompile(`results/` + regexp.QuoteMeta(d.Name()) + `([^A-Za-z0-9_.-]|$)`)
		for _, doc := range docs {
			if cite.MatchString(doc.text) {
				e.CitedBy = append(e.CitedBy, doc.path)
			}
		}
		out = append(out, e)
	}
	markNewer(out)
	return out, nil
}

// control is IndexEntry.Control for a run's variants.
func control(vs []VariantMeta) string {
	if len(vs) == 0 {
		return ""
	}
	seen := map[string]bool{}
	for _, v := range vs {
		k := fmt.Sprint(v.Toolchain, "\x00", v.GODEBUG, "\x00", strings.Join(v.Wrapper, " "), "\x00", v.ExecTrace)
		if seen[k] {
			return "yes"
		}
		seen[k] = true
	}
	return "no"
}

// splitFolder splits "2026-12-01-vm-pauses" into its date and the study
// after the host ("pauses").
func splitFolder(name string) (date, study string) {
	if len(name) < 11 || name[10] != '-' {
		return "", name
	}
	date, rest := name[:10], name[11:]
	if _, s, ok := strings.Cut(rest, "-"); ok {
		return date, s
	}
	return date, rest
}

var numbered = regexp.MustCompile(`^(.*)-(\d+)$`)

// markNewer sets Newer on every folder of a study (its name without a
// trailing "-N") but the latest, by date then N.
func markNewer(es []IndexEntry) {
	type rank struct {
		date string
		n    int
		i    int
	}
	latest := map[string]rank{}
	key := func(e IndexEntry) (string, int) {
		if m := numbered.FindStringSubmatch(e.Study); m != nil {
			n, _ := strconv.Atoi(m[2])
			return m[1], n
		}
		return e.Study, 1
	}
	for i, e := range es {
		k, n := key(e)
		if r, ok := latest[k]; !ok || e.Date > r.date || e.Date == r.date && n > r.n {
			latest[k] = rank{e.Date, n, i}
		}
	}
	for i := range es {
		k, _ := key(es[i])
		if r := latest[k]; r.i != i {
			es[i].Newer = es[r.i].Folder
		}
	}
}

// benchSeries returns the first "series: " line's value of a benchmark
// file, "" if none.
func benchSeries(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "series: "); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

type doc struct{ path, text string }

// listFiles lists the files below root/dir (absent: none) whose names
// end in one of suffixes, relative to root and slash-separated.
func listFiles(root, dir string, suffixes ...string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(filepath.Join(root, filepath.FromSlash(dir)), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) {
				return nil
			}
			return err
		}
		if d.IsDir() || !slices.ContainsFunc(suffixes, func(s string) bool { return strings.HasSuffix(p, s) }) {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		files = append(files, filepath.ToSlash(rel))
		return nil
	})
	return files, err
}

// readDocs reads the documents whose citations the index lists:
// README.md, CONTRIBUTING.md and docs/**/*.md.
func readDocs(root string) ([]doc, error) {
	var paths []string
	for _, f := range []string{"README.md", "CONTRIBUTING.md"} {
		if _, err := os.Stat(filepath.Join(root, f)); err == nil {
			paths = append(paths, f)
		}
	}
	more, err := listFiles(root, "docs", ".md")
	if err != nil {
		return nil, err
	}
	paths = append(paths, more...)
	sort.Strings(paths)
	var docs []doc
	for _, p := range paths {
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p)))
		if err != nil {
			return nil, err
		}
		docs = append(docs, doc{p, string(data)})
	}
	return docs, nil
}

// WriteIndex writes the index as Markdown.
func WriteIndex(w io.Writer, es []IndexEntry, current, runtime string) {
	counts := map[string]int{}
	for _, e := range es {
		counts[e.Status]++
	}
	fmt.Fprintf(w, "# Results index\n\n")
	fmt.Fprintf(w, "Generated by `schedlab index` (do not edit; `go test ./src/internal/results` fails when it is stale). ")
	fmt.Fprintf(w, "One line per folder of `results/`. The current series is `%s`, whose runtime fingerprint is `%s`: ", current, runtime)
	fmt.Fprintf(w, "a hash of the final content of each file compiled into the runtime that the series changes (`src/runtime`, `src/internal/runtime`, the trace event table; tests left out), so that a series that changed only tools, tests, messages or how the changes are split into patches keeps it. ")
	fmt.Fprintf(w, "Status: `current` (%d folders) measured the current series; `current runtime` (%d) another series with the same runtime code; `older runtime` (%d) runtime code that has changed since; `unknown` (%d) no series recorded, or one the history does not hold. ",
		counts["current"], counts["current runtime"], counts["older runtime"], counts["unknown"])
	fmt.Fprintf(w, "`newer` names the latest folder of the same study; \"harness\" is the schedlab commit of the run (`-dirty`: from a modified tree); \"control\" whether the run carried two variants of the same toolchain and GODEBUG (stock and stock2), without which an effect of a few percent cannot be told from the machine (`no`: none; empty: a hand-run folder whose metadata lists no variants). [docs/results.md](../docs/results.md) says what each study found.\n\n")
	fmt.Fprintf(w, "| folder | date | series | runtime | status | harness | metadata | control | newer | cited by |\n|---|---|---|---|---|---|---|---|---|---|\n")
	for _, e := range es {
		md := "no"
		if e.Metadata {
			md = "yes"
		}
		fmt.Fprintf(w, "| [%s](%s/) | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", e.Folder, e.Folder, e.Date, code(e.Series), code(e.Runtime), e.Status, code(e.Harness), md, e.Control, e.Newer, strings.Join(e.CitedBy, ", "))
	}
}

// upstreamRuntime is the runtime fingerprint of a series that changes no
// runtime file: sha256 of nothing.
const upstreamRuntime = "e3b0c44298fc"

func code(s string) string {
	if s == "" {
		return ""
	}
	if s == upstreamRuntime {
		return "upstream's"
	}
	return "`" + s + "`"
}

// WriteIndexJSON writes the index as JSON.
func WriteIndexJSON(w io.Writer, es []IndexEntry, current, runtime string) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(struct {
		Series  string       `json:"series"`
		Runtime string       `json:"runtime"`
		Folders []IndexEntry `json:"folders"`
	}{current, runtime, es})
}

// BuildIndex is Index with the runtime fingerprints from the checkout's
// git history and the current series from its patches/ (whose
// fingerprint is computed from the files, committed or not).
func BuildIndex(root string) (es []IndexEntry, current, runtime string, err error) {
	fps, err := series.RuntimeFingerprints(root)
	if err != nil {
		return nil, "", "", err
	}
	patches := filepath.Join(root, "patches")
	if current, err = series.HashPatches(patches); err != nil {
		return nil, "", "", err
	}
	if runtime, err = series.RuntimeFingerprint(patches); err != nil {
		return nil, "", "", err
	}
	fps[current] = runtime
	es, err = Index(root, fps, current)
	return es, current, runtime, err
}
