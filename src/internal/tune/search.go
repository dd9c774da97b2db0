package tune

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	mstats "github.com/aclements/go-moremath/stats"

	"github.com/schedlab/schedlab/src/internal/stats"
)

// Names of the controls, which run in every round.
const (
	Stock  = "stock"
	Stock2 = "stock2"
)

// Config is what the search optimises, within which limits and budget.
type Config struct {
	Objective string  `json:"objective"` // the unit to minimise (or maximise)
	Maximize  bool    `json:"maximize,omitempty"`
	Limits    []Limit `json:"limits,omitempty"`
	Alpha     float64 `json:"alpha"`
	// MinRounds is the rounds every candidate gets before the first
	// cut; Start raises it until a cut can reach Alpha after Holm's
	// correction over the candidates.
	MinRounds int `json:"min_rounds"`
	// MaxRounds ends the search: survivors with this many rounds are a
	// set the search cannot tell apart.
	MaxRounds int `json:"max_rounds"`
	// ConfirmRounds is n of the confirmation run, ConfirmMax how many
	// survivors (best first) it confirms.
	ConfirmRounds int           `json:"confirm_rounds"`
	ConfirmMax    int           `json:"confirm_max"`
	Budget        time.Duration `json:"budget"`
	// Grid runs every candidate MaxRounds rounds and makes one cut at
	// the end: the full grid a search is measured against.
	Grid bool `json:"grid,omitempty"`
}

// defaults fills in the zero fields of c.
func (c *Config) defaults() {
	if c.Alpha == 0 {
		c.Alpha = 0.05
	}
	if c.MinRounds == 0 {
		c.MinRounds = 5
	}
	if c.MaxRounds == 0 {
		c.MaxRounds = 20
	}
	if c.ConfirmRounds == 0 {
		c.ConfirmRounds = 20
	}
	if c.ConfirmMax == 0 {
		c.ConfirmMax = 3
	}
}

// An Arm is a candidate or a control and what its runs reported, one
// value per unit per round it ran.
type Arm struct {
	Candidate
	Control bool                 `json:"control,omitempty"`
	Values  map[string][]float64 `json:"values"`
	Wall    []float64            `json:"wall_s"` // seconds of each run
	Failed  int                  `json:"failed,omitempty"`
	// Dropped is the round after which the arm was dropped (0: alive),
	// Why says for what.
	Dropped int    `json:"dropped,omitempty"`
	Why     string `json:"why,omitempty"`
}

// A Cut is one judgement of the live candidates, after Rounds rounds.
type Cut struct {
	Rounds  int      `json:"rounds"`
	Best    string   `json:"best"`
	Alive   []string `json:"alive"` // before the cut
	Dropped []Drop   `json:"dropped,omitempty"`
}

// A Drop is a candidate a cut removed and why.
type Drop struct {
	Name  string  `json:"name"`
	Why   string  `json:"why"`
	PHolm float64 `json:"p_holm"`
}

// State is the whole search, saved after every round so that a search
// can resume where it stopped.
type State struct {
	Config  Config `json:"config"`
	Arms    []*Arm `json:"arms"`
	Rounds  int    `json:"rounds"`   // rounds done
	NextCut int    `json:"next_cut"` // the rounds at which the next cut is made
	Cuts    []Cut  `json:"cuts"`     // every cut so far
	// Looks is the number of cuts planned at the start; each is made at
	// Alpha/Looks, so that repeated cuts do not add up their chances of
	// a wrong drop (Bonferroni over the looks). The best is picked
	// after looking, so the drops are a screen; the confirmation is
	// the test.
	Looks    int           `json:"looks"`
	Runs     int           `json:"runs"`      // runs done, controls included
	Elapsed  time.Duration `json:"elapsed"`   // time spent in rounds, over every resumption
	Done     bool          `json:"done"`      // the search has ended
	Reason   string        `json:"reason"`    // why it ended
	Survived []string      `json:"survivors"` // live candidates at the end, best first
}

