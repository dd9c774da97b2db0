package claims

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/schedlab/schedlab/src/internal/stats"
	"golang.org/x/perf/benchfmt"
)

// Drafting proposes claims for prose that quotes a folder without
// listing what it quotes. It searches the cells of the benchmarks that
// a number's line names (its table row, else its line, else its
// paragraph) for a value that rounds to the number, and proposes the
// first it finds, preferring the variant that the line or the table's
// column header names, stock as the base, and the field that the
// number's shape suggests (a signed percentage is a change, a bare
// number a center). A draft is only a proposal: the numbers it cannot
// place are left for a person, and every claim it proposes is
// recomputed by TestFolders like any other. What it cannot know is
// whether the cell it found is the one the author meant; review a
// draft before committing it.

// A Draft is the outcome of drafting one text.
type Draft struct {
	Claims    []Claim
	Unmatched []string // "number: its line"
}

// dataFile is one Go benchmark file of a folder with its comparisons,
// one per base column.
type dataFile struct {
	name string // relative to the folder
	col  string // the configuration key of its columns
	cmps []*stats.Comparison
}

// dataFiles reads every Go benchmark file of dir (and of its
// subfolders one level down) whose results carry a variant or a
// toolchain key.
func dataFiles(dir string) ([]*dataFile, error) {
	var names []string
	for _, pat := range []string{"*.txt", "*/*.txt"} {
		m, err := filepath.Glob(filepath.Join(dir, pat))
		if err != nil {
			return nil, err
		}
		names = append(names, m...)
	}
	var out []*dataFile
	for _, path := range names {
		col, cols := columns(path)
		if col == "" {
			continue
		}
		rel, _ := filepath.Rel(dir, path)
		df := &dataFile{name: filepath.ToSlash(rel), col: col}
		// stock first: most prose quotes changes against it.
		slices.SortStableFunc(cols, func(a, b string) int { return boolInt(b == "stock") - boolInt(a == "stock") })
		for _, base := range cols {
			cmp, err := stats.Compare([]string{path}, stats.CompareOptions{Col: col, Base: base})
			if err != nil {
				return nil, fmt.Errorf("%s: %v", rel, err)
			}
			df.cmps = append(df.cmps, cmp)
		}
		out = append(out, df)
	}
	return out, nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// columns returns the key that names a Go benchmark file's columns
// (variant, else toolchain) and its values, or "" if the file has no
// results with either.
func columns(path string) (string, []string) {
	f, err := os.Open(path)
	if err != nil {
		return "", nil
	}
	defer f.Close()
	vals := map[string][]string{}
	rd := benchfmt.NewReader(f, path)
	for rd.Scan() {
		res, ok := rd.Result().(*benchfmt.Result)
		if !ok {
			continue
		}
		for _, k := range []string{"variant", "toolchain"} {
			if v := res.GetConfig(k); v != "" && !slices.Contains(vals[k], v) {
				vals[k] = append(vals[k], v)
			}
		}
	}
	for _, k := range []string{"variant", "toolchain"} {
		if len(vals[k]) > 0 {
			return k, vals[k]
		}
	}
	return "", nil
}

// fieldsFor lists the fields a quoted number may be, likeliest first.
func fieldsFor(q string) []string {
	switch {
	case strings.HasPrefix(q, "±"):
		return []string{"limit", "abspct", "ci", "medlimit", "maxlimit"}
	case strings.HasSuffix(q, "%") && signed(q):
		return []string{"pct", "geopct", "upper", "lower"}
	case strings.HasSuffix(q, "%"):
		return []string{"pct", "abspct", "limit", "range", "ci", "level", "percent", "spread", "medlimit", "maxlimit", "upper"}
	case signed(q):
		return []string{"diff", "median"}
	}
	return []string{"median", "min", "max", "lo", "hi", "percent", "diff", "geomean"}
}

// named returns the names of names that s mentions as a word, in the
// order of names.
func named(s string, names []string) []string {
	var out []string
	for _, n := range names {
		// A row's name as prose writes it: without its GOMAXPROCS
		// suffix (ForkJoinTree-8), and a sub-benchmark's "/_100" as
		// "/100" too.
		short := gomaxprocsSuffix.ReplaceAllString(n, "")
		forms := []string{regexp.QuoteMeta(short), regexp.QuoteMeta(strings.ReplaceAll(short, "/_", "/"))}
		if i := strings.LastIndex(short, "/"); i > 0 {
			// A sub-benchmark by its own name, as a table of one
			// benchmark's sub-benchmarks writes it: /__10.
			forms = append(forms, regexp.QuoteMeta(short[i:]))
		}
		re := regexp.MustCompile(`(^|[^A-Za-z0-9_/])(` + strings.Join(forms, "|") + `)(-[0-9]+)?($|[^A-Za-z0-9_])`)
		if re.MatchString(s) {
			out = append(out, n)
		}
	}
	return out
}

var gomaxprocsSuffix = regexp.MustCompile(`-[0-9]+$`)

// context is where a number stands: its table row's first cell and its
// column's header (for a table), its line, its paragraph.
type context struct {
	row, header, line, para string
	before                  string // the few bytes before the number
}

// afterP reports whether a number follows "p=" (or p≈, p<, p ≥): a
// p-value, and nothing else.
var afterP = regexp.MustCompile(`\bp ?(=|≈|<|≤|≥|>) ?$`)

// fieldsAt lists the fields a number may be where it stands.
func fieldsAt(q string, ctx context) []string {
	if afterP.MatchString(ctx.before) {
		if strings.HasSuffix(strings.TrimRight(ctx.before, " =≈<≤≥>p"), "Holm") {
			return []string{"pholm"}
		}
		return []string{"p", "pholm"}
	}
	return fieldsFor(q)
}

// tableCell returns the first cell of a table row and the header of the
// column that byte off falls in, given the table's header row.
func tableCell(line, headerRow string, off int) (first, header string) {
	cells := strings.Split(strings.Trim(strings.TrimSpace(line), "|"), "|")
	if len(cells) > 0 {
		first = strings.TrimSpace(cells[0])
	}
	col := strings.Count(line[:off], "|") - 1
	hs := strings.Split(strings.Trim(strings.TrimSpace(headerRow), "|"), "|")
	if col >= 0 && col < len(hs) {
		header = strings.TrimSpace(hs[col])
		// "Δ" and its kin name the column before them.
		for c := col; c > 0 && !strings.ContainsAny(header, "abcdefghijklmnopqrstuvwxyz"); c-- {
			header = strings.TrimSpace(hs[c-1]) + " " + header
		}
	}
	return first, header
}

// DraftText proposes claims from the folder dir for the numbers of text
// that have holds does not quote.
func DraftText(dir, text string, have []Claim) (*Draft, error) {
	own, err := dataFiles(dir)
	if err != nil {
		return nil, err
	}
	k := &Checker{Dir: dir}
	defer k.Close()
	d := &Draft{}
	ids := map[string]bool{}
	for _, c := range have {
		ids[c.ID] = true
	}
	quoted := slices.Clone(have)
	raw := strings.Split(text, "\n")
	lines := strings.Split(stripCode(text), "\n")
	others := map[string][]*dataFile{} // linked folders' files, by folder
	var headerRow, rawHeader string
	var files []*dataFile // the folder's, then those its paragraph links
	var last *Claim       // the paragraph's last placed cell
	paraStart := 0
	for i, line := range lines {
		if strings.TrimSpace(line) == "" {
			paraStart = i + 1
			continue
		}
		if i == paraStart {
			last = nil
		}
		if files == nil {
			// The folder's own files, then those of every folder
			// the text links.
			files = own
			for _, m := range linkedFolder.FindAllStringSubmatch(text, -1) {
				if _, ok := others[m[1]]; !ok {
					fs, err := dataFiles(filepath.Join(dir, "..", m[1]))
					if err != nil {
						return nil, err
					}
					for _, f := range fs {
						f.name = "../" + m[1] + "/" + f.name
					}
					others[m[1]] = fs
				}
				files = append(files, others[m[1]]...)
			}
		}
		isRow := strings.HasPrefix(strings.TrimSpace(line), "|")
		if isRow && (i == 0 || !strings.HasPrefix(strings.TrimSpace(lines[i-1]), "|")) {
			headerRow, rawHeader = line, raw[i]
		}
		// Names come from the raw text: code spans hold benchmark
		// names; the numbers come from the stripped one, whose bytes
		// stand where the raw text's do.
		para := strings.Join(raw[paraStart:paraEnd(lines, i)], "\n")
		for _, q := range uncited(line, quoted) {
			ctx := context{line: raw[i], para: para, before: line[max(0, q.off-8):q.off]}
			if isRow && line != headerRow {
				ctx.row, ctx.header = tableCell(raw[i], rawHeader, q.off)
			}
			c, ok := nextTo(k, last, q.text, ctx)
			if !ok {
				c, ok = draftOne(k, files, q.text, ctx)
			}
			if !ok {
				c, ok = draftMatch(k, q.text, ctx)
			}
			if !ok {
				d.Unmatched = append(d.Unmatched, fmt.Sprintf("%s: %s", q.text, strings.TrimSpace(line)))
				continue
			}
			c.ID = uniqueID(ids, c)
			d.Claims = append(d.Claims, c)
			quoted = append(quoted, c)
			if c.Field != "match" && c.Bench != "-" && !strings.ContainsAny(c.Bench, "|*") {
				last = &d.Claims[len(d.Claims)-1]
			}
		}
	}
	return d, nil
}

// linkedFolder matches a FINDINGS link to a sibling results folder.
var linkedFolder = regexp.MustCompile(`\.\./(\d{4}-\d{2}-\d{2}-[A-Za-z0-9_-]+)/`)

// paraEnd returns the index of the blank line that ends the paragraph
// holding line i.
func paraEnd(lines []string, i int) int {
	for i < len(lines) && strings.TrimSpace(lines[i]) != "" {
		i++
	}
	return i
}

// nextTo places q in the cell of the claim placed just before it in
// its paragraph, as another of its fields: the p-value after a change,
// the second median of "a → b" (the base's), its interval.
func nextTo(k *Checker, last *Claim, q string, ctx context) (Claim, bool) {
	if last == nil {
		return Claim{}, false
	}
	fields := fieldsAt(q, ctx)
	base := strings.TrimPrefix(last.Base, "toolchain=")
	for _, v := range []string{last.Variant, base} {
		for _, field := range fields {
			if v == base && field != "median" && field != "lo" && field != "hi" && field != "range" && field != "ci" {
				continue
			}
			if strings.HasPrefix(field, "geo") || strings.HasSuffix(field, "limit") && field != "limit" {
				continue // not a field of a row
			}
			c := *last
			c.Variant, c.Field, c.Quoted, c.ID = v, field, q, ""
			if val, err := k.value(c); err == nil && Matches(val, q) {
				return c, true
			}
		}
	}
	return Claim{}, false
}

var idUnsafe = regexp.MustCompile(`[^A-Za-z0-9]+`)

func uniqueID(ids map[string]bool, c Claim) string {
	// A cell's claim is named by its row, column and field; a match
	// claim by the last words of its label and its file.
	name := gomaxprocsSuffix.ReplaceAllString(c.Bench, "") + "-" + c.Variant + "-" + c.Field
	if c.Field == "match" {
		words := wordish.FindAllString(c.Bench, -1)
		name = strings.Join(words[max(0, len(words)-2):], "-") + "-" + strings.TrimSuffix(filepath.Base(c.File), filepath.Ext(c.File))
	}
	base := strings.ToLower(strings.Trim(idUnsafe.ReplaceAllString(name, "-"), "-"))
	id := base
	for n := 2; ids[id]; n++ {
		id = fmt.Sprintf("%s-%d", base, n)
	}
	ids[id] = true
	return id
}

// draftOne finds a cell whose value rounds to q, searching the
// benchmarks the narrowest context names first.
func draftOne(k *Checker, files []*dataFile, q string, ctx context) (Claim, bool) {
	for i, scope := range []string{ctx.row, ctx.line, ctx.para} {
		wide := i == 2
		if scope == "" || wide && ctx.para == ctx.line {
			continue
		}
		for _, f := range files {
			for _, cmp := range f.cmps {
				for _, t := range unitsFor(cmp.Tables, q, ctx.line+" "+ctx.header) {
					var names []string
					for _, r := range t.Rows {
						names = append(names, r.Name)
					}
					// Longest names first, so that a row named
					// MutexContention/_100 wins over MutexContention.
					benches := named(scope, names)
					slices.SortStableFunc(benches, func(a, b string) int { return len(b) - len(a) })
					benches = append(benches, "-") // a geomean or a medlimit
					if wide && significant(q) < 2 {
						continue
					}
					if c, ok := search(k, f, cmp, t.Unit, benches, q, ctx, wide); ok {
						return c, true
					}
				}
			}
		}
	}
	return draftOverRows(k, files, q, ctx)
}

// draftOverRows places q as the extreme of a field over the rows that
// its paragraph names ("within −5.8% to +14.6% of stock"). Over every
// row of a unit some extreme matches almost any number, so that is left
// to a person.
func draftOverRows(k *Checker, files []*dataFile, q string, ctx context) (Claim, bool) {
	var fields []string
	switch {
	case !strings.HasSuffix(q, "%"):
		return Claim{}, false
	case strings.HasPrefix(q, "±"):
		fields = []string{"maxabspct", "maxci", "minci"}
	case signed(q):
		fields = []string{"minpct", "maxpct"}
	default:
		fields = []string{"maxabspct", "maxrange", "maxci", "minci"}
	}
	for _, f := range files {
		cmp := f.cmps[0]
		base := cmp.Cols[cmp.Base]
		if f.col != "variant" {
			base = f.col + "=" + base
		}
		for _, t := range unitsFor(cmp.Tables, q, ctx.line) {
			var names []string
			for _, r := range t.Rows {
				names = append(names, r.Name)
			}
			var sets []string
			if ns := named(ctx.para, names); len(ns) >= 2 {
				for i := range ns {
					ns[i] = regexp.QuoteMeta(ns[i])
				}
				sets = append(sets, strings.Join(ns, "|"))
			}
			variants := append(named(ctx.line, cmp.Cols), cmp.Cols...)
			for _, set := range sets {
				for _, v := range variants {
					for _, field := range fields {
						c := Claim{File: f.name, Base: base, Unit: t.Unit, Bench: set, Variant: v, Field: field, Quoted: q}
						if val, err := k.value(c); err == nil && Matches(val, q) {
							return c, true
						}
					}
				}
			}
		}
	}
	return Claim{}, false
}

func search(k *Checker, f *dataFile, cmp *stats.Comparison, unit string, benches []string, q string, ctx context, wide bool) (Claim, bool) {
	// A base other than the file's usual one (stock, else its first
	// column) only where the line names it.
	if cmp != f.cmps[0] && len(named(ctx.line+" "+ctx.header, cmp.Cols[cmp.Base:cmp.Base+1])) == 0 {
		return Claim{}, false
	}
	// Columns the header names first, then those the line names.
	variants := named(ctx.header, cmp.Cols)
	for _, v := range append(named(ctx.line, cmp.Cols), cmp.Cols...) {
		if !slices.Contains(variants, v) {
			variants = append(variants, v)
		}
	}
	base := cmp.Cols[cmp.Base]
	if f.col != "variant" {
		base = f.col + "=" + base
	}
	for _, bench := range benches {
		for _, v := range variants {
			for _, field := range fieldsAt(q, ctx) {
				if wide && field == "level" {
					continue
				}
				if (bench == "-") != (field == "medlimit" || field == "maxlimit" || field == "geomean" || field == "geopct") {
					continue
				}
				if v == cmp.Cols[cmp.Base] && field != "median" && field != "min" && field != "max" && field != "range" && field != "ci" && field != "lo" && field != "hi" && field != "percent" && field != "geomean" {
					continue // the base has no change against itself
				}
				c := Claim{File: f.name, Base: base, Unit: unit, Bench: bench, Variant: v, Field: field, Quoted: q}
				if val, err := k.value(c); err == nil && Matches(val, q) {
					return c, true
				}
			}
		}
	}
	return Claim{}, false
}

// textFiles are the files of a folder that a tool wrote and a match
// claim may read: not its prose, not its claims.
func textFiles(dir string) []string {
	var out []string
	for _, pat := range []string{"*", "*/*"} {
		m, _ := filepath.Glob(filepath.Join(dir, pat))
		for _, p := range m {
			ext := filepath.Ext(p)
			if fi, err := os.Stat(p); err != nil || fi.IsDir() || fi.Size() > 4<<20 {
				continue
			}
			if ext == ".txt" || ext == ".log" || ext == ".csv" || ext == ".tsv" || ext == ".json" || ext == ".out" {
				// Not the claims, and not the tables made from the
				// benchmark files (benchstat.txt, results.csv, runs.tsv):
				// their numbers are claimed through package stats, and
				// a label there matches a number by coincidence.
				if !slices.Contains([]string{ClaimsFile, "benchstat.txt", "results.csv", "runs.tsv"}, filepath.Base(p)) {
					rel, _ := filepath.Rel(dir, p)
					out = append(out, filepath.ToSlash(rel))
				}
			}
		}
	}
	return out
}

// sharesWord reports whether label has a word of three letters or
// more that line has too (case aside): the prose names what the
// tool's line labels.
func sharesWord(label, line string) bool {
	line = strings.ToLower(line)
	for _, w := range wordish.FindAllString(label, -1) {
		if strings.Contains(line, strings.ToLower(w)) {
			return true
		}
	}
	return false
}

// wordish is a label with a word in it.
var wordish = regexp.MustCompile(`[A-Za-z]{3,}`)

// draftMatch places q in a text file of the folder that holds it
// written the same way, as a match claim on the text before it on its
// line (its label), if the prose line shares a word with that label
// and the label's first match gives q.
func draftMatch(k *Checker, q string, ctx context) (Claim, bool) {
	forms := []string{q, strings.TrimPrefix(q, "+"), strings.ReplaceAll(q, "−", "-"), strings.ReplaceAll(q, ",", "")}
	for _, name := range textFiles(k.Dir) {
		b, err := os.ReadFile(filepath.Join(k.Dir, name))
		if err != nil {
			continue
		}
		text := string(b)
		for _, form := range forms {
			for from := 0; ; {
				i := strings.Index(text[from:], form)
				if i < 0 {
					break
				}
				i += from
				from = i + len(form)
				// A whole number, not part of a longer one.
				if i > 0 && strings.ContainsRune("0123456789.", rune(text[i-1])) || from < len(text) && strings.ContainsRune("0123456789", rune(text[from])) {
					continue
				}
				lineStart := strings.LastIndexByte(text[:i], '\n') + 1
				label := text[lineStart:i]
				if len(label) > 40 {
					label = label[len(label)-40:]
				}
				if !sharesWord(label, ctx.line) {
					continue // a label the prose does not speak of
				}
				re := strings.ReplaceAll(regexp.QuoteMeta(label), "\t", `\t`) + `([-+]?[0-9][0-9,]*(?:\.[0-9]+)?)`
				c := Claim{File: name, Base: "-", Unit: "-", Bench: re, Variant: "-", Field: "match", Quoted: q}
				if v, err := k.match(c); err == nil && Matches(v, q) {
					return c, true
				}
			}
		}
	}
	return Claim{}, false
}

// unitsFor orders a comparison's tables for a number: units the line
// names first, then, for a bare percentage, shares.
func unitsFor(tables []*stats.UnitTable, q, line string) []*stats.UnitTable {
	score := func(t *stats.UnitTable) int {
		n := 0
		if strings.Contains(line, t.Unit) {
			n += 2
		}
		if strings.HasSuffix(q, "%") && !signed(q) && strings.Contains(t.Unit, "share") {
			n++
		}
		return n
	}
	out := slices.Clone(tables)
	slices.SortStableFunc(out, func(a, b *stats.UnitTable) int { return score(b) - score(a) })
	return out
}

// significant counts the significant digits of a quoted number.
func significant(q string) int {
	n, lead := 0, true
	for _, r := range q {
		switch {
		case r == '0' && lead:
		case r >= '0' && r <= '9':
			n++
			lead = false
		}
	}
	return n
}

// FormatClaims writes claims as ClaimsFile lines, the header first if
// header is set.
func FormatClaims(cs []Claim, header bool) string {
	var b strings.Builder
	if header {
		b.WriteString("id\tfile\tbase\tunit\tbench\tvariant\tfield\tquoted\n")
	}
	for _, c := range cs {
		fmt.Fprintf(&b, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", c.ID, c.File, c.Base, c.Unit, c.Bench, c.Variant, c.Field, c.Quoted)
	}
	return b.String()
}

// signed reports whether a quoted number carries a sign: a change.
func signed(q string) bool {
	return strings.HasPrefix(q, "+") || strings.HasPrefix(q, "-") || strings.HasPrefix(q, "−")
}
