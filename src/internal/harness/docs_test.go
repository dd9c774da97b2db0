package harness

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// repoRoot is the repository root, three levels above this package
// (src/internal/harness).
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("repository root %s: %v", root, err)
	}
	return root
}

// resultsDocs lists the markdown files that cite results, relative to
// root: README.md, CONTRIBUTING.md, docs/**/*.md and the FINDINGS.md and
// NOTES*.md of every results folder.
func resultsDocs(t *testing.T, root string) []string {
	t.Helper()
	var files []string
	for _, f := range []string{"README.md", "CONTRIBUTING.md"} {
		if _, err := os.Stat(filepath.Join(root, f)); err == nil {
			files = append(files, f)
		}
	}
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) {
				return nil
			}
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".md") {
			rel, err := filepath.Rel(root, p)
			if err != nil {
				return err
			}
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, pat := range []string{"results/*/FINDINGS.md", "results/*/NOTES*.md"} {
		m, err := filepath.Glob(filepath.Join(root, filepath.FromSlash(pat)))
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range m {
			rel, _ := filepath.Rel(root, p)
			files = append(files, filepath.ToSlash(rel))
		}
	}
	return files
}

var (
	// A markdown link or image target: [text](target "title").
	mdLinkRE = regexp.MustCompile(`\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)`)
	// An HTML src or href attribute.
	htmlLinkRE = regexp.MustCompile(`\b(?:src|href)\s*=\s*"([^"]+)"`)
	// A path written out in text: results/<folder>[/<file>], possibly
	// behind ../, or ../<dated folder> (a sibling, from a results
	// folder). The first group is what precedes it: the start of the
	// line, a space, a bracket or a quote, so that a URL's
	// .../tree/main/results/... is no reference.
	textPathRE = regexp.MustCompile("(^|[\\s(\\[{\"'`*_])((?:\\.\\./)*results/[^\\s()\\[\\]{}<>\"'`|]*|(?:\\.\\./)+20\\d\\d-\\d\\d-\\d\\d-[a-z0-9-]+[^\\s()\\[\\]{}<>\"'`|]*)")
	// A code span.
	codeSpanRE = regexp.MustCompile("`([^`]+)`")
	// A results folder's name (date, host, study), as a code span's
	// whole text: `2026-11-30-vm-numa-2` or `2026-11-30-vm-numa-2/FINDINGS.md`.
	datedFolderRE = regexp.MustCompile(`^20\d\d-\d\d-\d\d-[a-z0-9-]+(?:/[^\s]*)?$`)
	// A template placeholder: <date>, <host>, $(...), ${...}, globs.
	placeholderRE = regexp.MustCompile(`<[A-Za-z][^<>]*>|\$[({]`)
)

// A resultsRef is one reference to a results folder or file.
type resultsRef struct {
	file string // the markdown file, relative to the root
	line int
	text string // as written
	path string // resolved, relative to the root, slash-separated
	dir  bool   // written with a trailing slash: must be a directory
}

