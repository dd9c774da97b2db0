package series

import (
	"bufio"
	"bytes"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
)

// Patch is the part of a git format-patch file the series rules look at.
type Patch struct {
	Name    string   // file name
	Subject string   // without the "[PATCH] " prefix
	Body    []string // message lines after the subject, trimmed of trailing blanks
	Files   []string // paths the diff touches (b/ side)
}

// ParsePatch reads a format-patch mbox.
func ParsePatch(name string, data []byte) (Patch, error) {
	p := Patch{Name: name}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	state := "headers"
	inSubject := false
	for sc.Scan() {
		line := sc.Text()
		switch state {
		case "headers":
			switch {
			case line == "":
				state = "body"
			case inSubject && (strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t")):
				p.Subject += line // RFC 5322 unfolding keeps the whitespace
			default:
				inSubject = false
				if v, ok := strings.CutPrefix(line, "Subject: "); ok {
					p.Subject, inSubject = v, true
				}
			}
		case "body":
			if line == "---" {
				state = "diff"
				continue
			}
			p.Body = append(p.Body, line)
		case "diff":
			if rest, ok := strings.CutPrefix(line, "diff --git a/"); ok {
				if _, b, ok := strings.Cut(rest, " b/"); ok {
					p.Files = append(p.Files, b)
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		return p, err
	}
	if state != "diff" {
		return p, fmt.Errorf("%s: not a git format-patch file (no --- separator)", name)
	}
	p.Subject = strings.TrimPrefix(p.Subject, "[PATCH] ")
	for len(p.Body) > 0 && strings.TrimSpace(p.Body[len(p.Body)-1]) == "" {
		p.Body = p.Body[:len(p.Body)-1]
	}
	for len(p.Body) > 0 && strings.TrimSpace(p.Body[0]) == "" {
		p.Body = p.Body[1:]
	}
	return p, nil
}

var (
	patchNameRE = regexp.MustCompile(`^[0-9]{4}-[A-Za-z0-9._-]+\.patch$`)
	// Go's convention: "pkg/path: lowercase verb phrase", several packages
	// comma-separated, no trailing period.
	subjectRE = regexp.MustCompile(`^[a-z0-9_./{}*-]+(, ?[a-z0-9_./{}*-]+)*: [a-z0-9].*[^.]$`)
	// Evidence is cited the way upstream messages cite data kept
	// elsewhere: a numbered reference in the prose ("[1]") and, after
	// the prose, one line per reference naming it.
	refMarkRE = regexp.MustCompile(`\[([0-9]+)\]`)
	refLineRE = regexp.MustCompile(`^\[([0-9]+)\] \S`)
)

// maxSubject is the longest subject line; upstream reviewers ask for
// shorter than about 72 characters.
const maxSubject = 72

// Lint returns every violation of the series rules in a patch.
func (p Patch) Lint() []string {
	var errs []string
	bad := func(format string, args ...any) {
		errs = append(errs, p.Name+": "+fmt.Sprintf(format, args...))
	}
	if !patchNameRE.MatchString(filepath.Base(p.Name)) {
		bad("file name does not look like NNNN-slug.patch")
	}
	if !subjectRE.MatchString(p.Subject) {
		bad("subject %q does not follow Go's \"pkg: lowercase verb phrase\" form without a trailing period", p.Subject)
	}
	if len(p.Subject) > maxSubject {
		bad("subject is %d characters, want at most %d", len(p.Subject), maxSubject)
	}
	var prose []string
	marks, refs := map[string]bool{}, map[string]bool{}
	for _, l := range p.Body {
		t := strings.TrimSpace(l)
		switch {
		case t == "":
		case strings.HasPrefix(l, "Upstream:"):
			bad("an %q trailer is not upstream's style: the upstream status of each patch is in docs/design/README.md", l)
		case refLineRE.MatchString(l):
			refs[refLineRE.FindStringSubmatch(l)[1]] = true
		case strings.HasPrefix(l, "For #"), strings.HasPrefix(l, "Updates #"), strings.HasPrefix(l, "Fixes #"):
		default:
			prose = append(prose, l)
			if strings.Contains(l, "results/") {
				bad("the prose cites a results folder (%q): cite it as a numbered reference ([1]) listed after the prose", t)
			}
			for _, m := range refMarkRE.FindAllStringSubmatch(l, -1) {
				marks[m[1]] = true
			}
		}
	}
	if len(prose) == 0 {
		bad("the body does not say why the change is needed")
	}
	for m := range marks {
		if !refs[m] {
			bad("reference [%s] has no line naming it after the prose", m)
		}
	}
	for r := range refs {
		if !marks[r] {
			bad("reference [%s] is listed but not cited in the prose", r)
		}
	}
	for _, l := range p.Body {
		if len(l) > 76 && !strings.Contains(l, "://") && !strings.HasPrefix(l, "    ") {
			bad("body line longer than 76 characters: %q", l)
			break
		}
	}
	return errs
}

// touchedPackages maps the files a patch changes to import paths of Go
// packages under src/ (without testdata).
func touchedPackages(files []string) []string {
	seen := map[string]bool{}
	var pkgs []string
	for _, f := range files {
		rest, ok := strings.CutPrefix(f, "src/")
		if !ok || !strings.HasSuffix(f, ".go") || strings.Contains(f, "/testdata/") {
			continue
		}
		dir := filepath.Dir(rest)
		if !seen[dir] {
			seen[dir] = true
			pkgs = append(pkgs, dir)
		}
	}
	return pkgs
}
