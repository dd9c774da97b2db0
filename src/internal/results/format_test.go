package results

import (
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"
)

func TestConfigLines(t *testing.T) {
	c := BlockConfig{Variant: "slice1ms", Toolchain: "go1.27.3-schedlab.1", GODEBUG: "timeslice=1000",
		Upstream: "go1.27.3", Series: "0123456789ab", GOMAXPROCS: "2", CPU: "Some  CPU @ 2GHz", NUMANodes: 1}
	want := `variant: slice1ms
toolchain: go1.27.3-schedlab.1
godebug: timeslice=1000
upstream: go1.27.3
series: 0123456789ab
gomaxprocs: 2
cpu: Some CPU @ 2GHz
numa-nodes: 1
`
	if got := c.Lines(); got != want {
		t.Errorf("Lines() =\n%s\nwant\n%s", got, want)
	}
	// benchfmt reads them back as configuration of the result.
	in := c.Lines() + "BenchmarkX-2 10 100 ns/op\n"
	r := benchfmt.NewReader(strings.NewReader(in), "x")
	if !r.Scan() {
		t.Fatal(r.Err())
	}
	res, ok := r.Result().(*benchfmt.Result)
	if !ok {
		t.Fatalf("not a result: %v", r.Result())
	}
	for k, v := range map[string]string{"variant": "slice1ms", "godebug": "timeslice=1000", "series": "0123456789ab", "numa-nodes": "1", "cpu": "Some CPU @ 2GHz"} {
		if got := res.GetConfig(k); got != v {
			t.Errorf("config %s = %q, want %q", k, got, v)
		}
	}
	if got := (BlockConfig{}).Lines(); !strings.Contains(got, "godebug: none\n") || !strings.Contains(got, "variant: unknown\n") {
		t.Errorf("empty config lines:\n%s", got)
	}
}
