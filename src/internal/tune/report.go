package tune

import (
	"encoding/json"
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	mstats "github.com/aclements/go-moremath/stats"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/schedlab/schedlab/src/internal/plots"
	"github.com/schedlab/schedlab/src/internal/stats"
)

// Files of a tune folder, beside the search's bench.txt and metadata.
const (
	StateFile    = "tune-state.json" // the search, for resuming
	SummaryFile  = "tune.json"       // the outcome, for programs
	ConfirmDir   = "confirm"         // the confirmation's results folder
	FrontierFile = "frontier.svg"    // objective against the first limit's unit (and .png)
)

// An Effect is a confirmed candidate against stock in one unit: the
// change of the medians and the interval the two medians' confidence
// intervals allow (as stats.Delta.Limit: the cell's low bound over
// stock's high bound to its high bound over stock's low bound).
type Effect struct {
	Unit        string     `json:"unit"`
	Pct         float64    `json:"pct"`
	Interval    [2]float64 `json:"interval_pct"`
	Confidence  float64    `json:"confidence"`  // of each median's interval
	P           float64    `json:"p"`           // two-sided Mann-Whitney U
	PHolm       float64    `json:"p_holm"`      // over the confirmed candidates and stock2
	Significant bool       `json:"significant"` // PHolm <= alpha
	N           int        `json:"n"`
	NStock      int        `json:"n_stock"`
}

// A Confirmed is a candidate of the confirmation run.
type Confirmed struct {
	Name      string   `json:"name"`
	GODEBUG   string   `json:"godebug"`
	Objective Effect   `json:"objective"`
	Limits    []Effect `json:"limits,omitempty"`
	// Inside says whether every limit's interval lies inside its
	// bound ("yes"), its median does but the interval crosses the bound
	// ("likely"), or its median is outside ("no").
	Inside string `json:"inside_limits"`
}

// Summary is tune.json.
type Summary struct {
	Command   string   `json:"command"`
	Benchmark string   `json:"benchmark"`
	Package   string   `json:"package"`
	Objective string   `json:"objective"`
	Maximize  bool     `json:"maximize,omitempty"`
	Limits    []string `json:"limits,omitempty"`
	limits    []Limit
	Hogs      int         `json:"hogs"`
	Search    SearchStats `json:"search"`
	// Best is the confirmed setting: the confirmed candidate inside the
	// limits with the best objective median; nil if none was confirmed.
	Best      *BestSetting `json:"best"`
	Confirmed []Confirmed  `json:"confirmed"`
	Stock2    *Effect      `json:"stock2"` // the control against stock, objective unit
	Verdict   string       `json:"verdict"`
}

// BestSetting is tune.json's best.
type BestSetting struct {
	Name    string `json:"name"`
	GODEBUG string `json:"godebug"` // "" is the patched runtime with no knob set
	Effect  Effect `json:"effect"`  // the objective against stock
	Inside  string `json:"inside_limits"`
}

// SearchStats says what the search cost against the full grid.
type SearchStats struct {
	Candidates int     `json:"candidates"`
	Rounds     int     `json:"rounds"`
	Runs       int     `json:"runs"`
	GridRuns   int     `json:"grid_runs"` // every candidate and both controls at the search's max rounds
	Seconds    float64 `json:"seconds"`
	// GridSeconds estimates the grid's time from each arm's mean run.
	GridSeconds float64  `json:"grid_seconds"`
	Reason      string   `json:"reason"`
	Survivors   []string `json:"survivors"`
}

// Stats returns what the search cost and the grid would have.
func (st *State) Stats() SearchStats {
	s := SearchStats{Candidates: len(st.Arms) - 2, Rounds: st.Rounds, Runs: st.Runs, Seconds: st.Elapsed.Seconds(),
		Reason: st.Reason, Survivors: st.Survived, GridRuns: len(st.Arms) * st.Config.MaxRounds}
	for _, a := range st.Arms {
		if w := a.meanWall(); !math.IsNaN(w) {
			s.GridSeconds += w * float64(st.Config.MaxRounds)
		}
	}
	return s
}

