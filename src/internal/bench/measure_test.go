package bench

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

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
		r := &runner{opt: Options{Benchtime: tc.run}}
		n, fixed, err := r.instructionsN(Target{Benchtime: tc.target})
		if err == nil && fixed != (tc.run != "") {
			t.Errorf("instructionsN(run %q, target %q): fixed %v; want %v", tc.run, tc.target, fixed, tc.run != "")
		}
		if tc.bad != (err != nil) || n != tc.want {
			t.Errorf("instructionsN(run %q, target %q) = %d, %v; want %d (error %v)", tc.run, tc.target, n, err, tc.want, tc.bad)
		}
	}
}

func TestNextInstructionsN(t *testing.T) {
	for _, tc := range []struct {
		n      int
		delta  float64
		want   int
		enough bool
	}{
		{200, 300e6, 200, true},              // enough already
		{200, 50e3, 20000, false},            // far too few: at most 100 times more
		{200, -80e3, 20000, false},           // noise swamped the difference
		{20000, 20e6, 240000, false},         // 1.2 times what reaches the target
		{90e6, 1e6, maxInstructionsN, false}, // capped
		{maxInstructionsN, 1e6, maxInstructionsN, true},
	} {
		n, enough := nextInstructionsN(tc.n, tc.delta)
		if n != tc.want || enough != tc.enough {
			t.Errorf("nextInstructionsN(%d, %g) = %d, %v; want %d, %v", tc.n, tc.delta, n, enough, tc.want, tc.enough)
		}
	}
}

func TestOwnMetrics(t *testing.T) {
	for _, c := range []struct{ line, want string }{
		{"BenchmarkX-1 \t 400 \t 2500 ns/op", ""},
		{"BenchmarkMutexContention/goroutines=10 \t 2000 \t 812.0 ns/op \t 31.5 mutex-wait-ns/op \t 0.25 starving-locks/op \t 16 B/op \t 1 allocs/op", "\t0.25 starving-locks/op"},
		{"BenchmarkY 10 5 ns/op 3 hops/op 7 x 96 sysmon-wakeups/s 2 MB/s", "\t3 hops/op\t7 x"},
	} {
		if got := ownMetrics(c.line); got != c.want {
			t.Errorf("ownMetrics(%q) = %q, want %q", c.line, got, c.want)
		}
	}
}

func TestOneBenchmarkEach(t *testing.T) {
	s, err := LoadSuite("", "quick")
	if err != nil {
		t.Fatal(err)
	}
	var names, benches []string
	for _, tg := range s.OneBenchmarkEach().Targets {
		if strings.Contains(tg.Name, "MutexContention") {
			names, benches = append(names, tg.Name), append(benches, tg.Bench)
		}
	}
	want := []string{"workloads.MutexContention/goroutines=10", "workloads.MutexContention/goroutines=100"}
	if !slices.Equal(names, want) {
		t.Fatalf("split targets %q, want %q", names, want)
	}
	for i, re := range benches {
		rx := regexp.MustCompile(strings.Split(re, "/")[1])
		for j, sub := range mutexContentionSubs {
			if rx.MatchString(sub) != (i == j) {
				t.Errorf("target %s's sub-benchmark pattern %q matching %q: %v", names[i], re, sub, !(i == j))
			}
		}
	}
}

func TestCountable(t *testing.T) {
	s, err := LoadSuite("", "quick")
	if err != nil {
		t.Fatal(err)
	}
	c, left := s.OneBenchmarkEach().Countable()
	want := []string{"runtime.PingPongHog", "runtime.WakeupParallelSpinning/10µs", "workloads.LatencyProbe"}
	if !slices.Equal(left, want) {
		t.Errorf("left out %q, want %q", left, want)
	}
	for _, tg := range c.Targets {
		if slices.Contains(want, tg.Name) {
			t.Errorf("kept %s", tg.Name)
		}
	}
	if len(c.Targets)+len(left) != len(s.OneBenchmarkEach().Targets) {
		t.Errorf("%d kept + %d left out of %d", len(c.Targets), len(left), len(s.OneBenchmarkEach().Targets))
	}
}