// A Runner runs one round: every named arm once. It returns each arm's
// values by unit and the wall time of its run; an arm whose run failed
// has no entry (or no values).
type Runner interface {
	Round(ctx context.Context, round int, arms []string) (map[string]Obs, error)
}

// Obs is what one arm's run in a round reported.
type Obs struct {
	Values map[string]float64
	Wall   time.Duration
}

// Start returns a new search over cands with stock and stock2 controls.
func Start(cfg Config, cands []Candidate) (*State, error) {
	cfg.defaults()
	if cfg.Objective == "" {
		return nil, fmt.Errorf("no objective unit")
	}
	if len(cands) == 0 {
		return nil, fmt.Errorf("no candidates")
	}
	if cfg.MaxRounds < cfg.MinRounds {
		return nil, fmt.Errorf("max rounds %d below min rounds %d", cfg.MaxRounds, cfg.MinRounds)
	}
	st := &State{Config: cfg}
	seen := map[string]bool{Stock: true, Stock2: true}
	st.Arms = append(st.Arms, &Arm{Candidate: Candidate{Name: Stock}, Control: true, Values: map[string][]float64{}},
		&Arm{Candidate: Candidate{Name: Stock2}, Control: true, Values: map[string][]float64{}})
	for _, c := range cands {
		if seen[c.Name] {
			return nil, fmt.Errorf("candidate %q given twice (or named like a control)", c.Name)
		}
		seen[c.Name] = true
		st.Arms = append(st.Arms, &Arm{Candidate: c, Values: map[string][]float64{}})
	}
	st.NextCut = firstCut(cfg, len(cands))
	if cfg.Grid {
		st.NextCut = cfg.MaxRounds
	}
	st.Looks = looks(st.NextCut, cfg.MaxRounds)
	return st, nil
}

// firstCut is the number of rounds at which a cut among k candidates
// can first reach its share of alpha: the smallest n >= MinRounds at
// which the smallest two-sided U-test p-value of n against n runs,
// 2/C(2n,n), times k-1 (Holm's first step) is at most alpha over the
// number of cuts the search will make from there (looks), capped at
// MaxRounds. With 10 candidates that is 7 rounds.
func firstCut(cfg Config, k int) int {
	n := cfg.MinRounds
	for ; n < cfg.MaxRounds; n++ {
		if 2*minP(n)*float64(max(k-1, 1)) <= cfg.Alpha/float64(looks(n, cfg.MaxRounds)) {
			break
		}
	}
	return n
}

// looks is how many cuts a search makes from its first, at n rounds:
// at n, 2n, 4n ... and at max.
func looks(n, max int) int {
	k := 1
	for ; n < max; n = nextCut(n, max) {
		k++
	}
	return k
}

// nextCut is the round of the cut after one at n: twice as many rounds
// (successive halving's doubling), at most max.
func nextCut(n, max int) int { return min(2*n, max) }

// minP is 1/C(2n,n), the smallest one-sided Mann-Whitney p-value of two
// samples of n.
func minP(n int) float64 {
	lg, _ := math.Lgamma(float64(2*n + 1))
	l1, _ := math.Lgamma(float64(n + 1))
	return math.Exp(2*l1 - lg)
}

// Load reads a saved state.
func Load(path string) (*State, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var st State
	if err := json.Unmarshal(data, &st); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return &st, nil
}