// Confirm reads the confirmation's comparison: each confirmed candidate
// against stock in the objective and every limit's unit, Holm-adjusted
// over the confirmed candidates and stock2 per unit. It fills in
// sum.Confirmed, Stock2, Best and Verdict.
func (sum *Summary) Confirm(c *stats.Comparison, st *State, bench string, confirmed []Candidate) error {
	cfg := st.Config
	effects := func(unit string) (map[string]Effect, error) {
		t := c.Table(unit)
		if t == nil {
			return nil, fmt.Errorf("the confirmation has no %s", unit)
		}
		var row *stats.Row
		for _, r := range t.Rows {
			if baseName(r.Name) == baseName(bench) {
				row = r
			}
		}
		if row == nil {
			return nil, fmt.Errorf("the confirmation has no %s row for %s", unit, bench)
		}
		out := map[string]Effect{}
		var names []string
		var ps []float64
		base := row.Cells[c.Base]
		for ci, name := range c.Cols {
			cell, d := row.Cells[ci], row.Deltas[ci]
			if ci == c.Base || cell == nil || d == nil || base == nil {
				continue
			}
			e := Effect{Unit: unit, Pct: d.Pct, P: d.Cmp.P, N: len(cell.Sample.Values), NStock: len(base.Sample.Values),
				Confidence: math.Min(cell.Summary.Confidence, base.Summary.Confidence),
				Interval:   [2]float64{100 * (cell.Summary.Lo/base.Summary.Hi - 1), 100 * (cell.Summary.Hi/base.Summary.Lo - 1)}}
			out[name] = e
			names = append(names, name)
			ps = append(ps, d.Cmp.P)
		}
		for i, p := range stats.Holm(ps) {
			e := out[names[i]]
			e.PHolm, e.Significant = p, p <= cfg.Alpha
			out[names[i]] = e
		}
		return out, nil
	}
	obj, err := effects(cfg.Objective)
	if err != nil {
		return err
	}
	var lims []map[string]Effect
	for _, l := range cfg.Limits {
		m, err := effects(l.Unit)
		if err != nil {
			return err
		}
		lims = append(lims, m)
	}
	if e, ok := obj[Stock2]; ok {
		sum.Stock2 = &e
	}
	sum.limits = cfg.Limits
	sum.Confirmed = nil
	for _, cand := range confirmed {
		e, ok := obj[cand.Name]
		if !ok {
			continue
		}
		cf := Confirmed{Name: cand.Name, GODEBUG: cand.GODEBUG, Objective: e, Inside: "yes"}
		for i, l := range cfg.Limits {
			le := lims[i][cand.Name]
			cf.Limits = append(cf.Limits, le)
			cf.Inside = worseInside(cf.Inside, insideText(l, le))
		}
		sum.Confirmed = append(sum.Confirmed, cf)
	}
	better := func(a, b Confirmed) bool {
		ra, rb := insideRank[a.Inside], insideRank[b.Inside]
		if ra != rb {
			return ra < rb
		}
		if cfg.Maximize {
			return a.Objective.Pct > b.Objective.Pct
		}
		return a.Objective.Pct < b.Objective.Pct
	}
	sort.SliceStable(sum.Confirmed, func(i, j int) bool { return better(sum.Confirmed[i], sum.Confirmed[j]) })
	if len(sum.Confirmed) > 0 {
		b := sum.Confirmed[0]
		sum.Best = &BestSetting{Name: b.Name, GODEBUG: b.GODEBUG, Effect: b.Objective, Inside: b.Inside}
	}
	sum.Verdict = sum.verdict()
	return nil
}

var insideRank = map[string]int{"yes": 0, "likely": 1, "no": 2}

func worseInside(a, b string) string {
	if insideRank[b] > insideRank[a] {
		return b
	}
	return a
}

