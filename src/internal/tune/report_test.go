package tune

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/src/internal/stats"
)

// confirmation writes a bench.txt of 20 rounds of BenchmarkX for each
// variant, whose sec/op and cpu-sec/op are its values with 2% noise, and
// compares it against stock.
func confirmation(t *testing.T, vals map[string][2]float64) *stats.Comparison {
	t.Helper()
	var b strings.Builder
	rng := rand.New(rand.NewPCG(1, 2))
	for r := range 20 {
		for _, v := range []string{"stock", "stock2", "fast", "costly"} {
			x, ok := vals[v]
			if !ok {
				continue
			}
			fmt.Fprintf(&b, "variant: %s\nBenchmarkX-2 \t100\t%g ns/op\t%g cpu-ns/op\n", v,
				x[0]*(1+0.02*rng.NormFloat64()), x[1]*(1+0.02*rng.NormFloat64()))
		}
		_ = r
	}
	path := filepath.Join(t.TempDir(), "bench.txt")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := stats.Compare([]string{path}, stats.CompareOptions{Base: Stock})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestConfirmPicksBestInsideLimits(t *testing.T) {
	c := confirmation(t, map[string][2]float64{"stock": {100, 100}, "stock2": {100, 100}, "fast": {80, 101}, "costly": {60, 130}})
	sum := &Summary{Objective: "sec/op"}
	// Without limits, the fastest wins.
	free, _ := Start(Config{Objective: "sec/op"}, candidates("fast", "costly"))
	if err := sum.Confirm(c, free, "BenchmarkX", candidates("fast", "costly")); err != nil {
		t.Fatal(err)
	}
	if sum.Best == nil || sum.Best.Name != "costly" {
		t.Fatalf("without limits, best = %+v; want costly, the fastest", sum.Best)
	}
	st, err := Start(Config{Objective: "sec/op", Limits: []Limit{{Unit: "cpu-sec/op", Upper: true, Pct: 5}}}, candidates("fast", "costly"))
	if err != nil {
		t.Fatal(err)
	}
	if err := sum.Confirm(c, st, "BenchmarkX", candidates("costly", "fast")); err != nil {
		t.Fatal(err)
	}
	if sum.Best == nil || sum.Best.Name != "fast" || sum.Best.Inside != "yes" {
		t.Fatalf("best = %+v; want fast (costly is outside cpu-sec/op<=+5%%)", sum.Best)
	}
	e := sum.Best.Effect
	if e.Pct > -15 || e.Interval[0] > e.Pct || e.Interval[1] < e.Pct || !e.Significant || e.N != 20 {
		t.Errorf("effect %+v: want about -20%% inside its interval, significant, n=20", e)
	}
	if !strings.HasPrefix(sum.Verdict, "GODEBUG=fast changes sec/op by -") || strings.Contains(sum.Verdict, "in doubt") {
		t.Errorf("verdict %q", sum.Verdict)
	}
	for _, cf := range sum.Confirmed {
		if cf.Name == "costly" && cf.Inside != "no" {
			t.Errorf("costly inside limits %q, want no", cf.Inside)
		}
	}
}

func TestConfirmDoubtsWhenControlDiffers(t *testing.T) {
	c := confirmation(t, map[string][2]float64{"stock": {100, 100}, "stock2": {110, 100}, "fast": {80, 100}})
	st, _ := Start(Config{Objective: "sec/op"}, candidates("fast"))
	sum := &Summary{Objective: "sec/op"}
	if err := sum.Confirm(c, st, "X", candidates("fast")); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(sum.Verdict, "the control differs from stock") {
		t.Errorf("verdict %q does not doubt a run whose control differs by 10%%", sum.Verdict)
	}
}

func TestConfirmNoBetterThanStock(t *testing.T) {
	c := confirmation(t, map[string][2]float64{"stock": {100, 100}, "stock2": {100, 100}, "fast": {100.5, 100}})
	st, _ := Start(Config{Objective: "sec/op"}, candidates("fast"))
	sum := &Summary{Objective: "sec/op"}
	if err := sum.Confirm(c, st, "X", candidates("fast")); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(sum.Verdict, "~: the best") || !strings.Contains(sum.Verdict, "could have missed a difference of up to") {
		t.Errorf("verdict %q: want ~ with the largest difference the run could have missed", sum.Verdict)
	}
}

// TestReadmeSchedLatencyNote: a search whose objective or limit is a
// sched-latency unit says golang/go#79391's caveat under its objective;
// one on sec/op does not.
func TestReadmeSchedLatencyNote(t *testing.T) {
	for _, c := range []struct {
		objective string
		limits    []string
		want      bool
	}{
		{"p99-sched-latency-sec", nil, true},
		{"sec/op", []string{"p99-sched-latency-sec<=+10%"}, true},
		{"sec/op", []string{"cpu-sec/op<=+3%"}, false},
	} {
		st, err := Start(Config{Objective: c.objective}, candidates("fast"))
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		WriteReadme(&b, &Summary{Objective: c.objective, Limits: c.limits, Benchmark: "BenchmarkX"}, st, false)
		if got := strings.Contains(b.String(), "Note: "+stats.SchedLatencyNote+"."); got != c.want {
			t.Errorf("objective %s, limits %v: note %v, want %v:\n%s", c.objective, c.limits, got, c.want, b.String())
		}
	}
}
