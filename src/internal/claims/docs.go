package claims

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// FolderLink matches a link into a results folder: results/<folder>.
var FolderLink = regexp.MustCompile(`results/(\d{4}-\d{2}-\d{2}-[A-Za-z0-9_-]+)`)

// Paragraphs splits Markdown into blank-line separated paragraphs, with
// each table row on its own, since a row quotes its own folder.
func Paragraphs(text string) []string {
	var out []string
	for _, p := range strings.Split(text, "\n\n") {
		var rest []string
		for _, l := range strings.Split(p, "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), "|") {
				out = append(out, l)
			} else {
				rest = append(rest, l)
			}
		}
		out = append(out, strings.Join(rest, "\n"))
	}
	return out
}

// ByFolder reads the claims of every folder under root's results/ and
// returns them by the folder they quote: a folder's own, and those of
// other folders that quote its files (a study of three folders keeps
// its claims in one), which count for both.
func ByFolder(root string) (map[string][]Claim, error) {
	claims := map[string][]Claim{}
	dirs, err := filepath.Glob(filepath.Join(root, "results", "*"))
	if err != nil {
		return nil, err
	}
	var errs []error
	for _, d := range dirs {
		if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
			continue
		}
		cs, err := Read(d)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %v", filepath.Base(d), err))
		}
		for _, c := range cs {
			folder := filepath.Base(d)
			if rest, ok := strings.CutPrefix(c.File, "../"); ok {
				folder, _, _ = strings.Cut(rest, "/")
			}
			claims[folder] = append(claims[folder], c)
			if folder != filepath.Base(d) {
				claims[filepath.Base(d)] = append(claims[filepath.Base(d)], c)
			}
		}
	}
	return claims, errors.Join(errs...)
}

// refMark is a numbered reference in a commit message's prose, and
// refLine the line after the prose that names it.
var (
	refMark = regexp.MustCompile(`\[([0-9]+)\]`)
	refLine = regexp.MustCompile(`(?m)^\[([0-9]+)\] .*?(results/\S+)`)
)

// messageRefs maps the numbered references of a commit message to the
// results folder each names.
func messageRefs(msg string) map[string]string {
	refs := map[string]string{}
	for _, m := range refLine.FindAllStringSubmatch(msg, -1) {
		refs[m[1]] = m[2]
	}
	return refs
}