// insideText judges a limit from a confirmed candidate's effect.
func insideText(l Limit, e Effect) string {
	out := func(pct float64) bool {
		if l.Upper {
			return pct > l.Pct
		}
		return pct < l.Pct
	}
	switch {
	case out(e.Pct):
		return "no"
	case out(e.Interval[0]) || out(e.Interval[1]):
		return "likely"
	}
	return "yes"
}

// verdict is the one-line outcome: the best setting's effect on the
// objective against stock, and what the stock2 control showed.
func (sum *Summary) verdict() string {
	if sum.Best == nil {
		return "no candidate was confirmed"
	}
	b := sum.Best
	e := b.Effect
	setting := "GODEBUG=" + b.GODEBUG
	if b.GODEBUG == "" {
		setting = "the patched runtime with no knob set"
	}
	ci := fmt.Sprintf("%.1f%%-level intervals allow %+.1f%% to %+.1f%%", math.Floor(e.Confidence*1000)/10, e.Interval[0], e.Interval[1])
	improved := e.Significant && ((!sum.Maximize && e.Pct < 0) || (sum.Maximize && e.Pct > 0))
	var v string
	switch {
	case improved:
		v = fmt.Sprintf("%s changes %s by %+.1f%% against stock (p=%.3g after Holm, n=%d vs %d; %s)", setting, sum.Objective, e.Pct, e.PHolm, e.N, e.NStock, ci)
	case e.Significant:
		v = fmt.Sprintf("no setting beats stock: the best, %s, changes %s by %+.1f%% (p=%.3g after Holm; %s)", setting, sum.Objective, e.Pct, e.PHolm, ci)
	default:
		lim := math.Max(math.Abs(e.Interval[0]), math.Abs(e.Interval[1]))
		v = fmt.Sprintf("~: the best, %s, is not told apart from stock in %s (p=%.3g after Holm); the run could have missed a difference of up to %.1f%%", setting, sum.Objective, e.PHolm, lim)
	}
	for i, l := range sum.Limits {
		var le Effect
		for _, c := range sum.Confirmed {
			if c.Name == b.Name && i < len(c.Limits) {
				le = c.Limits[i]
			}
		}
		switch insideText(sum.limits[i], le) {
		case "likely":
			v += fmt.Sprintf("; %s: %+.1f%% at the median, inside, but its interval (%+.1f%% to %+.1f%%) crosses the bound, so this run cannot tell", l, le.Pct, le.Interval[0], le.Interval[1])
		case "no":
			v += fmt.Sprintf("; %s: %+.1f%% at the median, outside (no confirmed candidate is inside)", l, le.Pct)
		}
	}
	if s := sum.Stock2; s != nil {
		v += fmt.Sprintf(". Control stock2 against stock: %+.1f%% (p=%.3g after Holm)", s.Pct, s.PHolm)
		if s.Significant {
			v += ": the control differs from stock, so the machine moved more than the test assumes, and the effect above is in doubt"
		}
	}
	return v
}

// WriteJSON writes tune.json into dir.
func (sum *Summary) WriteJSON(dir string) error {
	data, err := json.MarshalIndent(sum, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, SummaryFile), append(data, '\n'), 0o644)
}

