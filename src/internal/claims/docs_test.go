package claims

import (
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/src/internal/toolchain"
)

// TestDocsQuoteClaims checks the numbers that README, CONTRIBUTING,
// docs/ and the patches' commit messages quote next to links into (or
// paths of) results folders: in a paragraph (or
// table row) whose links all go to folders with a ClaimsFile, every
// number with a decimal point, a k or a % must be one that those
// folders' claims hold (and TestFolders recomputes). A paragraph that
// also cites a folder without claims may quote no such number.
func TestDocsQuoteClaims(t *testing.T) {
	root, err := toolchain.FindRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	docs := []string{filepath.Join(root, "README.md"), filepath.Join(root, "CONTRIBUTING.md")}
	patches, err := filepath.Glob(filepath.Join(root, "patches", "*.patch"))
	if err != nil {
		t.Fatal(err)
	}
	docs = append(docs, patches...)
	filepath.WalkDir(filepath.Join(root, "docs"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			docs = append(docs, p)
		}
		return nil
	})
	claims, err := ByFolder(root)
	if err != nil {
		t.Error(err)
	}
	checked, unchecked := 0, 0
	for _, doc := range docs {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, doc)
		text := string(b)
		var refs map[string]string
		if strings.HasSuffix(doc, ".patch") {
			// The commit message only: the diff's numbers are code.
			text, _, _ = strings.Cut(text, "\n---\n")
			refs = messageRefs(text)
		}
		for _, para := range Paragraphs(text) {
			// A commit message cites a folder as a numbered reference,
			// "[1]", listed after the prose: the paragraph quotes what
			// the folders of its references hold.
			for _, m := range refMark.FindAllStringSubmatch(para, -1) {
				if f, ok := refs[m[1]]; ok {
					para += "\n" + f
				}
			}
			links := FolderLink.FindAllStringSubmatch(para, -1)
			if len(links) == 0 {
				continue
			}
			var cs []Claim
			allowed := specAllowed(para)
			all := true
			for _, l := range links {
				c := claims[l[1]]
				all = all && len(c) > 0
				cs = append(cs, c...)
				set, err := Settings(filepath.Join(root, "results", l[1]))
				if err != nil {
					t.Errorf("%s: %v", l[1], err)
				}
				allowed = append(allowed, set...)
			}
			if !all {
				// Nothing to check without numbers; with numbers, the
				// folders must say where they come from.
				if u := Uncited(para, nil, allowed...); len(u) > 0 {
					var missing []string
					for _, l := range links {
						if len(claims[l[1]]) == 0 && !slices.Contains(missing, l[1]) {
							missing = append(missing, l[1])
						}
					}
					t.Errorf("%s quotes %s next to folders without %s: %s", rel, strings.Join(u, " "), ClaimsFile, strings.Join(missing, ", "))
				}
				unchecked++
				continue
			}
			checked++
			if u := Uncited(para, cs, allowed...); len(u) > 0 {
				t.Errorf("%s quotes numbers that no claim of the folders it links holds: %s\n\t%.160s", rel, strings.Join(u, " "), strings.ReplaceAll(para, "\n", " "))
			}
		}
	}
	t.Logf("%d paragraphs citing folders with claims checked; %d citing a folder without claims quote no number", checked, unchecked)
	if checked == 0 {
		t.Errorf("no paragraph checked: the link pattern or the claims files are broken")
	}
}

