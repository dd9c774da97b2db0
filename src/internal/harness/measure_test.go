package harness

import "testing"

func TestInstructionsN(t *testing.T) {
	for _, tc := range []struct {
		run, target string
		want        int
		bad         bool
	}{
		{"", "", 200, false},          // the default
		{"", "60x", 60, false},        // the target's fixed count
		{"", "200ms", 200, false},     // a target's duration is not a count: the default
		{"1000x", "60x", 1000, false}, // the run's -benchtime wins
		{"500ms", "", 0, true},        // a duration cannot give instructions per op
		{"0x", "", 0, true},
		{"x", "", 0, true},
	} {
		b := &bench{opt: BenchOptions{Benchtime: tc.run}}
		n, err := b.instructionsN(Target{Benchtime: tc.target})
		if tc.bad != (err != nil) || n != tc.want {
			t.Errorf("instructionsN(run %q, target %q) = %d, %v; want %d (error %v)", tc.run, tc.target, n, err, tc.want, tc.bad)
		}
	}
}
