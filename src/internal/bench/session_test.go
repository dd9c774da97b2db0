package bench

import (
	"reflect"
	"testing"
)

func TestParseResults(t *testing.T) {
	got := ParseResults("goos: linux\nvariant: a\n" +
		"BenchmarkX-2   \t 100\t 1500 ns/op\t 20 p99-wake-ns\t 3 hog-iters/s\n" +
		"BenchmarkY/sub=1-2 10 5 ns/op\n" +
		"BenchmarkZ\n") // killed mid-benchmark: no result
	want := map[string]map[string]float64{
		"X-2":       {"sec/op": 1.5e-6, "p99-wake-sec": 20e-9, "hog-iters/s": 3},
		"Y/sub=1-2": {"sec/op": 5e-9},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ParseResults = %v, want %v", got, want)
	}
}
