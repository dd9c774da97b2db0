// Package claims checks the numbers that prose quotes from a results
// folder against the folder's raw data.
//
// A folder's ClaimsFile lists them, one per line, tab-separated, with a
// header line:
//
//	id  file  base  unit  bench  variant  field  quoted
//
// file is a Go benchmark file of the folder (bench.txt, physical.txt,
// census.txt; "../other/bench.txt" for another folder's), or
// "file?key=v1,v2" for only the results whose configuration key has one
// of the values (census.txt?layout=1,2,3). It is compared by package
// stats, columns by base's key (variant, or "toolchain=stock" for a
// census) against the column base. field says what is quoted of the
// cell (unit, bench, variant):
//
//   - median: the cell's center, in the file's unit (sec/op: quote
//     times with ns, µs or ms); percent: a share's center in percent;
//     diff: the center less base's;
//   - lo, hi: the bounds of the cell's interval;
//   - min, max: the cell's smallest and largest value; with variant
//     "*", over every column of the row;
//   - pct: the change of the center against base, in percent; abspct,
//     its size ("differs by 5.9%");
//   - p, pholm: the Mann-Whitney p-value against base, and after Holm
//     over the unit's rows;
//   - level: the confidence of the cell's interval, in percent;
//   - limit: the largest difference against base that the two
//     intervals allow, in percent (quoted "±x%"); upper, lower: the
//     largest and the smallest change they allow;
//   - range: the cell's relative range, (max-min)/median, in percent;
//     ci: its interval's half-width as benchstat prints it ("± 12%");
//   - spread: a census's layout range, the larger (max-min)/median of
//     the cell and base, in percent;
//   - minpct, maxpct, maxabspct (the largest size of a change),
//     minmedian, maxmedian, minrange, maxrange, minci, maxci: the extreme of the field over the
//     rows whose names match the regular expression in bench
//     ("Syscall.*|Matmult"): "within −5.8% to +14.6% of stock";
//   - with bench "-": medlimit and maxlimit, the median and the largest
//     limit over the unit's rows that are not significant (what a
//     typical "~" row could have missed); geomean, the column's
//     geometric mean over the unit's rows, and geopct, its change
//     against base's, in percent;
//   - match, matchmedian: a number from a text file of the folder (a
//     tool's summary or table); bench holds a regular expression with
//     one capture group, base, unit and variant are "-", and the value
//     is the first match's group, or the median over all matches;
//   - expr: arithmetic over other claims of the folder, for a number
//     computed from numbers the data gives (a Holm step, a ratio); bench
//     holds the expression, with each claim as {id}, numbers, + - * /,
//     parentheses, min(…), max(…) and abs(…); file, base, unit and
//     variant are "-". Each claim it names is computed from the data,
//     not read from its quoted text: "max(4*{p-1000}, 3*{p-2000})";
//   - given: a number that prose states but that is not data (a
//     significance level, a threshold, a figure an earlier version
//     quoted), with the reason in the bench column and "-" in file,
//     base, unit and variant; it is not recomputed, only allowed.
//
// quoted is the number as the prose writes it ("+32.0%", "4.89k",
// "0.757", "−95.1%", "20.3ms"); it matches when the computed value rounds
// to it at the precision it is written with.
//
// The prose files of a folder with a ClaimsFile (ProseFiles) may quote
// only numbers that a claim quotes: Uncited lists the others, except
// integers without a unit sign, which name settings and counts (6
// rounds, 512 MiB, 2 nodes) more often than measurements, and numbers
// inside names (go1.27.4). Durations are checked, integers or not
// ("919µs"); a duration the folder was configured with (Settings: a
// knob's value, the benchtime) or one the code fixes (SpecDurations)
// needs no claim.
package claims

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/schedlab/schedlab/src/internal/stats"
	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"
)

// ClaimsFile is the name of a folder's list of quoted numbers.
const ClaimsFile = "claims.tsv"

// ProseFiles are the files of a folder whose numbers must be claims.
var ProseFiles = []string{"FINDINGS.md"}

// A Claim is one quoted number and where it comes from.
type Claim struct {
	ID, File, Base, Unit, Bench, Variant, Field, Quoted string
	Line                                                int // in the ClaimsFile
}

