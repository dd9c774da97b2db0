package claims

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Every number that README, CONTRIBUTING, docs/, the patches' commit
// messages and the results folders' FINDINGS and hand-written READMEs
// quote is listed, in order, in BoundFile with what binds it:
//
//	claim <folder>/<id>  a claim of a folder the paragraph links (or, in
//	                     a commit message, cites as a numbered reference);
//	                     TestFolders recomputes it from the folder's data
//	setting <folder>     a duration the folder's runs were configured with
//	spec                 a duration the code fixes (SpecDurations)
//	dbgvar <knob>        in a table row of the knob, its default, least
//	                     or greatest value as the patches' dbgvars table
//	                     declares it
//	knob                 a value after a knob's or variable's name
//	                     (numa=1, GOMAXPROCS=8), a setting, not a result
//	issue                an issue number (#28808, issue 52)
//	list                 an ordered list's item number
//	version              a Go release (Go ≥ 1.21)
//	patch                a patch number (0013; TestSeriesTable checks
//	                     the names)
//	unbound              none of these: numbers written before the
//	                     binding existed, kept as they are
//
// TestNumbersBound fails when a document's numbers differ from the
// list: a changed, swapped, added or removed number, integers and
// durations included, in a paragraph with a folder link or without. An
// intended edit is recorded with
//
//	go test ./src/internal/claims -run TestNumbersBound -update
//
// which binds each number afresh and refuses a new unbound one: a new
// number must be a claim of a folder its paragraph links, or one of the
// other kinds. So the unbound numbers can only become fewer.

// BoundFile is the list of bound numbers, relative to the project root.
const BoundFile = "results/BOUND.tsv"

// A Bound is one number of a document and what binds it.
type Bound struct {
	Doc     string // relative to the project root
	Para    int    // paragraph (or table row), from 1
	Quote   string
	Binding string
}

func (b Bound) String() string {
	return fmt.Sprintf("%s\t%d\t%s\t%s", b.Doc, b.Para, b.Quote, b.Binding)
}

// BoundDocs returns the documents whose numbers are bound, in order.
func BoundDocs(root string) ([]string, error) {
	docs := []string{"README.md", "CONTRIBUTING.md"}
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			rel, _ := filepath.Rel(root, p)
			docs = append(docs, rel)
		}
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	patches, _ := filepath.Glob(filepath.Join(root, "patches", "*.patch"))
	for _, p := range patches {
		docs = append(docs, filepath.Join("patches", filepath.Base(p)))
	}
	dirs, _ := filepath.Glob(filepath.Join(root, "results", "*"))
	sort.Strings(dirs)
	for _, d := range dirs {
		rel := filepath.Join("results", filepath.Base(d))
		if _, err := os.Stat(filepath.Join(d, "FINDINGS.md")); err == nil {
			docs = append(docs, filepath.Join(rel, "FINDINGS.md"))
		} else if _, err := os.Stat(filepath.Join(d, "README.md")); err == nil {
			// A folder without FINDINGS.md has a hand-written README.
			docs = append(docs, filepath.Join(rel, "README.md"))
		}
	}
	return docs, nil
}

var (
	// notQuotes are spans whose digits name things: fenced code, series
	// hashes, dates, folder paths and patch file names.
	fenced    = regexp.MustCompile("(?s)```.*?```")
	notQuotes = regexp.MustCompile(`https?://\S+|\b[0-9a-f]*[a-f][0-9a-f]*\b|\b\d{4}-\d\d-\d\d(?:-[A-Za-z0-9_-]+)?\b|\b\d\d:\d\d(?::\d\d)?\b|\b\d{4}-[A-Za-z0-9._-]+\.patch\b`)
	knobName  = regexp.MustCompile(`(?:^|[^A-Za-z0-9_])((?:GOMAXPROCS|GOGC|GOARCH|GODEBUG|numa\w*|sysmon\w*|timeslice\w*|trace\w*|sched\w*|asyncpreemptoff|gctrace|madvdontneed|cpu\.\w+|-count|-benchtime|-cpu|-n|PREFIX_\w+|ROUNDS|COUNT)=)$`)
)

// boundNumber is number, or a duration as Go writes it (6m36s, 1h2m,
// 93s), which number would read as an integer and a name.
var boundNumber = regexp.MustCompile(`[0-9]+h(?:[0-9]+m)?(?:[0-9]+(?:\.[0-9]+)?s)?\b|[0-9]+m[0-9]+(?:\.[0-9]+)?s\b|[0-9]+(?:\.[0-9]+)?s\b|` + number.String())

