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
	subjectRE  = regexp.MustCompile(`^[a-z0-9_./{}*-]+(, ?[a-z0-9_./{}*-]+)*: [a-z0-9].*[^.]$`)
	upstreamRE = regexp.MustCompile(`^Upstream: (not-forwarded|not-needed|golang/go#[0-9]+|CL [0-9]+|https://go\.dev/(issue|cl)/[0-9]+|https://go-review\.googlesource\.com/c/go/\+/[0-9]+)$`)
)

const maxSubject = 76

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
	last := ""
	for _, l := range p.Body {
		if strings.TrimSpace(l) != "" {
			last = l
		}
		if strings.TrimSpace(l) != "" && !strings.HasPrefix(l, "Upstream:") && !strings.HasPrefix(l, "For #") && !strings.HasPrefix(l, "Updates #") {
			prose = append(prose, l)
		}
	}
	if len(prose) == 0 {
		bad("the body does not say why the change is needed")
	}
	if !upstreamRE.MatchString(last) {
		bad("the body must end with an \"Upstream: not-forwarded|golang/go#N|CL N\" line, ends with %q", last)
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