// Read reads the ClaimsFile of dir; none is no claims.
func Read(dir string) ([]Claim, error) {
	f, err := os.Open(filepath.Join(dir, ClaimsFile))
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var cs []Claim
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		if n == 1 || strings.TrimSpace(sc.Text()) == "" {
			continue // header
		}
		f := strings.Split(sc.Text(), "\t")
		if len(f) != 8 {
			return nil, fmt.Errorf("%s:%d: %d fields, want 8 (id file base unit bench variant field quoted)", ClaimsFile, n, len(f))
		}
		cs = append(cs, Claim{ID: f[0], File: f[1], Base: f[2], Unit: f[3], Bench: f[4], Variant: f[5], Field: f[6], Quoted: f[7], Line: n})
	}
	return cs, sc.Err()
}

// A Checker recomputes claims of one folder, reading each data file and
// base once.
type Checker struct {
	Dir string
	// Claims are the folder's claims that expr claims name; nil: read
	// from Dir when an expr claim needs them.
	Claims []Claim
	cmps   map[string]*stats.Comparison
	temps  []string // selections' temporary files, removed by Close
}

// Check recomputes c and returns an error if its data does not give the
// quoted number.
func (k *Checker) Check(c Claim) error {
	if c.Field == "given" {
		if c.Bench == "" || c.Bench == "-" {
			return fmt.Errorf("%s:%d %s: a given number needs its reason in the bench column", ClaimsFile, c.Line, c.ID)
		}
		return nil
	}
	var v float64
	var err error
	if c.Field == "match" || c.Field == "matchmedian" {
		v, err = k.match(c)
	} else if c.Field == "expr" {
		v, err = k.expr(c, nil)
	} else {
		v, err = k.value(c)
	}
	if err != nil {
		return fmt.Errorf("%s:%d %s: %v", ClaimsFile, c.Line, c.ID, err)
	}
	if !Matches(v, c.Quoted) {
		return fmt.Errorf("%s:%d %s: %s %s of %s %s in %s is %v, quoted as %s", ClaimsFile, c.Line, c.ID, c.Field, c.Unit, c.Bench, c.Variant, c.File, v, c.Quoted)
	}
	return nil
}

// overRows is the smallest or largest change (minpct, maxpct, maxabspct
// for the largest size), center (minmedian, maxmedian) or relative range
// (maxrange) of column ci over the rows whose names match the regular
// expression in c.Bench: "within −5.8% to +14.6% of stock".
func overRows(t *stats.UnitTable, ci int, c Claim) (float64, error) {
	re, err := regexp.Compile("^(?:" + c.Bench + ")$")
	if err != nil {
		return 0, err
	}
	var vs []float64
	for _, r := range t.Rows {
		if !re.MatchString(r.Name) || r.Cells[ci] == nil {
			continue
		}
		switch c.Field {
		case "minmedian", "maxmedian":
			vs = append(vs, r.Cells[ci].Summary.Center)
		case "minrange", "maxrange":
			vs = append(vs, spread(r.Cells[ci].Sample.Values)*100)
		case "minci", "maxci":
			if x := ciPct(r.Cells[ci].Summary); !math.IsNaN(x) && !math.IsInf(x, 0) {
				vs = append(vs, x)
			}
		default:
			if d := r.Deltas[ci]; d != nil && !math.IsNaN(d.Pct) {
				vs = append(vs, d.Pct)
				if c.Field == "maxabspct" {
					vs[len(vs)-1] = math.Abs(d.Pct)
				}
			}
		}
	}
	if len(vs) == 0 {
		return 0, fmt.Errorf("no rows match %q in %s with a value for %s", c.Bench, t.Unit, c.Variant)
	}
	if strings.HasPrefix(c.Field, "min") {
		return slices.Min(vs), nil
	}
	return slices.Max(vs), nil
}

// ciPct is the half-width of an interval as benchstat prints it ("±
// 12%"): the larger distance from the center to a bound, in percent of
// the center.
func ciPct(s benchmath.Summary) float64 {
	return math.Max(s.Hi/s.Center-1, 1-s.Lo/s.Center) * 100
}

// extremeOfRow is a min or max claim over every column of a row
// (variant "*"): the range of all the runs of a benchmark.
func extremeOfRow(t *stats.UnitTable, c Claim) (float64, error) {
	var all []float64
	for _, r := range t.Rows {
		if r.Name != c.Bench {
			continue
		}
		for _, cell := range r.Cells {
			if cell != nil {
				all = append(all, cell.Sample.Values...)
			}
		}
	}
	if len(all) == 0 {
		return 0, fmt.Errorf("no row %s in unit %s", c.Bench, t.Unit)
	}
	if c.Field == "min" {
		return slices.Min(all), nil
	}
	return slices.Max(all), nil
}