// Quotes returns the numbers of one document's paragraphs, in order.
// A commit message's paragraphs link the folders of their numbered
// references.
func Quotes(text string, isPatch bool) (paras []string, quotes [][]quote) {
	var refs map[string]string
	if isPatch {
		text, _, _ = strings.Cut(text, "\n---\n")
		text = messageOnly(text)
		refs = messageRefs(text)
	}
	text = blank(fenced, text)
	for _, para := range Paragraphs(text) {
		for _, m := range refMark.FindAllStringSubmatch(para, -1) {
			if f, ok := refs[m[1]]; ok {
				para += "\n" + f
			}
		}
		s := blank(notQuotes, blank(FolderLink, stripCode(para)))
		var qs []quote
		for _, loc := range boundNumber.FindAllStringIndex(s, -1) {
			m, off := s[loc[0]:loc[1]], loc[0]
			if off > 0 && (isLetter(s[off-1]) || s[off-1] == '_' || s[off-1] == '.') {
				continue // part of a name or a version: go1.27.4, numa1
			}
			if off > 0 && strings.HasPrefix(m, "-") && strings.ContainsRune("0123456789%s", rune(s[off-1])) {
				m, off = m[1:], off+1 // the dash of a range
			}
			m = strings.TrimRight(m, ",") // a thousands comma never ends a number
			if isPatch && refLineAt(s, off) {
				continue // the [1] of a reference's own line
			}
			qs = append(qs, quote{m, off})
		}
		paras = append(paras, para)
		quotes = append(quotes, qs)
	}
	return paras, quotes
}

// messageOnly returns the subject and body of a format-patch mbox
// message: its other headers (From, Date) are not prose.
func messageOnly(mbox string) string {
	headers, body, _ := strings.Cut(mbox, "\n\n")
	var subject []string
	in := false
	for _, l := range strings.Split(headers, "\n") {
		switch {
		case strings.HasPrefix(l, "Subject: "):
			subject, in = append(subject, strings.TrimPrefix(l, "Subject: ")), true
		case in && strings.HasPrefix(l, " "):
			subject = append(subject, l)
		default:
			in = false
		}
	}
	return strings.Join(subject, "\n") + "\n\n" + body
}

// refLineAt reports whether off is the number of a reference mark.
func refLineAt(s string, off int) bool {
	return off > 0 && s[off-1] == '['
}

// blank replaces what re matches in text with spaces, keeping every
// other byte where it was.
func blank(re *regexp.Regexp, text string) string {
	return re.ReplaceAllStringFunc(text, func(m string) string {
		b := []byte(m)
		for i := range b {
			if b[i] != '\n' {
				b[i] = ' '
			}
		}
		return string(b)
	})
}

// Bind binds the numbers of the documents under root; claims are the
// folders' claims (ByFolder).
func Bind(root string, claims map[string][]Claim) ([]Bound, error) {
	docs, err := BoundDocs(root)
	if err != nil {
		return nil, err
	}
	var out []Bound
	for _, doc := range docs {
		b, err := os.ReadFile(filepath.Join(root, doc))
		if errors.Is(err, fs.ErrNotExist) && !strings.Contains(doc, string(filepath.Separator)) {
			continue // a project without CONTRIBUTING.md
		}
		if err != nil {
			return nil, err
		}
		own := ""
		if strings.HasPrefix(doc, "results"+string(filepath.Separator)) {
			own = filepath.Base(filepath.Dir(doc))
		}
		paras, quotes := Quotes(string(b), strings.HasSuffix(doc, ".patch"))
		for i, para := range paras {
			if len(quotes[i]) == 0 {
				continue
			}
			var folders []string
			if own != "" {
				folders = append(folders, own)
			}
			for _, l := range FolderLink.FindAllStringSubmatch(para, -1) {
				folders = append(folders, l[1])
			}
			for _, l := range relLink.FindAllStringSubmatch(para, -1) {
				folders = append(folders, l[1])
			}
			for _, q := range quotes[i] {
				out = append(out, Bound{doc, i + 1, q.text, bind(root, para, q, folders, claims)})
			}
		}
	}
	return out, nil
}

// relLink matches a results folder linked from a folder next to it.
var relLink = regexp.MustCompile(`\]\(\.\./(\d{4}-\d{2}-\d{2}-[A-Za-z0-9_-]+)`)