// findResultsRefs returns the references to results folders and files
// in the markdown file rel (relative to root): link targets that lie in
// results/ or name it, text paths results/... and ../<dated folder>,
// and code spans holding a bare dated folder name. Fenced code blocks
// that are templates (holding <placeholders> or $(...)) are skipped.
func findResultsRefs(root, rel string, data []byte) []resultsRef {
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	dir := filepath.Dir(filepath.Join(root, filepath.FromSlash(rel)))
	skip := make([]bool, len(lines))
	// Fenced code blocks: skip the template ones.
	for i := 0; i < len(lines); i++ {
		fence := fenceOf(lines[i])
		if fence == "" {
			continue
		}
		j := i + 1
		for j < len(lines) && !strings.HasPrefix(strings.TrimSpace(lines[j]), fence) {
			j++
		}
		template := false
		for k := i + 1; k < j && k < len(lines); k++ {
			if placeholderRE.MatchString(lines[k]) {
				template = true
			}
		}
		for k := i; k <= j && k < len(lines); k++ {
			skip[k] = template
		}
		i = j
	}

	var refs []resultsRef
	add := func(n int, text, abs string, explicitlyResults bool) {
		r, err := filepath.Rel(root, abs)
		if err != nil {
			return
		}
		r = filepath.ToSlash(r)
		if !explicitlyResults && !strings.HasPrefix(r, "results/") {
			return
		}
		refs = append(refs, resultsRef{file: rel, line: n, text: text, path: r, dir: strings.HasSuffix(text, "/")})
	}
	for i, line := range lines {
		if skip[i] {
			continue
		}
		n := i + 1
		// Link targets, resolved against the file's folder. Blank each
		// one out so the text scan below does not see it again.
		blank := []byte(line)
		for _, re := range []*regexp.Regexp{mdLinkRE, htmlLinkRE} {
			for _, m := range re.FindAllStringSubmatchIndex(line, -1) {
				target := line[m[2]:m[3]]
				for k := m[2]; k < m[3]; k++ {
					blank[k] = ' '
				}
				if u, err := url.Parse(target); err != nil || u.Scheme != "" || u.Host != "" || strings.HasPrefix(target, "#") {
					continue
				}
				if placeholderRE.MatchString(target) {
					continue
				}
				p := target
				if k := strings.IndexAny(p, "#?"); k >= 0 {
					p = p[:k]
				}
				if up, err := url.PathUnescape(p); err == nil {
					p = up
				}
				var abs string
				if strings.HasPrefix(p, "/") {
					abs = filepath.Join(root, filepath.FromSlash(p))
				} else {
					abs = filepath.Join(dir, filepath.FromSlash(p))
				}
				named := strings.Contains("/"+p, "/results/") || datedFolderRE.MatchString(strings.TrimLeft(p, "./"))
				add(n, target, abs, named)
			}
		}
		text := string(blank)
		// Paths in text: results/... from the root, ../... from the file.
		for _, m := range textPathRE.FindAllStringSubmatchIndex(text, -1) {
			tok := strings.TrimRight(text[m[4]:m[5]], ".,;:!?")
			if end := m[4] + len(tok); end < len(text) && text[end] == '<' {
				continue // results/<date>-<host>-<name>/ and the like
			}
			if strings.ContainsAny(tok, "*${}…") {
				continue // a glob or a shell template
			}
			bare := strings.TrimLeft(tok, "./")
			if bare == "results" || bare == "results/" {
				continue // the folder itself
			}
			var abs string
			if strings.HasPrefix(tok, "../") {
				abs = filepath.Join(dir, filepath.FromSlash(tok))
			} else {
				abs = filepath.Join(root, filepath.FromSlash(tok))
			}
			add(n, tok, abs, true)
		}
		// A code span holding only a dated folder name is a results folder.
		for _, m := range codeSpanRE.FindAllStringSubmatch(text, -1) {
			s := strings.TrimSpace(m[1])
			if datedFolderRE.MatchString(s) && !strings.ContainsAny(s, "*${}<>") {
				add(n, s, filepath.Join(root, "results", filepath.FromSlash(s)), true)
			}
		}
	}
	return refs
}

// fenceOf returns the fence that opens a fenced code block on line, or "".
func fenceOf(line string) string {
	s := strings.TrimLeft(line, " ")
	if len(line)-len(s) > 3 {
		return ""
	}
	for _, c := range []string{"`", "~"} {
		if strings.HasPrefix(s, c+c+c) {
			n := len(s) - len(strings.TrimLeft(s, c))
			return strings.Repeat(c, n)
		}
	}
	return ""
}

