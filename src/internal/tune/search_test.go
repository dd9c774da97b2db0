package tune

import (
	"context"
	"errors"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// fakeRunner reports, for each arm, a "sec/op" drawn around the arm's
// true value with multiplicative noise, and a "cpu-sec/op" around its
// cpu value; every run takes wall seconds of a fake clock. What an arm
// reports in a round depends only on the seed, the arm and the round, so
// a resumed search sees what an uninterrupted one saw.
type fakeRunner struct {
	truth map[string]float64 // sec/op by arm; stock controls 1.0
	cpu   map[string]float64 // cpu-sec/op by arm, default 1.0
	noise float64            // sigma of the log-normal noise
	seed  uint64
	wall  time.Duration
	now   time.Time
	fail  map[string]bool
	// stopAfter cancels the search (returns an error) when this many
	// rounds have run, if not 0.
	stopAfter int
	rounds    int
}

var errStop = errors.New("stopped")

func (f *fakeRunner) Round(ctx context.Context, round int, arms []string) (map[string]Obs, error) {
	if f.stopAfter > 0 && f.rounds == f.stopAfter {
		return nil, errStop
	}
	f.rounds++
	out := map[string]Obs{}
	for _, a := range arms {
		f.now = f.now.Add(f.wall)
		if f.fail[a] {
			continue
		}
		h := fnv.New64a()
		h.Write([]byte(a))
		rng := rand.New(rand.NewPCG(f.seed, h.Sum64()+uint64(round)*7919))
		truth, ok := f.truth[a]
		if !ok {
			truth = 1
		}
		cpu, ok := f.cpu[a]
		if !ok {
			cpu = 1
		}
		out[a] = Obs{Wall: f.wall, Values: map[string]float64{
			"sec/op":     truth * math.Exp(f.noise*rng.NormFloat64()),
			"cpu-sec/op": cpu * math.Exp(f.noise*rng.NormFloat64()),
		}}
	}
	return out, nil
}

func (f *fakeRunner) clock() time.Time { return f.now }

func candidates(names ...string) []Candidate {
	var cs []Candidate
	for _, n := range names {
		cs = append(cs, Candidate{Name: n, GODEBUG: n})
	}
	return cs
}

func newFake(truth map[string]float64) *fakeRunner {
	return &fakeRunner{truth: truth, noise: 0.05, seed: 1, wall: time.Second, now: time.Unix(0, 0), cpu: map[string]float64{}, fail: map[string]bool{}}
}

func runSearch(t *testing.T, cfg Config, cands []Candidate, f *fakeRunner) *State {
	t.Helper()
	st, err := Start(cfg, cands)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Run(context.Background(), f, Options{Now: f.clock}); err != nil {
		t.Fatal(err)
	}
	return st
}

// grid is what a full grid at the search's largest n costs in runs:
// every candidate and both controls, MaxRounds rounds.
func grid(st *State) int { return len(st.Arms) * st.Config.MaxRounds }

func TestSearchFindsOptimumAndDropsWorseEarly(t *testing.T) {
	truth := map[string]float64{"a": 1.0, "b": 1.02, "c": 0.7, "d": 1.3, "e": 1.5, "f": 1.1, "g": 0.98, "h": 1.25}
	for seed := uint64(1); seed <= 20; seed++ {
		f := newFake(truth)
		f.seed = seed
		st := runSearch(t, Config{Objective: "sec/op"}, candidates("a", "b", "c", "d", "e", "f", "g", "h"), f)
		if len(st.Survived) != 1 || st.Survived[0] != "c" {
			t.Fatalf("seed %d: survivors %v (%s), want [c]", seed, st.Survived, st.Reason)
		}
		first := st.Cuts[0]
		for _, clear := range []string{"d", "e", "h"} {
			if !slices.ContainsFunc(first.Dropped, func(d Drop) bool { return d.Name == clear }) {
				t.Errorf("seed %d: %s (%.0f%% worse) not dropped at the first cut, round %d: %+v", seed, clear, 100*(truth[clear]/0.7-1), first.Rounds, first.Dropped)
			}
		}
		if st.Runs*2 > grid(st) {
			t.Errorf("seed %d: %d runs, more than half the grid's %d", seed, st.Runs, grid(st))
		}
	}
}

func TestSearchKeepsIndistinguishableTogether(t *testing.T) {
	truth := map[string]float64{"a": 0.8, "b": 0.8, "c": 1.2, "d": 1.0}
	kept := 0
	const seeds = 20
	for seed := uint64(1); seed <= seeds; seed++ {
		f := newFake(truth)
		f.seed = seed
		st := runSearch(t, Config{Objective: "sec/op"}, candidates("a", "b", "c", "d"), f)
		if slices.Contains(st.Survived, "c") || slices.Contains(st.Survived, "d") {
			t.Errorf("seed %d: a clearly worse candidate survived: %v", seed, st.Survived)
		}
		if len(st.Survived) == 2 {
			kept++
			if !strings.Contains(st.Reason, "not told apart") || st.Rounds != st.Config.MaxRounds {
				t.Errorf("seed %d: ended %q after %d rounds; want not told apart after %d", seed, st.Reason, st.Rounds, st.Config.MaxRounds)
			}
		}
	}
	// Each cut drops one of two equal candidates with probability at
	// most alpha; four cuts make that at most about 20% of searches.
	if kept < seeds*3/4 {
		t.Errorf("two equal candidates kept together in %d of %d searches", kept, seeds)
	}
}

func TestSearchRespectsLimit(t *testing.T) {
	f := newFake(map[string]float64{"fast-costly": 0.6, "fast": 0.75, "slow": 1.2})
	f.cpu["fast-costly"] = 1.10
	cfg := Config{Objective: "sec/op", Limits: []Limit{{Unit: "cpu-sec/op", Upper: true, Pct: 3}}}
	st := runSearch(t, cfg, candidates("fast-costly", "fast", "slow"), f)
	if len(st.Survived) == 0 || st.Survived[0] != "fast" {
		t.Fatalf("survivors %v; want fast first (fast-costly is outside the limit)", st.Survived)
	}
	a := st.Arm("fast-costly")
	if a.Dropped == 0 || !strings.Contains(a.Why, "outside cpu-sec/op<=+3%") {
		t.Errorf("fast-costly: dropped %d, why %q", a.Dropped, a.Why)
	}
}

func TestSearchMaximize(t *testing.T) {
	f := newFake(map[string]float64{"a": 1.0, "b": 1.4, "c": 0.9})
	st := runSearch(t, Config{Objective: "sec/op", Maximize: true}, candidates("a", "b", "c"), f)
	if len(st.Survived) != 1 || st.Survived[0] != "b" {
		t.Fatalf("survivors %v, want [b]", st.Survived)
	}
}

func TestSearchRespectsBudget(t *testing.T) {
	truth := map[string]float64{"a": 1.0, "b": 1.01, "c": 0.99, "d": 1.0, "e": 1.02}
	f := newFake(truth)
	cfg := Config{Objective: "sec/op", Budget: 3 * time.Minute}
	st := runSearch(t, cfg, candidates("a", "b", "c", "d", "e"), f)
	if !strings.HasPrefix(st.Reason, "budget") {
		t.Fatalf("ended %q; want the budget to end it", st.Reason)
	}
	if used := st.Elapsed + st.ConfirmTime(); used > cfg.Budget {
		t.Errorf("search %s + confirmation %s = %s, over the budget %s", st.Elapsed, st.ConfirmTime(), used, cfg.Budget)
	}
	if len(st.Survived) == 0 {
		t.Errorf("no survivors to confirm")
	}
}

func TestSearchDropsFailingCandidate(t *testing.T) {
	f := newFake(map[string]float64{"a": 0.5, "b": 1.0})
	f.fail["a"] = true
	st := runSearch(t, Config{Objective: "sec/op"}, candidates("a", "b"), f)
	if st.Arm("a").Dropped != 1 || len(st.Survived) != 1 || st.Survived[0] != "b" {
		t.Errorf("a dropped after round %d (%s), survivors %v", st.Arm("a").Dropped, st.Arm("a").Why, st.Survived)
	}
}

func TestSearchResumes(t *testing.T) {
	truth := map[string]float64{"a": 1.0, "b": 0.8, "c": 1.1, "d": 0.82}
	whole := runSearch(t, Config{Objective: "sec/op"}, candidates("a", "b", "c", "d"), newFake(truth))

	path := filepath.Join(t.TempDir(), "state.json")
	st, err := Start(Config{Objective: "sec/op"}, candidates("a", "b", "c", "d"))
	if err != nil {
		t.Fatal(err)
	}
	f := newFake(truth)
	f.stopAfter = 7
	save := func(s *State) error { return s.Save(path) }
	if err := st.Run(context.Background(), f, Options{Now: f.clock, Save: save}); !errors.Is(err, errStop) {
		t.Fatalf("first part: %v, want the stop", err)
	}
	st, err = Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Rounds != 7 {
		t.Fatalf("saved after %d rounds, want 7", st.Rounds)
	}
	f.stopAfter = 0
	if err := st.Run(context.Background(), f, Options{Now: f.clock, Save: save}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(st.Survived, whole.Survived) || st.Rounds != whole.Rounds || st.Runs != whole.Runs {
		t.Errorf("resumed: %v after %d rounds (%d runs); uninterrupted: %v after %d (%d runs)",
			st.Survived, st.Rounds, st.Runs, whole.Survived, whole.Rounds, whole.Runs)
	}
}

func TestFirstCut(t *testing.T) {
	for _, tc := range []struct{ k, want int }{{2, 5}, {10, 7}, {40, 8}} {
		if got := firstCut(Config{Alpha: 0.05, MinRounds: 5, MaxRounds: 20}, tc.k); got != tc.want {
			t.Errorf("firstCut(%d candidates) = %d, want %d", tc.k, got, tc.want)
		}
	}
	if p := minP(5); math.Abs(p-1.0/252) > 1e-12 {
		t.Errorf("minP(5) = %g, want 1/252", p)
	}
}

func TestParseLimitAndKnob(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Limit
	}{
		{"cpu-sec/op<=+3%", Limit{"cpu-sec/op", true, 3}},
		{"hog-iters/s>=-5%", Limit{"hog-iters/s", false, -5}},
		{"ns/op<=10%", Limit{"sec/op", true, 10}},
		{"p99-wake-ns<=+1%", Limit{"p99-wake-sec", true, 1}},
	} {
		got, err := ParseLimit(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseLimit(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"cpu-sec/op", "x<=3", "<=3%", "x<=abc%", "x<=-100%"} {
		if _, err := ParseLimit(bad); err == nil {
			t.Errorf("ParseLimit(%q) accepted", bad)
		}
	}
	if _, err := ParseKnob("timeslice=1000,1000"); err == nil {
		t.Errorf("a value given twice accepted")
	}
	k1, _ := ParseKnob("timeslice=1000,2000")
	k2, _ := ParseKnob("sysmontick=10,50")
	cs := Product([]Knob{k1, k2})
	if len(cs) != 5 || cs[0].Name != DefaultName || cs[4].GODEBUG != "timeslice=2000,sysmontick=50" {
		t.Errorf("Product = %+v", cs)
	}
	if n := len(OneAtATime(DefaultKnobs(1))); n != 10 {
		t.Errorf("the default space on one node has %d candidates, want 10", n)
	}
}

func TestGridRunsEveryCandidateToTheEnd(t *testing.T) {
	truth := map[string]float64{"a": 1.0, "b": 0.7, "c": 1.5}
	st := runSearch(t, Config{Objective: "sec/op", Grid: true, Budget: time.Minute}, candidates("a", "b", "c"), newFake(truth))
	if st.Rounds != st.Config.MaxRounds || st.Runs != grid(st) || len(st.Cuts) != 1 || st.Looks != 1 {
		t.Errorf("grid: %d rounds, %d runs (grid %d), %d cuts, %d looks", st.Rounds, st.Runs, grid(st), len(st.Cuts), st.Looks)
	}
	if len(st.Survived) != 1 || st.Survived[0] != "b" {
		t.Errorf("grid survivors %v, want [b]", st.Survived)
	}
	search := runSearch(t, Config{Objective: "sec/op"}, candidates("a", "b", "c"), newFake(truth))
	if !slices.Equal(search.Survived, st.Survived) || search.Runs >= st.Runs {
		t.Errorf("search: %v in %d runs; grid: %v in %d", search.Survived, search.Runs, st.Survived, st.Runs)
	}
}