// Save writes the state to path (through a temporary file, so that an
// interrupted save leaves the previous one).
func (st *State) Save(path string) error {
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(data, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// Arm returns the arm named name, or nil.
func (st *State) Arm(name string) *Arm {
	for _, a := range st.Arms {
		if a.Name == name {
			return a
		}
	}
	return nil
}

// Alive returns the live candidates (not the controls).
func (st *State) Alive() []*Arm {
	var as []*Arm
	for _, a := range st.Arms {
		if !a.Control && a.Dropped == 0 {
			as = append(as, a)
		}
	}
	return as
}

// Median is the median of the arm's values of unit (NaN if none).
func (a *Arm) Median(unit string) float64 {
	vs := a.Values[unit]
	if len(vs) == 0 {
		return math.NaN()
	}
	return mstats.Sample{Xs: vs}.Quantile(0.5)
}

func (a *Arm) meanWall() float64 {
	if len(a.Wall) == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, w := range a.Wall {
		s += w
	}
	return s / float64(len(a.Wall))
}

// better reports whether objective value x is better than y.
func (c *Config) better(x, y float64) bool {
	if c.Maximize {
		return x > y
	}
	return x < y
}

// Options of Run.
type Options struct {
	Save     func(*State) error // after every round; nil: not saved
	Progress io.Writer          // one line per round and cut; nil: none
	Now      func() time.Time   // the clock; nil: time.Now
}

// Run races the candidates until one is left, the survivors reach
// MaxRounds, or the budget, less the confirmation's expected time,
// leaves no room for another round. It can be called again on a loaded
// state to resume.
func (st *State) Run(ctx context.Context, rn Runner, opt Options) error {
	now := opt.Now
	if now == nil {
		now = time.Now
	}
	progress := opt.Progress
	if progress == nil {
		progress = io.Discard
	}
	for !st.Done {
		alive := st.Alive()
		switch {
		case len(alive) == 0:
			st.finish("no candidate left: every one's runs failed")
			continue
		case len(alive) == 1:
			st.finish("one candidate left")
			continue
		case st.Rounds >= st.NextCut:
			st.cut(progress)
			if len(st.Alive()) > 1 && st.Rounds >= st.Config.MaxRounds {
				st.finish(fmt.Sprintf("%d candidates not told apart after %d rounds", len(st.Alive()), st.Rounds))
			}
			continue
		}
		if left := st.Config.Budget - st.Elapsed; st.Config.Budget > 0 && !st.Config.Grid && st.roundTime()+st.ConfirmTime() > left {
			if st.Rounds > 0 && st.Rounds < st.NextCut {
				// Judge what the rounds so far show before stopping.
				st.cut(progress)
			}
			st.finish(fmt.Sprintf("budget: %s left, a round and the confirmation need about %s",
				left.Round(time.Second), (st.roundTime() + st.ConfirmTime()).Round(time.Second)))
			continue
		}
		names := []string{Stock, Stock2}
		for _, a := range alive {
			names = append(names, a.Name)
		}
		t0 := now()
		obs, err := rn.Round(ctx, st.Rounds, names)
		if err != nil {
			return err
		}
		st.Elapsed += now().Sub(t0)
		for _, name := range names {
			a := st.Arm(name)
			o, ok := obs[name]
			if !ok || len(o.Values) == 0 {
				a.Failed++
				continue
			}
			a.Wall = append(a.Wall, o.Wall.Seconds())
			for u, v := range o.Values {
				a.Values[u] = append(a.Values[u], v)
			}
			if _, ok := o.Values[st.Config.Objective]; !ok {
				a.Failed++
			}
		}
		st.Rounds++
		st.Runs += len(names)
		for _, a := range alive {
			// A candidate whose runs fail (a crash, a unit it does not
			// report) cannot be judged: it goes at once.
			if a.Failed > 0 && a.Dropped == 0 {
				a.Dropped, a.Why = st.Rounds, "its run failed or did not report "+st.Config.Objective
			}
		}
		left := st.Config.Budget - st.Elapsed
		if st.Config.Grid {
			left = time.Duration(st.Config.MaxRounds-st.Rounds) * st.roundTime()
		}
		fmt.Fprintf(progress, "tune: round %d: %d candidates alive, next cut at round %d, %s spent, about %s left\n",
			st.Rounds, len(st.Alive()), st.NextCut, st.Elapsed.Round(time.Second), left.Round(time.Second))
		if opt.Save != nil {
			if err := opt.Save(st); err != nil {
				return err
			}
		}
	}
	if opt.Save != nil {
		return opt.Save(st)
	}
	return nil
}

// roundTime is the expected time of the next round: the mean wall time
// of each arm that runs in it (or of all runs, for arms not yet run).
func (st *State) roundTime() time.Duration {
	all := []float64{}
	for _, a := range st.Arms {
		all = append(all, a.Wall...)
	}
	if len(all) == 0 {
		return 0 // nothing known: run the first round
	}
	mean := 0.0
	for _, w := range all {
		mean += w
	}
	mean /= float64(len(all))
	total := 0.0
	for _, a := range st.Arms {
		if a.Control || a.Dropped == 0 {
			w := a.meanWall()
			if math.IsNaN(w) {
				w = mean
			}
			total += w
		}
	}
	return time.Duration(total * float64(time.Second))
}

// ConfirmTime is the expected time of confirming the best candidate
// against both controls at ConfirmRounds: what the search leaves of
// the budget. More survivors are confirmed where the time left allows
// (ConfirmCount).
func (st *State) ConfirmTime() time.Duration { return st.confirmTime(1) }

// ConfirmCount is how many of the survivors, at most ConfirmMax and at
// least one, a confirmation can take within the budget left.
func (st *State) ConfirmCount() int {
	k := min(len(st.Survived), st.Config.ConfirmMax)
	for k > 1 && st.Config.Budget > 0 && st.Elapsed+st.confirmTime(k) > st.Config.Budget {
		k--
	}
	return k
}

func (st *State) confirmTime(k int) time.Duration {
	arms := []*Arm{st.Arm(Stock), st.Arm(Stock2)}
	best := st.Ranked()
	if len(best) > k {
		best = best[:k]
	}
	arms = append(arms, best...)
	total := 0.0
	for _, a := range arms {
		if w := a.meanWall(); !math.IsNaN(w) {
			total += w
		}
	}
	return time.Duration(total * float64(st.Config.ConfirmRounds) * float64(time.Second))
}

// Ranked returns the live candidates: those whose medians are inside
// every limit first, and within each group the best median objective
// first.
func (st *State) Ranked() []*Arm {
	as := st.Alive()
	obj := st.Config.Objective
	sort.SliceStable(as, func(i, j int) bool {
		if li, lj := st.insideLimits(as[i]), st.insideLimits(as[j]); li != lj {
			return li
		}
		x, y := as[i].Median(obj), as[j].Median(obj)
		if math.IsNaN(y) {
			return !math.IsNaN(x)
		}
		return !math.IsNaN(x) && st.Config.better(x, y)
	})
	return as
}

func (st *State) finish(reason string) {
	st.Done, st.Reason = true, reason
	st.Survived = nil
	for _, a := range st.Ranked() {
		st.Survived = append(st.Survived, a.Name)
	}
}

// cut judges the live candidates: one family of one-sided U tests of
// each against the best (is it worse?), and one family per limit of
// each against stock's values scaled to the limit (is it outside?),
// each Holm-corrected over the live candidates at Alpha/Looks; a
// candidate significant in any family is dropped. The next cut is at
// twice the rounds.
func (st *State) cut(progress io.Writer) {
	cfg := &st.Config
	ranked := st.Ranked()
	c := Cut{Rounds: st.Rounds, Best: ranked[0].Name}
	for _, a := range ranked {
		c.Alive = append(c.Alive, a.Name)
	}
	alpha := cfg.Alpha / float64(max(st.Looks, 1))
	drop := map[string]Drop{}
	// Each candidate is tested against the best candidate that looks
	// at least as likely to be inside the limits (excess no larger, or
	// inside): one that is probably outside must not knock out the
	// candidates that would win once it is shown outside.
	var others, refs []*Arm
	var ps []float64
	for _, a := range ranked {
		ea := max(st.excess(a), 0)
		var ref *Arm
		for _, b := range ranked {
			if b != a && st.excess(b) <= ea {
				ref = b
				break
			}
		}
		if ref == nil || !cfg.better(ref.Median(cfg.Objective), a.Median(cfg.Objective)) {
			continue
		}
		// Two-sided: the reference is the best of the sample, chosen
		// after looking, so a one-sided test against it would reject
		// a candidate as good as it twice as often as it says.
		others, refs = append(others, a), append(refs, ref)
		ps = append(ps, uTest(a.Values[cfg.Objective], ref.Values[cfg.Objective], mstats.LocationDiffers))
	}
	for i, p := range stats.Holm(ps) {
		if p <= alpha {
			a := others[i]
			ref := refs[i]
			drop[a.Name] = Drop{Name: a.Name, PHolm: p, Why: fmt.Sprintf("%s worse than %s (%s)", cfg.Objective, ref.Name, pctText(a.Median(cfg.Objective), ref.Median(cfg.Objective)))}
		}
	}
	stock := st.Arm(Stock)
	for _, l := range cfg.Limits {
		scaled := slices.Clone(stock.Values[l.Unit])
		for i := range scaled {
			scaled[i] = l.Bound(scaled[i])
		}
		outside := mstats.LocationLess
		if l.Upper {
			outside = mstats.LocationGreater
		}
		ps := make([]float64, len(ranked))
		for i, a := range ranked {
			if _, ok := a.Values[l.Unit]; !ok && len(scaled) > 0 {
				ps[i] = 0 // it does not report the unit: it cannot be shown inside
				continue
			}
			ps[i] = uTest(a.Values[l.Unit], scaled, outside)
		}
		for i, p := range stats.Holm(ps) {
			a := ranked[i]
			if _, done := drop[a.Name]; p <= alpha && !done && len(scaled) > 0 {
				drop[a.Name] = Drop{Name: a.Name, PHolm: p, Why: fmt.Sprintf("outside %s (%s against stock)", l, pctText(a.Median(l.Unit), stock.Median(l.Unit)))}
			}
		}
	}
	for _, a := range ranked {
		if d, ok := drop[a.Name]; ok {
			a.Dropped, a.Why = st.Rounds, d.Why
			c.Dropped = append(c.Dropped, d)
		}
	}
	st.Cuts = append(st.Cuts, c)
	var names []string
	for _, d := range c.Dropped {
		names = append(names, d.Name)
	}
	fmt.Fprintf(progress, "tune: cut at round %d: best %s, dropped %d of %d%s\n", st.Rounds, c.Best, len(c.Dropped), len(c.Alive), listText(names))
	st.NextCut = max(nextCut(st.Rounds, cfg.MaxRounds), st.Rounds+1)
}

// excess is how far the arm's medians are outside the limits, as the
// largest fraction of a limit's bound (against stock's median) by which
// one is on the wrong side; 0 or less is inside every limit, +Inf for
// an arm that does not report a limit's unit.
func (st *State) excess(a *Arm) float64 {
	stock := st.Arm(Stock)
	e := math.Inf(-1)
	if len(st.Config.Limits) == 0 {
		return 0
	}
	for _, l := range st.Config.Limits {
		x, s := a.Median(l.Unit), stock.Median(l.Unit)
		switch {
		case math.IsNaN(x):
			return math.Inf(1)
		case math.IsNaN(s) || s == 0:
			e = max(e, 0)
		case l.Upper:
			e = max(e, x/l.Bound(s)-1)
		default:
			e = max(e, 1-x/l.Bound(s))
		}
	}
	return e
}

// insideLimits reports whether the arm's medians are inside every
// limit (against stock's medians).
func (st *State) insideLimits(a *Arm) bool { return st.excess(a) <= 0 }

func listText(names []string) string {
	if len(names) == 0 {
		return ""
	}
	return ": " + strings.Join(names, " ")
}

// uTest is the Mann-Whitney U test's p-value that x lies on alt's side
// of y (LocationDiffers: either side); 1 where the test cannot be made
// (a sample too small, all values equal).
func uTest(x, y []float64, alt mstats.LocationHypothesis) float64 {
	if len(x) < 2 || len(y) < 2 {
		return 1
	}
	r, err := mstats.MannWhitneyUTest(x, y, alt)
	if err != nil {
		return 1
	}
	return r.P
}

func pctText(x, base float64) string {
	if math.IsNaN(x) || math.IsNaN(base) || base == 0 {
		return "?"
	}
	return fmt.Sprintf("%+.1f%%", 100*(x/base-1))
}