// TestSeriesTable checks the table of docs/design/README.md that lists
// the series patch by patch (with each patch's upstream status, which
// the commit messages do not carry): one row per file of patches/, in
// order, with the patch's subject and the upstream issues its message's
// For/Updates line names. It also checks that every patch file name
// quoted in README, CONTRIBUTING and docs/ is one of patches/, so that a
// renumbered series cannot leave a stale name behind.
func TestSeriesTable(t *testing.T) {
	root, err := toolchain.FindRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(root, "patches", "*.patch"))
	if len(files) == 0 {
		t.Fatal("no patches")
	}
	b, err := os.ReadFile(filepath.Join(root, "docs", "design", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| `([0-9]{4}-[^`]+\\.patch)` \\| ([^|]+) \\| [^|]* \\| ([^|]+) \\| ([^|]+) \\|$")
	rows := row.FindAllStringSubmatch(string(b), -1)
	names := map[string]bool{}
	for i, f := range files {
		name := filepath.Base(f)
		names[name] = true
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		msg, _, _ := strings.Cut(string(data), "\n---\n")
		subject := regexp.MustCompile(`(?m)^Subject: \[PATCH\] (.*(?:\n .*)*)`).FindStringSubmatch(msg)
		if subject == nil {
			t.Fatalf("%s: no subject", name)
		}
		subj := strings.ReplaceAll(subject[1], "\n ", " ")
		var issues []string
		for _, m := range regexp.MustCompile(`(?m)^(?:For|Updates) (#.*)$`).FindAllStringSubmatch(msg, -1) {
			for _, n := range regexp.MustCompile(`#[0-9]+`).FindAllString(m[1], -1) {
				issues = append(issues, "golang/go"+n)
			}
		}
		want := strings.Join(issues, ", ")
		if want == "" {
			want = "none"
		}
		if i >= len(rows) {
			t.Errorf("docs/design/README.md: no row for %s", name)
			continue
		}
		r := rows[i]
		if r[1] != name || strings.TrimSpace(r[2]) != subj || strings.TrimSpace(r[3]) != want {
			t.Errorf("docs/design/README.md row %d = %s | %s | %s, want %s | %s | %s", i+1, r[1], strings.TrimSpace(r[2]), strings.TrimSpace(r[3]), name, subj, want)
		}
		if st := strings.TrimSpace(r[4]); !strings.HasPrefix(st, "not forwarded") && !strings.HasPrefix(st, "not needed") && !strings.HasPrefix(st, "CL ") && !strings.HasPrefix(st, "merged") {
			t.Errorf("%s: upstream status %q is none of not forwarded, not needed, CL N, merged", name, st)
		}
	}
	if len(rows) > len(files) {
		t.Errorf("docs/design/README.md lists %d patches, patches/ has %d", len(rows), len(files))
	}

	docs := []string{filepath.Join(root, "README.md"), filepath.Join(root, "CONTRIBUTING.md")}
	filepath.WalkDir(filepath.Join(root, "docs"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			docs = append(docs, p)
		}
		return nil
	})
	quoted := regexp.MustCompile(`[0-9]{4}-[A-Za-z0-9._-]+\.patch`)
	for _, doc := range docs {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, doc)
		for _, q := range quoted.FindAllString(string(b), -1) {
			if !names[q] {
				t.Errorf("%s quotes %s, which is not in patches/", rel, q)
			}
		}
	}
}

var update = flag.Bool("update", false, "rewrite "+BoundFile+" (TestNumbersBound)")

// TestNumbersBound checks every number of the bound documents (see
// BoundFile) against the list: the same numbers in the same order, and
// each with the binding it has now. With -update it rewrites the list,
// refusing numbers that nothing binds unless the list had them.
func TestNumbersBound(t *testing.T) {
	root, err := toolchain.FindRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	claims, err := ByFolder(root)
	if err != nil {
		t.Error(err)
	}
	now, err := Bind(root, claims)
	if err != nil {
		t.Fatal(err)
	}
	old, err := ReadBound(root)
	if err != nil && !*update {
		t.Fatal(err)
	}
	if *update {
		if nu := NewUnbound(old, now); len(nu) > 0 {
			for _, b := range nu {
				t.Errorf("%s paragraph %d: %s is no claim of a folder the paragraph links, no setting, spec, knob value, issue or patch number", b.Doc, b.Para, b.Quote)
			}
			t.Fatalf("%d new unbound numbers: %s not rewritten", len(nu), BoundFile)
		}
		if err := WriteBound(root, now); err != nil {
			t.Fatal(err)
		}
		return
	}
	kinds := map[string]int{}
	for _, b := range now {
		kind, _, _ := strings.Cut(b.Binding, " ")
		kinds[kind]++
	}
	t.Logf("%d numbers bound: %v", len(now), kinds)
	diffs := DiffBound(old, now)
	for _, d := range diffs {
		t.Error(d)
	}
	if len(diffs) > 0 {
		t.Errorf("%d documents differ from %s; after an intended edit run: go test ./src/internal/claims -run TestNumbersBound -update", len(diffs), BoundFile)
	}
}