// WriteReadme writes the folder's README.md: what ran, the search round
// by round (who was dropped when and why), the confirmation's verdict
// and the setting to use.
func WriteReadme(w io.Writer, sum *Summary, st *State, figure bool) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format+"\n", args...) }
	p("# schedlab tune: %s", sum.Benchmark)
	p("")
	p("```\n%s\n```", sum.Command)
	p("")
	obj := "minimise"
	if sum.Maximize {
		obj = "maximise"
	}
	p("Objective: %s `%s` of `%s` (package `%s`)", obj, sum.Objective, sum.Benchmark, sum.Package)
	if len(sum.Limits) > 0 {
		p("within `%s` against stock", strings.Join(sum.Limits, "`, `"))
	}
	if sum.Hogs > 0 {
		p("beside %d CPU-bound processes (hogs) through every run, so the harness flags every run as short of CPU (`metadata.json`'s contended list): that load is the experiment's.", sum.Hogs)
	}
	p("")
	// The caveats of the objective's and the limits' units (a limit
	// reads "unit<=+3%": its unit is in it).
	for _, n := range stats.UnitNotes(append([]string{sum.Objective}, sum.Limits...)...) {
		p("Note: %s.", n)
		p("")
	}
	p("## Outcome")
	p("")
	p("%s.", sum.Verdict)
	if sum.Best != nil {
		p("")
		p("```\nGODEBUG=%s\n```", sum.Best.GODEBUG)
	}
	p("")
	if st.Config.Grid {
		p("From the grid's own rounds (`bench.txt`, benchstat's tables in `benchstat.txt`): every candidate against stock and a stock2 control, interleaved, %d rounds. Intervals are each median's interval at the level named (not 95%%); an effect's interval runs from the candidate's low bound over stock's high bound to its high bound over stock's low bound. Holm's correction is over every candidate and stock2, per unit.", st.Config.MaxRounds)
	} else {
		p("From the confirmation run in [`%s/`](%s/) (its README has benchstat's tables): the survivors of the search, best first, against stock and a stock2 control, interleaved, %d rounds. Intervals are each median's interval at the level named (not 95%%); an effect's interval runs from the candidate's low bound over stock's high bound to its high bound over stock's low bound. Holm's correction is over the confirmed candidates and stock2, per unit.", ConfirmDir, ConfirmDir, st.Config.ConfirmRounds)
	}
	p("")
	hdr := "| candidate | GODEBUG | " + sum.Objective + " vs stock | interval | p (Holm) |"
	sep := "|---|---|---|---|---|"
	for _, l := range st.Config.Limits {
		hdr += " " + l.String() + " |"
		sep += "---|"
	}
	p("%s inside limits |", hdr)
	p("%s---|", sep)
	for _, c := range sum.Confirmed {
		row := fmt.Sprintf("| %s | `%s` | %+.1f%% | %+.1f%% to %+.1f%% | %.3g |", c.Name, c.GODEBUG, c.Objective.Pct, c.Objective.Interval[0], c.Objective.Interval[1], c.Objective.PHolm)
		for _, e := range c.Limits {
			row += fmt.Sprintf(" %+.1f%% (%+.1f%% to %+.1f%%) |", e.Pct, e.Interval[0], e.Interval[1])
		}
		p("%s %s |", row, c.Inside)
	}
	if s := sum.Stock2; s != nil {
		p("| stock2 (control) | | %+.1f%% | %+.1f%% to %+.1f%% | %.3g |%s |", s.Pct, s.Interval[0], s.Interval[1], s.PHolm, strings.Repeat(" |", len(st.Config.Limits)))
	}
	p("")
	ss := sum.Search
	if st.Config.Grid {
		p("## The grid")
		p("")
		p("Every candidate and both controls ran every one of %d interleaved rounds (`bench.txt`, `runs.tsv`): %d runs in %s. At the end, one cut: a candidate is dropped when a two-sided Mann-Whitney U test finds it worse than the best (Holm over the candidates, α=%.3g); the survivors are the set the grid cannot tell apart from its best.",
			ss.Rounds, ss.Runs, (time.Duration(ss.Seconds) * time.Second).String(), st.Config.Alpha)
		p("")
	} else {
		p("## The search")
		p("")
		p("Racing over interleaved rounds (`bench.txt`, `runs.tsv`): every candidate and both controls run once per round; at each cut, a candidate is dropped when a two-sided Mann-Whitney U test finds it worse than the best candidate that looks at least as likely inside the limits, or a one-sided test finds a limit's unit outside its bound against stock's runs, each family Holm-corrected over the live candidates at α=%.3g/%d (α spread over the %d planned cuts). Cuts come at round %d and then at twice the rounds, up to %d.", st.Config.Alpha, st.Looks, st.Looks, firstCutOf(st), st.Config.MaxRounds)
		p("")
		p("It ended after %d rounds (%s): %d runs in %s, against %d runs (about %s) for the full grid of %d candidates and both controls at %d rounds: %.0f%% of the grid's runs.",
			ss.Rounds, ss.Reason, ss.Runs, (time.Duration(ss.Seconds) * time.Second).String(), ss.GridRuns, (time.Duration(ss.GridSeconds) * time.Second).String(), ss.Candidates, st.Config.MaxRounds, 100*float64(ss.Runs)/float64(ss.GridRuns))
	}
	p("")
	p("| cut at round | best | alive | dropped (why, p after Holm) |")
	p("|---|---|---|---|")
	for _, c := range st.Cuts {
		var ds []string
		for _, d := range c.Dropped {
			ds = append(ds, fmt.Sprintf("%s (%s, p=%.3g)", d.Name, d.Why, d.PHolm))
		}
		if len(ds) == 0 {
			ds = []string{"none"}
		}
		p("| %d | %s | %d | %s |", c.Rounds, c.Best, len(c.Alive), strings.Join(ds, "; "))
	}
	p("")
	p("Every candidate, by median %s over the rounds it ran:", st.Config.Objective)
	p("")
	p("| candidate | GODEBUG | rounds | median %s | vs stock | dropped after round |", st.Config.Objective)
	p("|---|---|---|---|---|---|")
	stock := st.Arm(Stock)
	arms := append([]*Arm{}, st.Arms...)
	sort.SliceStable(arms, func(i, j int) bool {
		x, y := arms[i].Median(st.Config.Objective), arms[j].Median(st.Config.Objective)
		return st.Config.better(x, y)
	})
	for _, a := range arms {
		dropped := "survived"
		if a.Control {
			dropped = "control"
		} else if a.Dropped > 0 {
			dropped = fmt.Sprintf("%d: %s", a.Dropped, a.Why)
		}
		p("| %s | `%s` | %d | %.4g | %s | %s |", a.Name, a.GODEBUG, len(a.Values[st.Config.Objective]), a.Median(st.Config.Objective),
			pctText(a.Median(st.Config.Objective), stock.Median(st.Config.Objective)), dropped)
	}
	if figure {
		p("")
		p("![%s](%s)", "objective against the first limit's unit, every candidate", strings.TrimSuffix(FrontierFile, ".svg")+".png")
		p("")
		if st.Config.Grid {
			p("Each point is a candidate's medians over the grid's %d rounds; squares are stock and stock2; the dashed line, where there is a limit, is its bound at stock's median.", st.Config.MaxRounds)
		} else {
			p("Each point is a candidate's medians over the rounds it ran in the search (so a candidate dropped early rests on few runs); squares are stock and stock2; the dashed line, where there is a limit, is its bound at stock's median.")
		}
	}
}