// bind returns what binds q, a number of para, which links folders.
func bind(root, para string, q quote, folders []string, claims map[string][]Claim) string {
	if c := bestClaim(para, q, folders, claims); c != "" {
		return c
	}
	n := normal(q.text)
	s := stripCode(para)
	for _, f := range folders {
		set, _ := Settings(filepath.Join(root, "results", f))
		for _, v := range set {
			if normal(v) == n {
				return "setting " + f
			}
		}
	}
	for _, v := range specAllowed(para) {
		if normal(v) == n {
			return "spec"
		}
	}
	if m := knobRow.FindStringSubmatch(para); m != nil {
		for _, v := range dbgvarValues(root)[m[1]] {
			if v == n {
				return "dbgvar " + m[1]
			}
		}
	}
	before := s[:q.off]
	switch {
	case knobName.MatchString(before):
		return "knob"
	case strings.HasSuffix(before, "#") || issueWord.MatchString(before):
		return "issue"
	case listItem.MatchString(before) && strings.HasPrefix(s[q.off+len(q.text):], ". "):
		return "list"
	case goVersion.MatchString(before) && strings.HasPrefix(q.text, "1."):
		return "version"
	case len(q.text) == 4 && strings.HasPrefix(q.text, "00"):
		return "patch"
	}
	return "unbound"
}

// bestClaim returns the claim ("claim <folder>/<id>") that binds q, a
// number of para, or "" if no claim of folders quotes its value. Two
// claims often quote the same value (BurstyProducer's 43.1% share of
// local steals and another variant's ±43.1% detection limit), and
// binding the number to the wrong one would let the data behind it
// change unnoticed. So a claim quoted exactly as the paragraph writes
// the number (with its ± and sign) wins, then one whose benchmark or
// variant the paragraph names, then the first in folder and file order.
func bestClaim(para string, q quote, folders []string, claims map[string][]Claim) string {
	n := normal(q.text)
	written := q.text
	if strings.HasSuffix(para[:q.off], "±") {
		written = "±" + written
	}
	best, bestScore := "", -1
	for _, f := range folders {
		for _, c := range claims[f] {
			if normal(c.Quoted) != n {
				continue
			}
			score := 0
			if sameForm(c.Quoted, written) {
				score += 2
			}
			if names(para, benchName(c.Bench)) || names(para, c.Variant) {
				score++
			}
			if score > bestScore {
				best, bestScore = "claim "+f+"/"+c.ID, score
			}
		}
	}
	return best
}

// sameForm reports whether a and b are one number written alike: the
// same sign or ±, digits and unit, whatever the minus sign's glyph and
// the thousands commas.
func sameForm(a, b string) bool {
	canon := func(s string) string {
		return strings.ReplaceAll(strings.ReplaceAll(s, "−", "-"), ",", "")
	}
	return canon(a) == canon(b)
}

// benchName returns a claim's benchmark as prose names it, without
// benchstat's GOMAXPROCS suffix (BurstyProducer-8), or "" where the
// field is not a benchmark name (a regexp, a description or "-").
func benchName(bench string) string {
	if bench == "-" || strings.ContainsAny(bench, " ()[]|*+?\\") {
		return ""
	}
	if i := strings.LastIndexByte(bench, '-'); i > 0 && strings.Trim(bench[i+1:], "0123456789") == "" {
		bench = bench[:i]
	}
	return bench
}

// names reports whether text names name as a whole word: "bind1"
// is not named by "bind1-mem2".
func names(text, name string) bool {
	if name == "" || name == "-" {
		return false
	}
	wordByte := func(b byte) bool {
		return b == '-' || b == '_' || b == '/' || '0' <= b && b <= '9' || 'a' <= b|0x20 && b|0x20 <= 'z'
	}
	for i := 0; ; {
		j := strings.Index(text[i:], name)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(name)
		if (start == 0 || !wordByte(text[start-1])) && (end == len(text) || !wordByte(text[end])) {
			return true
		}
		i = start + 1
	}
}

// ReadBound reads BoundFile.
func ReadBound(root string) ([]Bound, error) {
	f, err := os.Open(filepath.Join(root, BoundFile))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Bound
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		if n == 1 {
			continue // header
		}
		fs := strings.Split(sc.Text(), "\t")
		if len(fs) != 4 {
			return nil, fmt.Errorf("%s:%d: %d fields, want 4 (doc para quote binding)", BoundFile, n, len(fs))
		}
		para, err := strconv.Atoi(fs[1])
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", BoundFile, n, err)
		}
		out = append(out, Bound{fs[0], para, fs[2], fs[3]})
	}
	return out, sc.Err()
}

