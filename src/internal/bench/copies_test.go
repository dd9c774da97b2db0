package bench

import (
	"slices"
	"testing"
)

func TestMeanOfCopies(t *testing.T) {
	got := meanOfCopies([][]string{
		{
			"BenchmarkA-2\t100\t10.0 ns/op\t4 B/op\t0.5 on-node-share",
			"BenchmarkB-2\t10\t300 ns/op",
			"BenchmarkOnlyFirst-2\t1\t5 ns/op",
		},
		{
			"BenchmarkB-2\t30\t100 ns/op\t7 extra-unit",
			"BenchmarkA-2\t300\t30.0 ns/op\t8 B/op\t1 on-node-share",
		},
	})
	want := []string{
		// The mean of each unit both copies report, the iterations
		// summed, in the first copy's order, written by benchfmt.
		"BenchmarkA-2 400 20 ns/op 6 B/op 0.75 on-node-share",
		"BenchmarkB-2 40 200 ns/op",
		// BenchmarkOnlyFirst is missing from the second copy.
	}
	if !slices.Equal(got, want) {
		t.Errorf("meanOfCopies:\ngot  %q\nwant %q", got, want)
	}
	if got := meanOfCopies(nil); got != nil {
		t.Errorf("meanOfCopies(nil) = %q", got)
	}
	one := []string{"BenchmarkA-2 100 10.5 ns/op"}
	if got := meanOfCopies([][]string{one}); !slices.Equal(got, one) {
		t.Errorf("one copy: got %q, want %q", got, one)
	}
}