func firstCutOf(st *State) int {
	if len(st.Cuts) > 0 {
		return st.Cuts[0].Rounds
	}
	return st.NextCut
}

// PlotFrontier draws every candidate's median objective against its
// median of yUnit (the first limit's unit), the controls and the
// survivors marked, and the limit's bound: the trade-off front. It
// returns false if the candidates do not report yUnit.
func PlotFrontier(dir, caption string, st *State, yUnit string, limit *Limit) (bool, error) {
	obj := st.Config.Objective
	var xs, ys []float64
	for _, a := range st.Arms {
		x, y := a.Median(obj), a.Median(yUnit)
		if math.IsNaN(x) || math.IsNaN(y) {
			continue
		}
		xs, ys = append(xs, x), append(ys, y)
	}
	if len(xs) < 2 {
		return false, nil
	}
	xl, xscale := plots.AxisLabel(obj, mstats.Sample{Xs: xs}.Quantile(0.5))
	yl, yscale := plots.AxisLabel(yUnit, mstats.Sample{Xs: ys}.Quantile(0.5))
	what := "search"
	if st.Config.Grid {
		what = "grid"
	}
	p := plot.New()
	p.Title.Text = "Candidates of the " + what + ": " + obj + " against " + yUnit + "\n" + caption
	p.X.Label.Text = xl + ", median of the " + what + "'s runs"
	p.Y.Label.Text = yl + ", median of the " + what + "'s runs"
	groups := []struct {
		label string
		keep  func(a *Arm) bool
		shape draw.GlyphDrawer
		col   color.Color
	}{
		{"controls (stock, stock2)", func(a *Arm) bool { return a.Control }, draw.SquareGlyph{}, color.RGBA{80, 80, 80, 255}},
		{"dropped candidates", func(a *Arm) bool { return !a.Control && a.Dropped > 0 }, draw.CircleGlyph{}, color.RGBA{160, 160, 220, 255}},
		{"survivors", func(a *Arm) bool { return !a.Control && a.Dropped == 0 }, draw.TriangleGlyph{}, color.RGBA{200, 60, 40, 255}},
	}
	var allPts plotter.XYs
	var allLabels []string
	for _, g := range groups {
		var pts plotter.XYs
		var labels []string
		for _, a := range st.Arms {
			x, y := a.Median(obj), a.Median(yUnit)
			if !g.keep(a) || math.IsNaN(x) || math.IsNaN(y) {
				continue
			}
			pts = append(pts, plotter.XY{X: x * xscale, Y: y * yscale})
			labels = append(labels, a.Name)
		}
		if len(pts) == 0 {
			continue
		}
		s, err := plotter.NewScatter(pts)
		if err != nil {
			return false, err
		}
		s.GlyphStyle.Shape, s.GlyphStyle.Color, s.GlyphStyle.Radius = g.shape, g.col, vg.Points(3.5)
		p.Add(s)
		p.Legend.Add(g.label, s)
		if g.label == groups[0].label {
			labels = make([]string, len(labels)) // the controls' squares need no names
		}
		allPts, allLabels = append(allPts, pts...), append(allLabels, labels...)
	}
	// One set of labels, so that each keeps off every group's points.
	p.Add(plots.NewPointLabels(allPts, allLabels, vg.Points(7)))
	if limit != nil && limit.Unit == yUnit {
		if s := st.Arm(Stock).Median(yUnit); !math.IsNaN(s) {
			b := limit.Bound(s) * yscale
			line, err := plotter.NewLine(plotter.XYs{{X: slices.Min(xs) * xscale, Y: b}, {X: slices.Max(xs) * xscale, Y: b}})
			if err != nil {
				return false, err
			}
			line.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
			line.Color = color.RGBA{200, 60, 40, 255}
			p.Add(line)
			p.Legend.Add("limit "+limit.String()+" of stock", line)
		}
	}
	// Room on the right for the names, and above the data for the
	// legend, so that neither covers a point.
	p.X.Max += (p.X.Max - p.X.Min) * 0.35
	p.Y.Max += (p.Y.Max - p.Y.Min) * 0.45
	p.X.Tick.Marker, p.Y.Tick.Marker = plots.NiceTicks, plots.NiceTicks
	p.Legend.Top = true
	p.Legend.Left = false
	p.Legend.TextStyle.Font.Size = vg.Points(8)
	return true, plots.Save(p, 6.5*vg.Inch, 4.5*vg.Inch, filepath.Join(dir, FrontierFile))
}

// baseName is a benchmark's name without "Benchmark" and the -N
// GOMAXPROCS suffix, as benchstat's rows and ParseResults differ.
func baseName(name string) string {
	name = strings.TrimPrefix(name, "Benchmark")
	if i := strings.LastIndexByte(name, '-'); i > 0 && strings.Trim(name[i+1:], "0123456789") == "" && i+1 < len(name) {
		name = name[:i]
	}
	return name
}