// selected returns the path of file in the folder, or, for
// "file?key=v1,v2", of a temporary copy holding only the results whose
// configuration key has one of those values (a census's layouts 1-3).
func (k *Checker) selected(file string) (string, error) {
	name, filter, ok := strings.Cut(file, "?")
	path := filepath.Join(k.Dir, name)
	if !ok {
		return path, nil
	}
	key, vals, ok := strings.Cut(filter, "=")
	if !ok {
		return "", fmt.Errorf("file %q: want file?key=v1,v2", file)
	}
	keep := map[string]bool{}
	for _, v := range strings.Split(vals, ",") {
		keep[v] = true
	}
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	tmp, err := os.CreateTemp("", "claims-*.txt")
	if err != nil {
		return "", err
	}
	defer tmp.Close()
	k.temps = append(k.temps, tmp.Name())
	w := benchfmt.NewWriter(tmp)
	rd := benchfmt.NewReader(f, path)
	for rd.Scan() {
		if res, ok := rd.Result().(*benchfmt.Result); ok && keep[res.GetConfig(key)] {
			if err := w.Write(res); err != nil {
				return "", err
			}
		}
	}
	if err := rd.Err(); err != nil {
		return "", err
	}
	return tmp.Name(), nil
}

// Close removes the temporary files that selections wrote.
func (k *Checker) Close() {
	for _, t := range k.temps {
		os.Remove(t)
	}
	k.temps = nil
}

// spread is (max-min)/median of xs, as the census computes it.
func spread(xs []float64) float64 {
	if len(xs) < 2 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	m := (s[(n-1)/2] + s[n/2]) / 2
	if m == 0 {
		return 0
	}
	return (s[n-1] - s[0]) / m
}

// match is the value of a claim of field match: the first capture
// group of the regular expression in c.Bench, at its first match in
// c.File (a text file of the folder that a tool wrote: a summary, a
// table), as a number; for matchmedian, the median over every match
// (a value per repetition that a tool printed). A capture may carry a
// unit suffix (20.33ms), read as Matches reads one.
func (k *Checker) match(c Claim) (float64, error) {
	re, err := regexp.Compile(c.Bench)
	if err != nil {
		return 0, err
	}
	if re.NumSubexp() != 1 {
		return 0, fmt.Errorf("match %q: want one capture group", c.Bench)
	}
	data, err := os.ReadFile(filepath.Join(k.Dir, c.File))
	if err != nil {
		return 0, err
	}
	ms := re.FindAllSubmatch(data, -1)
	if ms == nil {
		return 0, fmt.Errorf("no match of %q in %s", c.Bench, c.File)
	}
	if c.Field == "match" {
		ms = ms[:1]
	}
	var vs []float64
	for _, m := range ms {
		v, _, ok := parseQuoted(strings.TrimPrefix(string(m[1]), "+"))
		if !ok {
			return 0, fmt.Errorf("match %q in %s: %q is not a number", c.Bench, c.File, m[1])
		}
		vs = append(vs, v)
	}
	slices.Sort(vs)
	n := len(vs)
	return (vs[(n-1)/2] + vs[n/2]) / 2, nil
}

