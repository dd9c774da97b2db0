// Package tune searches the patched runtime's knob settings for the one
// that helps a benchmark most (schedlab tune): racing over interleaved
// rounds, where every candidate setting starts with a few runs, those
// significantly worse than the best so far (Mann-Whitney U, Holm over the
// live candidates) or outside a limit are dropped, and the survivors get
// more rounds, with stock and a stock2 control in every round. What runs
// a round is a Runner, so the search can be tested against a fake one
// with a known optimum and known noise.
package tune

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/perf/benchunit"
)

// TidyUnit names a unit as benchstat and the harness do (ns/op is
// sec/op, a p99-wake-ns metric is p99-wake-sec), so that an objective or
// a limit may be given as the benchmark prints it.
func TidyUnit(unit string) string {
	_, u := benchunit.Tidy(1, unit)
	return u
}

// A Candidate is one knob setting: GODEBUG settings for the patched
// toolchain ("" is the patched runtime with no knob set).
type Candidate struct {
	Name    string `json:"name"`
	GODEBUG string `json:"godebug"`
}

// DefaultName names the candidate with no knob set.
const DefaultName = "default"

// A Knob is a GODEBUG knob and the values to try.
type Knob struct {
	Name   string
	Values []string
}

// ParseKnob parses a -knob flag value, NAME=v1,v2,...
func ParseKnob(s string) (Knob, error) {
	name, vals, ok := strings.Cut(s, "=")
	if !ok || name == "" || vals == "" {
		return Knob{}, fmt.Errorf("-knob %q: want NAME=v1,v2,... (e.g. timeslice=1000,2000,5000)", s)
	}
	k := Knob{Name: name}
	for v := range strings.SplitSeq(vals, ",") {
		v = strings.TrimSpace(v)
		if v == "" || strings.ContainsAny(v, " =") {
			return Knob{}, fmt.Errorf("-knob %q: bad value %q", s, v)
		}
		if slices.Contains(k.Values, v) {
			return Knob{}, fmt.Errorf("-knob %q: %s given twice", s, v)
		}
		k.Values = append(k.Values, v)
	}
	return k, nil
}

// DefaultKnobs is the search space without -knob: the scheduler knobs
// the patched runtime adds, each at values around its default (the
// default itself is the candidate with no knob set). On a machine with
// two or more NUMA nodes, NUMA-aware scheduling and binding too.
// docs/user-guide.md lists the same values.
func DefaultKnobs(numaNodes int) []Knob {
	ks := []Knob{
		{"timeslice", []string{"1000", "2000", "5000", "20000"}},
		{"sysmontick", []string{"10", "100"}},
		{"sysmonmaxtick", []string{"1000", "2000"}},
		{"sysmonnetpoll", []string{"1000"}},
	}
	if numaNodes >= 2 {
		ks = append(ks, Knob{"numa", []string{"1"}})
	}
	return ks
}

// OneAtATime returns the default candidate and, for each knob and each
// of its values, the candidate that sets that knob alone: the default
// search space pruned from the product of every knob's values (thousands
// of settings) to one dimension at a time, since the knobs act on
// different mechanisms and a product worth trying can be given with
// -knob. NUMA's "numa=1" also gets numabind=1 (binding on), the
// mechanism the ablation studies separate.
func OneAtATime(ks []Knob) []Candidate {
	cs := []Candidate{{Name: DefaultName}}
	for _, k := range ks {
		for _, v := range k.Values {
			cs = append(cs, Candidate{Name: k.Name + "=" + v, GODEBUG: k.Name + "=" + v})
			if k.Name == "numa" && v == "1" {
				cs = append(cs, Candidate{Name: "numa=1,numabind=1", GODEBUG: "numa=1,numabind=1"})
			}
		}
	}
	return cs
}

// Product returns the default candidate and every combination of the
// knobs' values (the -knob search space).
func Product(ks []Knob) []Candidate {
	settings := [][]string{nil}
	for _, k := range ks {
		var next [][]string
		for _, s := range settings {
			for _, v := range k.Values {
				next = append(next, append(slices.Clone(s), k.Name+"="+v))
			}
		}
		settings = next
	}
	cs := []Candidate{{Name: DefaultName}}
	for _, s := range settings {
		g := strings.Join(s, ",")
		if g == "" {
			continue
		}
		cs = append(cs, Candidate{Name: g, GODEBUG: g})
	}
	return cs
}

// A Limit bounds a unit relative to stock: Upper (UNIT<=+3%) says the
// candidate's median may be at most Pct percent above stock's; otherwise
// (UNIT>=-3%) at most Pct below.
type Limit struct {
	Unit  string  `json:"unit"`
	Upper bool    `json:"upper"`
	Pct   float64 `json:"pct"`
}

// ParseLimit parses a -limit flag value: UNIT<=+3% or UNIT>=-5%.
func ParseLimit(s string) (Limit, error) {
	bad := fmt.Errorf("-limit %q: want UNIT<=+P%% or UNIT>=-P%% (e.g. 'cpu-sec/op<=+3%%', 'hog-iters/s>=-5%%')", s)
	var l Limit
	var rest string
	if u, r, ok := strings.Cut(s, "<="); ok {
		l.Unit, rest, l.Upper = u, r, true
	} else if u, r, ok := strings.Cut(s, ">="); ok {
		l.Unit, rest = u, r
	} else {
		return Limit{}, bad
	}
	l.Unit = strings.TrimSpace(l.Unit)
	rest, ok := strings.CutSuffix(strings.TrimSpace(rest), "%")
	if l.Unit == "" || !ok {
		return Limit{}, bad
	}
	p, err := strconv.ParseFloat(rest, 64)
	if err != nil || math.IsNaN(p) || math.IsInf(p, 0) || p <= -100 {
		return Limit{}, bad
	}
	l.Unit = TidyUnit(l.Unit)
	l.Pct = p
	return l, nil
}

func (l Limit) String() string {
	op := ">="
	if l.Upper {
		op = "<="
	}
	return fmt.Sprintf("%s%s%+g%%", l.Unit, op, l.Pct)
}

// Bound is the limit's value for a stock median.
func (l Limit) Bound(stock float64) float64 { return stock * (1 + l.Pct/100) }

// Outside reports whether x is on the wrong side of bound.
func (l Limit) Outside(x, bound float64) bool {
	if l.Upper {
		return x > bound
	}
	return x < bound
}
