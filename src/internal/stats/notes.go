package stats

import (
	"slices"
	"strings"
)

// SchedLatencyNote is the caveat that goes with the sched-latency units
// (p50-sched-latency-ns and p99-sched-latency-ns, shown as -sec) wherever
// a table, verdict, plot list or doc shows them: golang/go#79391.
const SchedLatencyNote = "sched-latency comes from the runtime's `/sched/latencies:seconds` histogram, " +
	"which since go1.26 samples a different population of scheduling events than go1.25 and earlier did (golang/go#79391): " +
	"its values are not comparable with numbers measured with go1.25 or older, " +
	"and it is not the per-run delay from runnable to running, which `schedlab trace -latency` computes from an execution trace"

// UnitNote returns the caveat that goes with unit wherever it is shown,
// or "" for a unit without one.
func UnitNote(unit string) string {
	if strings.Contains(unit, "sched-latency") {
		return SchedLatencyNote
	}
	return ""
}

// UnitNotes returns the distinct caveats of units, in the order of the
// first unit that has each.
func UnitNotes(units ...string) []string {
	var out []string
	for _, u := range units {
		if n := UnitNote(u); n != "" && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// TableNotes returns the distinct caveats of c's units (see UnitNotes).
func (c *Comparison) TableNotes() []string {
	var units []string
	for _, t := range c.Tables {
		units = append(units, t.Unit)
	}
	return UnitNotes(units...)
}
