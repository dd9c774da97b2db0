package results

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/src/internal/benchstattest"
)

// repoRoot is the repository root, three levels above this package
// (src/internal/results).
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

// filesUnder is listFiles, failing the test on an error.
func filesUnder(t *testing.T, root, dir string, suffixes ...string) []string {
	t.Helper()
	files, err := listFiles(root, dir, suffixes...)
	if err != nil {
		t.Fatal(err)
	}
	return files
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
	files = append(files, filesUnder(t, root, "docs", ".md")...)
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
			want, err := benchstattest.Parse(string(data), true)
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
			got, err := benchstattest.Parse(string(out), false)
			if err != nil {
				t.Fatalf("%s: %v", cmdline, err)
			}
			benchstattest.Compare(t, got, want)
		})
	}
}

// patchFileRef is a patch file of the series as docs name it.
var patchFileRef = regexp.MustCompile(`\b\d{4}-[A-Za-z0-9-]+\.patch\b`)

// TestDocsNamePatchesThatExist checks that every patch file that
// README, CONTRIBUTING or docs/ names (the design docs' implementation
// tables) is in patches/: folding or rewording a patch renames its
// file, and a table that still names the old one misleads a reader
// looking for the change.
func TestDocsNamePatchesThatExist(t *testing.T) {
	root := repoRoot(t)
	n := 0
	for _, rel := range resultsDocs(t, root) {
		if strings.HasPrefix(rel, "results/") {
			continue // history: folders name the series of their day
		}
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(data), "\n") {
			for _, name := range patchFileRef.FindAllString(line, -1) {
				n++
				if _, err := os.Stat(filepath.Join(root, "patches", name)); err != nil {
					t.Errorf("%s:%d: names patches/%s, which does not exist", rel, i+1, name)
				}
			}
		}
	}
	if n == 0 {
		t.Errorf("no patch file named in any doc: the pattern is broken")
	}
}
