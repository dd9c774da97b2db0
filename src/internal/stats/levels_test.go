package stats

import (
	"testing"

	"golang.org/x/perf/benchmath"
)

// TestLevelText checks that a report states the intervals' level as
// computed, rounded down, and a range when the cells differ.
func TestLevelText(t *testing.T) {
	cmp := func(levels ...float64) *Comparison {
		r := &Row{}
		for _, l := range levels {
			r.Cells = append(r.Cells, &Cell{Summary: benchmath.Summary{Confidence: l}})
		}
		r.Cells = append(r.Cells, nil)
		return &Comparison{Tables: []*UnitTable{{Rows: []*Row{r}}}}
	}
	for _, tc := range []struct {
		levels []float64
		want   string
	}{
		{[]float64{0.978516, 0.978516}, "97.8%"},
		{[]float64{0.978516, 0.998047}, "97.8%-99.8%"},
		{[]float64{0.95}, "95.0%"},
		{nil, "no"},
		{[]float64{0}, "no"}, // a cell without an interval
	} {
		if got := cmp(tc.levels...).LevelText(); got != tc.want {
			t.Errorf("levels %v: %q, want %q", tc.levels, got, tc.want)
		}
	}
}