// WriteBound writes bs to BoundFile.
func WriteBound(root string, bs []Bound) error {
	var b strings.Builder
	b.WriteString("doc\tpara\tquote\tbinding\n")
	for _, x := range bs {
		b.WriteString(x.String() + "\n")
	}
	return os.WriteFile(filepath.Join(root, BoundFile), []byte(b.String()), 0o644)
}

// NewUnbound returns the unbound numbers of now that old does not have
// unbound in the same document (as many times). The commit messages
// count as one document, so that renaming or reordering patches carries
// their numbers.
func NewUnbound(old, now []Bound) []Bound {
	key := func(b Bound) string {
		doc := b.Doc
		if strings.HasPrefix(doc, "patches"+string(filepath.Separator)) {
			doc = "patches"
		}
		return doc + "\t" + normal(b.Quote)
	}
	have := map[string]int{}
	for _, b := range old {
		if b.Binding == "unbound" {
			have[key(b)]++
		}
	}
	var out []Bound
	for _, b := range now {
		if b.Binding != "unbound" {
			continue
		}
		if k := key(b); have[k] > 0 {
			have[k]--
			continue
		}
		out = append(out, b)
	}
	return out
}

var (
	// issueWord ends the text before an issue's number: "issue 52".
	issueWord = regexp.MustCompile(`(?i)\bissues? $`)
	// listItem is the start of a line before an ordered list's number.
	listItem = regexp.MustCompile(`(?:^|\n)\s*$`)
	// goVersion ends the text before a Go release's number: "Go ≥ 1.21".
	goVersion = regexp.MustCompile(`\bGo (?:≥ |>= )?$`)
)

// knobRow matches a table row about a knob: | `name` | ...
var knobRow = regexp.MustCompile("^\\| `([a-z]+)` \\|")

// dbgvarEntry matches a dbgvar the patches add to runtime1.go's table.
var dbgvarEntry = regexp.MustCompile(`(?m)^\+\t\{name: "(\w+)", (?:value|atomic): &debug\.\w+((?:, \w+: [^,}]+)*)\},?$`)

var dbgvarCache = map[string]map[string][]string{}

// dbgvarValues returns, for each dbgvar the patches add, its default
// (0 unless set), least and greatest value as written in the table,
// from the last patch that adds it.
func dbgvarValues(root string) map[string][]string {
	if v, ok := dbgvarCache[root]; ok {
		return v
	}
	out := map[string][]string{}
	files, _ := filepath.Glob(filepath.Join(root, "patches", "*.patch"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, m := range dbgvarEntry.FindAllStringSubmatch(string(b), -1) {
			vals := []string{"0"}
			for _, kv := range strings.Split(strings.TrimPrefix(m[2], ", "), ", ") {
				k, v, _ := strings.Cut(kv, ": ")
				if (k == "def" || k == "min" || k == "max") && strings.Trim(v, "0123456789") == "" {
					vals = append(vals, v)
				}
			}
			out[m[1]] = vals
		}
	}
	dbgvarCache[root] = out
	return out
}

// DiffBound compares the numbers of the documents now with the list,
// old, and returns one line for each document that differs, at its
// first difference.
func DiffBound(old, now []Bound) []string {
	byDoc := func(bs []Bound) map[string][]Bound {
		m := map[string][]Bound{}
		for _, b := range bs {
			m[b.Doc] = append(m[b.Doc], b)
		}
		return m
	}
	o, n := byDoc(old), byDoc(now)
	var docs []string
	for d := range o {
		docs = append(docs, d)
	}
	for d := range n {
		if _, ok := o[d]; !ok {
			docs = append(docs, d)
		}
	}
	sort.Strings(docs)
	var out []string
	for _, d := range docs {
		ob, nb := o[d], n[d]
		for i := 0; i < len(ob) || i < len(nb); i++ {
			if i < len(ob) && i < len(nb) && ob[i] == nb[i] {
				continue
			}
			switch {
			case i >= len(ob):
				out = append(out, fmt.Sprintf("%s paragraph %d: %s (%s) is not in %s", d, nb[i].Para, nb[i].Quote, nb[i].Binding, BoundFile))
			case i >= len(nb):
				out = append(out, fmt.Sprintf("%s paragraph %d: %s is in %s but no longer in the document", d, ob[i].Para, ob[i].Quote, BoundFile))
			default:
				out = append(out, fmt.Sprintf("%s: number %d is %s in paragraph %d (%s); %s has %s in paragraph %d (%s)", d, i+1, nb[i].Quote, nb[i].Para, nb[i].Binding, BoundFile, ob[i].Quote, ob[i].Para, ob[i].Binding))
			}
			break
		}
	}
	return out
}
