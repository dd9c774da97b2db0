package claims

import (
	"io/fs"
	"os"
	"path/filepath"
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
		if strings.HasSuffix(doc, ".patch") {
			// The commit message only: the diff's numbers are code.
			text, _, _ = strings.Cut(text, "\n---\n")
		}
		for _, para := range Paragraphs(text) {
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