// TestFindResultsRefs checks the reference scanner on made-up lines.
func TestFindResultsRefs(t *testing.T) {
	root := t.TempDir()
	for _, tc := range []struct {
		file string
		doc  []string
		want []string // "line text resolved-path"
	}{{
		file: "README.md",
		doc: []string{
			"See [numa](results/2026-11-30-vm-a/) and results/2026-11-30-vm-b/bench.txt.", // 1
			"Local runs go to `runs/`; keep one in `results/`, e.g. results/<date>-<host>-<name>/.",
			"<img src=\"results/2026-11-30-vm-c/plots/x.svg\"> https://github.com/o/r/tree/main/results/nope/",
			"```",
			"mv runs/<folder> results/ && git add results/<folder> results/2026-01-01-template",
			"```",
			"```",
			"benchstat results/2026-11-30-vm-d/bench.txt", // 8
			"```",
			"[web](https://example.com/results/x) [anchor](#results) `results/*/FINDINGS.md`",
		},
		want: []string{
			"1 results/2026-11-30-vm-a/ results/2026-11-30-vm-a",
			"1 results/2026-11-30-vm-b/bench.txt results/2026-11-30-vm-b/bench.txt",
			"3 results/2026-11-30-vm-c/plots/x.svg results/2026-11-30-vm-c/plots/x.svg",
			"8 results/2026-11-30-vm-d/bench.txt results/2026-11-30-vm-d/bench.txt",
		},
	}, {
		file: "docs/design/x.md",
		doc: []string{
			"[evidence](../../results/2026-11-30-vm-e/FINDINGS.md); not results/ itself.",
			"[wrong](results/2026-11-30-vm-f/)",
		},
		want: []string{
			"1 ../../results/2026-11-30-vm-e/FINDINGS.md results/2026-11-30-vm-e/FINDINGS.md",
			"2 results/2026-11-30-vm-f/ docs/design/results/2026-11-30-vm-f",
		},
	}, {
		file: "results/2026-11-30-vm-k/FINDINGS.md",
		doc: []string{
			"Rerun of `../2026-11-30-vm-g/`; see [h](../2026-11-30-vm-h/) and ../2026-11-30-vm-i.",
			"Same as `2026-11-30-vm-j`, not `go1.27.4` nor 2026-11-30 nor [plots](plots/x.svg).",
		},
		want: []string{
			"1 ../2026-11-30-vm-h/ results/2026-11-30-vm-h",
			"1 ../2026-11-30-vm-g/ results/2026-11-30-vm-g",
			"1 ../2026-11-30-vm-i results/2026-11-30-vm-i",
			"2 plots/x.svg results/2026-11-30-vm-k/plots/x.svg",
			"2 2026-11-30-vm-j results/2026-11-30-vm-j",
		},
	}} {
		var got []string
		for _, r := range findResultsRefs(root, tc.file, []byte(strings.Join(tc.doc, "\n"))) {
			got = append(got, fmt.Sprintf("%d %s %s", r.line, r.text, r.path))
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s refs:\n%s\nwant:\n%s", tc.file, strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
		}
	}
}

// TestDocsCiteExistingResults checks that every results folder or file
// that the README, CONTRIBUTING.md, the design docs and the results'
// FINDINGS.md and NOTES*.md cite exists.
func TestDocsCiteExistingResults(t *testing.T) {
	root := repoRoot(t)
	var missing []string
	nrefs := 0
	for _, rel := range resultsDocs(t, root) {
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range findResultsRefs(root, rel, data) {
			nrefs++
			fi, err := os.Stat(filepath.Join(root, filepath.FromSlash(r.path)))
			switch {
			case err != nil:
				missing = append(missing, fmt.Sprintf("%s:%d: %s (%s) does not exist", r.file, r.line, r.text, r.path))
			case r.dir && !fi.IsDir():
				missing = append(missing, fmt.Sprintf("%s:%d: %s (%s) is not a folder", r.file, r.line, r.text, r.path))
			}
		}
	}
	t.Logf("%d references to results checked", nrefs)
	if nrefs == 0 {
		t.Errorf("found no references to results at all: the scanner is broken")
	}
	if len(missing) > 0 {
		t.Errorf("%d cited results are missing:\n%s", len(missing), strings.Join(missing, "\n"))
	}
}

// benchstatFolders are the committed results whose benchstat.txt
// TestBenchstatReproducesCommittedTables checks against the real
// benchstat.
var benchstatFolders = []string{
	"2026-11-30-vm-cost-workloads-3",
	"2026-11-30-vm-numa-2",
	"2026-11-30-vm-cgo-unbind-2",
}

// benchstatArgs is the command line the README documents for
// reproducing benchstat.txt from bench.txt.
var benchstatArgs = []string{"-col", "variant", "-ignore", "toolchain,godebug,series", "bench.txt"}

// A statTable is one unit's table in benchstat's text output or in
// Comparison.WriteText's.
type statTable struct {
	unit    string
	cols    []string // column names, as in the first header line
	base    string   // the column the others are compared with
	rows    []statRow
	geomean []string // its tokens without footnote marks, for the log
}

// A statRow is one benchmark's row of a statTable.
type statRow struct {
	name  string
	cells []statCell // by column
}

// A statCell is one column of a statRow.
type statCell struct {
	value string // "652.7µ ± 10%"; "" where the column has no data
	delta string // "~ (p=0.579 n=10)", "-2.13% (p=0.011 n=10)"; "" where there is none
}

