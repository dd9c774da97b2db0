package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/schedlab/schedlab/src/internal/claims"
)

// cmdClaims drafts claims for prose that quotes results folders.
func cmdClaims(args []string) error {
	fs := flag.NewFlagSet("claims", flag.ExitOnError)
	doc := fs.String("doc", "", "draft for the paragraphs of this Markdown file (or patch) that link results folders, instead of the folders' FINDINGS.md")
	write := fs.Bool("write", false, "append the drafted claims to each folder's "+claims.ClaimsFile)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: schedlab claims draft [-write] DIR...\n"+
			"       schedlab claims draft [-write] -doc FILE\n\n"+
			"Proposes %s lines for the numbers that a folder's FINDINGS.md (or, with -doc,\n"+
			"a document's paragraphs that link folders) quotes without a claim: for each, the\n"+
			"first cell of the folder's benchmark files, among the benchmarks its table row,\n"+
			"line or paragraph names, whose value rounds to it. Numbers it cannot place are\n"+
			"listed on stderr for a person. Review a draft before committing it: it finds a\n"+
			"value that matches, not necessarily the one the author meant.\n\n", claims.ClaimsFile)
		fs.PrintDefaults()
	}
	if len(args) == 0 || args[0] != "draft" {
		fs.Usage()
		return exitError{2}
	}
	fs.Parse(args[1:])
	if (*doc == "") == (fs.NArg() == 0) {
		fs.Usage()
		return exitError{2}
	}
	r, err := root()
	if err != nil {
		return err
	}
	have, err := claims.ByFolder(r)
	if err != nil {
		return err
	}
	// drafted collects the new claims by folder, in the order found.
	drafted := map[string][]claims.Claim{}
	var order []string
	var unmatched []string
	add := func(folder string, cs []claims.Claim) {
		if len(cs) > 0 && drafted[folder] == nil {
			order = append(order, folder)
		}
		drafted[folder] = append(drafted[folder], cs...)
		have[folder] = append(have[folder], cs...)
	}
	if *doc == "" {
		for _, dir := range fs.Args() {
			folder := filepath.Base(filepath.Clean(dir))
			text, err := os.ReadFile(filepath.Join(dir, "FINDINGS.md"))
			if err != nil {
				return err
			}
			d, err := claims.DraftText(dir, string(text), have[folder])
			if err != nil {
				return err
			}
			add(folder, d.Claims)
			for _, u := range d.Unmatched {
				unmatched = append(unmatched, folder+": "+u)
			}
		}
	} else {
		b, err := os.ReadFile(*doc)
		if err != nil {
			return err
		}
		text := string(b)
		if strings.HasSuffix(*doc, ".patch") {
			text, _, _ = strings.Cut(text, "\n---\n")
		}
		for _, para := range claims.Paragraphs(text) {
			var folders, all []string
			var known []claims.Claim
			for _, l := range claims.FolderLink.FindAllStringSubmatch(para, -1) {
				all = append(all, l[1])
				known = append(known, have[l[1]]...)
				if _, err := os.Stat(filepath.Join(r, "results", l[1])); err == nil && !slices.Contains(folders, l[1]) {
					folders = append(folders, l[1])
				}
			}
			if len(all) == 0 {
				continue
			}
			// Each folder in turn places what the ones before it
			// could not.
			var left []string
			for i, folder := range folders {
				d, err := claims.DraftText(filepath.Join(r, "results", folder), para, known)
				if err != nil {
					return err
				}
				add(folder, d.Claims)
				known = append(known, d.Claims...)
				if i == len(folders)-1 {
					left = d.Unmatched
				}
			}
			for _, u := range left {
				unmatched = append(unmatched, strings.Join(folders, ",")+": "+u)
			}
		}
	}
	for _, folder := range order {
		dir := filepath.Join(r, "results", folder)
		path := filepath.Join(dir, claims.ClaimsFile)
		_, statErr := os.Stat(path)
		lines := claims.FormatClaims(drafted[folder], os.IsNotExist(statErr))
		if !*write {
			fmt.Printf("# %s\n%s", folder, lines)
			continue
		}
		f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			return err
		}
		if _, err := f.WriteString(lines); err != nil {
			f.Close()
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
		fmt.Printf("%s: %d claims drafted\n", folder, len(drafted[folder]))
	}
	for _, u := range unmatched {
		fmt.Fprintf(os.Stderr, "not placed: %s\n", u)
	}
	return nil
}