func (k *Checker) value(c Claim) (float64, error) {
	col, base, _ := strings.Cut(c.Base, "=") // "toolchain=stock": the column key and base
	if base == "" {
		col, base = "variant", c.Base
	}
	key := c.File + "\x00" + col + "\x00" + base
	cmp := k.cmps[key]
	if cmp == nil {
		path, err := k.selected(c.File)
		if err != nil {
			return 0, err
		}
		cmp, err = stats.Compare([]string{path}, stats.CompareOptions{Col: col, Base: base})
		if err != nil {
			return 0, err
		}
		if k.cmps == nil {
			k.cmps = map[string]*stats.Comparison{}
		}
		k.cmps[key] = cmp
	}
	t := cmp.Table(c.Unit)
	if t == nil {
		return 0, fmt.Errorf("no unit %s in %s", c.Unit, c.File)
	}
	if c.Variant == "*" && (c.Field == "min" || c.Field == "max") {
		return extremeOfRow(t, c)
	}
	ci := slices.Index(cmp.Cols, c.Variant)
	if ci < 0 {
		return 0, fmt.Errorf("no column %s in %s (have %v)", c.Variant, c.File, cmp.Cols)
	}
	switch c.Field {
	case "minpct", "maxpct", "maxabspct", "minmedian", "maxmedian", "minrange", "maxrange", "minci", "maxci":
		return overRows(t, ci, c)
	case "medlimit", "maxlimit":
		// The median over the unit's "~" rows of the largest
		// difference each could have missed: "a typical ~ row could
		// have missed ±x%".
		var ls []float64
		for _, r := range t.Rows {
			if d := r.Deltas[ci]; d != nil && !d.Significant && !math.IsNaN(d.Limit) {
				ls = append(ls, d.Limit)
			}
		}
		if len(ls) == 0 {
			return 0, fmt.Errorf("no ~ rows of %s in %s", c.Variant, c.Unit)
		}
		slices.Sort(ls)
		n := len(ls)
		if c.Field == "maxlimit" {
			return ls[n-1], nil
		}
		return (ls[(n-1)/2] + ls[n/2]) / 2, nil
	case "geomean", "geopct":
		g := t.Geomean[ci]
		if c.Field == "geopct" {
			g = (g/t.Geomean[cmp.Base] - 1) * 100
		}
		if math.IsNaN(g) {
			return 0, fmt.Errorf("no geomean of %s in %s", c.Variant, c.Unit)
		}
		return g, nil
	}
	for _, r := range t.Rows {
		if r.Name != c.Bench {
			continue
		}
		cell := r.Cells[ci]
		if cell == nil {
			return 0, fmt.Errorf("no data for %s %s", c.Bench, c.Variant)
		}
		if r.Cells[cmp.Base] == nil && (c.Field == "spread" || c.Field == "diff" || c.Field == "upper" || c.Field == "lower") {
			return 0, fmt.Errorf("no data for %s %s", c.Bench, cmp.Cols[cmp.Base])
		}
		switch c.Field {
		case "median":
			return cell.Summary.Center, nil
		case "percent":
			return cell.Summary.Center * 100, nil
		case "lo":
			return cell.Summary.Lo, nil
		case "hi":
			return cell.Summary.Hi, nil
		case "spread":
			// The census's layout range: the larger relative range,
			// (max-min)/median, of the cell and base samples, in
			// percent.
			b := r.Cells[cmp.Base]
			return math.Max(spread(cell.Sample.Values), spread(b.Sample.Values)) * 100, nil
		case "diff":
			return cell.Summary.Center - r.Cells[cmp.Base].Summary.Center, nil
		case "level":
			return cell.Summary.Confidence * 100, nil
		case "range":
			return spread(cell.Sample.Values) * 100, nil
		case "ci":
			return ciPct(cell.Summary), nil
		case "min":
			return slices.Min(cell.Sample.Values), nil
		case "max":
			return slices.Max(cell.Sample.Values), nil
		}
		d := r.Deltas[ci]
		if d == nil {
			return 0, fmt.Errorf("%s is the base: no %s", c.Variant, c.Field)
		}
		switch c.Field {
		case "pct":
			return d.Pct, nil
		case "abspct":
			return math.Abs(d.Pct), nil
		case "p":
			return d.Cmp.P, nil
		case "pholm":
			return d.PHolm, nil
		case "limit":
			return d.Limit, nil
		case "upper", "lower":
			// The largest and the smallest change the two intervals
			// allow, in percent: cell high over base low, cell low
			// over base high.
			b := r.Cells[cmp.Base].Summary
			if c.Field == "upper" {
				return (cell.Summary.Hi/b.Lo - 1) * 100, nil
			}
			return (cell.Summary.Lo/b.Hi - 1) * 100, nil
		}
		return 0, fmt.Errorf("field %q: want median, min, max, range, minpct, maxpct, maxabspct, minmedian, maxmedian, minrange, maxrange, minci, maxci, ci, pct, abspct, p, pholm, limit, upper, lower, level, percent, lo, hi, medlimit, maxlimit, geomean, geopct, match or matchmedian", c.Field)
	}
	var names []string
	for _, r := range t.Rows {
		names = append(names, r.Name)
	}
	return 0, fmt.Errorf("no row %s in unit %s (have %v)", c.Bench, c.Unit, names)
}

// number matches a number as prose writes it: an optional sign (ASCII
// or U+2212), digits, an optional fraction, an optional k, M, G, %, ns,
// µs or ms suffix, or benchstat's n and µ (403.0n, 5.734µ).
var number = regexp.MustCompile(`[+\-−]?[0-9][0-9,]*(?:\.[0-9]+)?(?:k|M|G|%|ns|µs|ms|n\b|µ)?`)