// parseBenchstat reads the tables of benchstat's text output (written
// with writeText false) or of Comparison.WriteText's. A table starts
// with two header lines holding │: column names, then the unit and "vs
// base" (benchstat, whose base is the first column) or "vs <column>"
// (WriteText). Its rows follow up to a blank line. In benchstat's
// output superscripts are footnote marks and are dropped, and so are
// the footnotes; in WriteText's, ¹ stands for a cell without data, and
// note lines are dropped.
func parseBenchstat(text string, writeText bool) ([]statTable, error) {
	var tables []statTable
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	for i := 0; i+1 < len(lines); i++ {
		if !strings.Contains(lines[i], "│") || !strings.Contains(lines[i+1], "│") {
			continue
		}
		var t statTable
		h1 := strings.Split(lines[i], "│")
		for _, c := range h1[1 : len(h1)-1] {
			t.cols = append(t.cols, strings.TrimSpace(c))
		}
		h2 := strings.Split(lines[i+1], "│")
		if f := strings.Fields(h2[1]); len(f) > 0 {
			t.unit = f[0]
		}
		t.base = t.cols[0]
		if _, vs, ok := strings.Cut(lines[i+1], " vs "); ok {
			if b := strings.Fields(vs)[0]; b != "base" {
				t.base = b
			}
		}
		if t.unit == "" || len(t.cols) == 0 {
			return nil, fmt.Errorf("line %d: no unit or columns in the table header", i+2)
		}
		for i += 2; i < len(lines) && strings.TrimSpace(lines[i]) != ""; i++ {
			if strings.Contains(lines[i], "│") {
				i--
				break
			}
			f := strings.Fields(lines[i])
			if isFootnote(f[0]) || f[0] == "note:" {
				continue
			}
			var toks []string
			for _, tok := range f[1:] {
				if writeText && tok == "¹" || !isFootnote(tok) {
					toks = append(toks, tok)
				}
			}
			if f[0] == "geomean" {
				t.geomean = slices.DeleteFunc(toks, isFootnote)
				continue
			}
			r := statRow{name: f[0]}
			for j := 0; j < len(toks); {
				switch {
				case toks[j] == "¹":
					r.cells = append(r.cells, statCell{})
					j++
				case j+2 < len(toks) && toks[j+1] == "±":
					r.cells = append(r.cells, statCell{value: strings.Join(toks[j:j+3], " ")})
					j += 3
				case j+2 < len(toks) && strings.HasPrefix(toks[j+1], "(p=") && len(r.cells) > 0:
					r.cells[len(r.cells)-1].delta = strings.Join(toks[j:j+3], " ")
					j += 3
				default:
					return nil, fmt.Errorf("line %d: unexpected %q in %q", i+1, toks[j], lines[i])
				}
			}
			if len(r.cells) != len(t.cols) {
				return nil, fmt.Errorf("line %d: %d cells for %d columns in %q", i+1, len(r.cells), len(t.cols), lines[i])
			}
			t.rows = append(t.rows, r)
		}
		tables = append(tables, t)
	}
	return tables, nil
}

// isFootnote reports whether s is only superscript digits.
func isFootnote(s string) bool {
	return s != "" && strings.Trim(s, "⁰¹²³⁴⁵⁶⁷⁸⁹") == ""
}

// TestBenchstatReproducesCommittedTables runs the real benchstat, built
// from this module's golang.org/x/perf, with the command line the
// README documents, on the bench.txt of a few committed results, and
// checks what the README promises: that it reproduces every row of the
// committed benchstat.txt (written by Comparison.WriteText). The bytes
// differ: benchstat prints the config lines first, heads tables
// differently ("vs base", no "unit:"), pads and adds footnote marks,
// and leaves out a column without data. So the test parses both and
// compares, for every unit and benchmark, each column's center ± CI
// and each delta with its p-value and sample counts, token by token.
func TestBenchstatReproducesCommittedTables(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command: %v", err)
	}
	root := repoRoot(t)

	cmdline := "benchstat " + strings.Join(benchstatArgs, " ")
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(readme, []byte(cmdline)) {
		t.Errorf("README.md no longer documents %q; update the README or this test", cmdline)
	}

	var dirs []string
	for _, f := range benchstatFolders {
		d := filepath.Join(root, "results", f)
		_, err1 := os.Stat(filepath.Join(d, "bench.txt"))
		_, err2 := os.Stat(filepath.Join(d, "benchstat.txt"))
		if err := errors.Join(err1, err2); err != nil {
			t.Logf("skipping %s: %v", f, err)
			continue
		}
		dirs = append(dirs, d)
	}
	if len(dirs) == 0 {
		t.Skip("none of the results folders is here")
	}

	bin := filepath.Join(t.TempDir(), "benchstat")
	build := exec.Command(goCmd, "build", "-o", bin, "golang.org/x/perf/cmd/benchstat")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build golang.org/x/perf/cmd/benchstat: %v\n%s", err, out)
	}

	for _, d := range dirs {
		t.Run(filepath.Base(d), func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(d, "benchstat.txt"))
			if err != nil {
				t.Fatal(err)
			}
			want, err := parseBenchstat(string(data), true)
			if err != nil {
				t.Fatalf("benchstat.txt: %v", err)
			}
			cmd := exec.Command(bin, benchstatArgs...)
			cmd.Dir = d
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("%s: %v\n%s", cmdline, err, stderr.Bytes())
			}
			got, err := parseBenchstat(string(out), false)
			if err != nil {
				t.Fatalf("%s: %v", cmdline, err)
			}
			compareBenchstat(t, got, want)
		})
	}
}

// compareBenchstat compares benchstat's tables (got) with the committed
// ones (want): the same units in the same order; in each the same
// columns, less those without data in benchstat.txt; the same rows; and
// in every row the same center ± CI in each column and the same delta,
// p-value and counts against the base. Where benchstat.txt's base
// column has no data it compares nothing, while benchstat takes the
// first column with data as the base; those deltas are logged, not
// compared. Geomeans are not compared either (the README promises the
// rows): benchstat gives no geomean when a center is 0 and takes the
// geomean of the ratios, WriteText the ratio of the geomeans over the
// rows with data everywhere.
func compareBenchstat(t *testing.T, got, want []statTable) {
	t.Helper()
	unitsOf := func(ts []statTable) []string {
		var u []string
		for _, t := range ts {
			u = append(u, t.unit)
		}
		return u
	}
	if len(want) == 0 {
		t.Fatalf("benchstat.txt holds no tables")
	}
	if !slices.Equal(unitsOf(got), unitsOf(want)) {
		t.Errorf("units:\n  benchstat:     %v\n  benchstat.txt: %v", unitsOf(got), unitsOf(want))
	}
	byUnit := map[string]statTable{}
	for _, g := range got {
		byUnit[g.unit] = g
	}
	for _, w := range want {
		g, ok := byUnit[w.unit]
		if !ok {
			continue // reported above
		}
		// The columns with data in benchstat.txt, by index into w.cols.
		var cols []int
		var names []string
		for ci, c := range w.cols {
			for _, r := range w.rows {
				if r.cells[ci].value != "" {
					cols = append(cols, ci)
					names = append(names, c)
					break
				}
			}
		}
		if !slices.Equal(g.cols, names) {
			t.Errorf("%s columns: benchstat %v, benchstat.txt %v (those with data)", w.unit, g.cols, names)
			continue
		}
		rebased := !slices.Contains(names, w.base)
		if rebased {
			if len(g.cols) > 1 {
				t.Logf("%s: the base column %s has no data, so benchstat.txt compares nothing; benchstat compares with %s (not checked)", w.unit, w.base, g.base)
			}
		} else if g.base != w.base {
			t.Errorf("%s base: benchstat %s, benchstat.txt %s", w.unit, g.base, w.base)
			continue
		}
		if len(g.rows) != len(w.rows) {
			t.Errorf("%s: benchstat has %d rows, benchstat.txt %d", w.unit, len(g.rows), len(w.rows))
		}
		for i := 0; i < len(g.rows) && i < len(w.rows); i++ {
			gr, wr := g.rows[i], w.rows[i]
			if gr.name != wr.name {
				t.Errorf("%s row %d: benchstat %s, benchstat.txt %s", w.unit, i+1, gr.name, wr.name)
				continue
			}
			for gi, ci := range cols {
				gc, wc := gr.cells[gi], wr.cells[ci]
				if gc.value != wc.value {
					t.Errorf("%s %s %s: benchstat %q, benchstat.txt %q", w.unit, wr.name, w.cols[ci], gc.value, wc.value)
				}
				if (!rebased || wc.delta != "") && gc.delta != wc.delta {
					t.Errorf("%s %s %s vs %s: benchstat %q, benchstat.txt %q", w.unit, wr.name, w.cols[ci], w.base, gc.delta, wc.delta)
				}
			}
		}
		if !slices.Equal(g.geomean, w.geomean) {
			t.Logf("%s geomean (not compared): benchstat %q, benchstat.txt %q", w.unit, g.geomean, w.geomean)
		}
	}
}