// Matches reports whether v, rounded to the precision quoted is written
// with, is quoted. A k multiplies by 1000, an M by 1e6, a G by 1e9, and ns, µs and ms (or benchstat's n and µ) by 1e-9,
// 1e-6 and 1e-3 (at the precision of the digits before them: a time
// quoted from sec/op); a sign must agree with v's unless v rounds to 0.
func Matches(v float64, quoted string) bool {
	x, half, ok := parseQuoted(quoted)
	return ok && math.Abs(v-x) <= half*(1+1e-9)
}

// parseQuoted reads a number as prose or a tool writes it (signs, ±,
// commas, and a k, G, %, ns, µs or ms suffix; see Matches) and returns its
// value and half the unit of its last digit.
func parseQuoted(quoted string) (x, half float64, ok bool) {
	q := strings.ReplaceAll(strings.ReplaceAll(quoted, "−", "-"), ",", "")
	q = strings.TrimPrefix(q, "±") // a limit: the bound of a two-sided range
	q = strings.TrimSuffix(q, "%")
	scale := 1.0
	for _, u := range []struct {
		suffix string
		scale  float64
	}{{"k", 1e3}, {"M", 1e6}, {"G", 1e9}, {"ns", 1e-9}, {"µs", 1e-6}, {"ms", 1e-3}, {"n", 1e-9}, {"µ", 1e-6}} {
		if s, ok := strings.CutSuffix(q, u.suffix); ok {
			q, scale = s, u.scale
			break
		}
	}
	x, err := strconv.ParseFloat(q, 64)
	if err != nil {
		return 0, 0, false
	}
	decimals := 0
	if _, frac, ok := strings.Cut(q, "."); ok {
		decimals = len(frac)
	}
	return x * scale, 0.5 * math.Pow(10, -float64(decimals)) * scale, true
}

// Uncited returns the numbers of text that no claim quotes and that
// have a decimal point, a k, M or G, a % or a duration's unit (ns, µs,
// ms; see the package doc), except those in allowed: settings
// (Settings) and durations the code fixes (SpecDurations), which are
// not measurements.
func Uncited(text string, cs []Claim, allowed ...string) []string {
	for _, a := range allowed {
		cs = append(cs, Claim{Quoted: a})
	}
	var out []string
	for _, q := range uncited(text, cs) {
		out = append(out, q.text)
	}
	return out
}

// A quote is a number in prose and its byte offset there.
type quote struct {
	text string
	off  int
}

func uncited(text string, cs []Claim) []quote {
	quoted := map[string]bool{}
	for _, c := range cs {
		quoted[normal(c.Quoted)] = true
	}
	var out []quote
	text = stripCode(text)
	for _, loc := range number.FindAllStringIndex(text, -1) {
		m, off := text[loc[0]:loc[1]], loc[0]
		if loc[0] > 0 && isLetter(text[loc[0]-1]) {
			continue // part of a name: go1.27.4, numa1
		}
		if loc[0] > 0 && strings.HasPrefix(m, "-") && strings.ContainsRune("0123456789%s", rune(text[loc[0]-1])) {
			m, off = m[1:], off+1 // the dash of a range: 0.500-0.537, 43%-54%, 36.7µs-40.7µs
		}
		if !strings.ContainsAny(m, ".kMG%") && !isDuration(m) {
			continue
		}
		if !quoted[normal(m)] {
			out = append(out, quote{m, off})
		}
	}
	return out
}

// isDuration reports whether m, a match of number, ends in a duration's
// unit (benchstat's bare n and µ are checked by the decimal point they
// come with).
func isDuration(m string) bool {
	return strings.HasSuffix(m, "ns") || strings.HasSuffix(m, "µs") || strings.HasSuffix(m, "ms")
}

func isLetter(b byte) bool { return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' }

// normal writes a number one way: ASCII minus, no thousands commas, no
// plus sign.
func normal(s string) string {
	s = strings.ReplaceAll(strings.ReplaceAll(s, "−", "-"), ",", "")
	return strings.TrimPrefix(strings.TrimPrefix(s, "±"), "+")
}

// code matches Markdown code spans and links' targets, whose numbers
// are names (commands, series hashes, paths), not quotes.
var code = regexp.MustCompile("`[^`]*`|\\]\\([^)]*\\)")

// stripCode blanks code spans and link targets, keeping every other
// byte where it was.
func stripCode(text string) string {
	return blank(code, text)
}
