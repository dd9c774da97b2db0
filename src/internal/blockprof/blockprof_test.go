package blockprof

import (
	"bytes"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/pprof/profile"
)

//go:noinline
func waitOnChannel(c chan int) int { return <-c }

//go:noinline
func waitOnGroup(wg *sync.WaitGroup) { wg.Wait() }

// TestReadBlockProfile blocks at two known sites and finds both in the
// process's own block profile, named by primitive and caller.
func TestReadBlockProfile(t *testing.T) {
	runtime.SetBlockProfileRate(1)
	defer runtime.SetBlockProfileRate(0)
	c := make(chan int)
	go func() { time.Sleep(20 * time.Millisecond); c <- 1 }()
	waitOnChannel(c)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { time.Sleep(20 * time.Millisecond); wg.Done() }()
	waitOnGroup(&wg)

	var buf bytes.Buffer
	if err := pprof.Lookup("block").WriteTo(&buf, 0); err != nil {
		t.Fatal(err)
	}
	s, err := Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	var sum int64
	for _, site := range s.Sites {
		sum += site.DelayNS
	}
	if sum != s.DelayNS || s.DelayNS == 0 {
		t.Errorf("sites' delay %d, total %d", sum, s.DelayNS)
	}
	for _, want := range []string{"runtime.chanrecv1 ← blockprof.waitOnChannel", "sync.(*WaitGroup).Wait ← blockprof.waitOnGroup"} {
		share := s.Share(want)
		if share == 0 {
			var keys []string
			for _, site := range s.Sites {
				keys = append(keys, site.Key())
			}
			t.Errorf("no site %q in %s", want, strings.Join(keys, "; "))
		}
	}
	// The sleeps are 20 ms: the sites' delays cannot be shorter.
	for _, site := range s.Sites {
		if strings.HasSuffix(site.Caller, "waitOnChannel") && site.DelayNS < 15e6 {
			t.Errorf("%s: delay %d ns, want ≥ 15 ms", site.Key(), site.DelayNS)
		}
	}
}

func TestReadRejectsOtherProfiles(t *testing.T) {
	var buf bytes.Buffer
	if err := pprof.Lookup("goroutine").WriteTo(&buf, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(&buf); err == nil || !strings.Contains(err.Error(), "not a block or mutex profile") {
		t.Errorf("goroutine profile: err = %v", err)
	}
}

func TestPkgPath(t *testing.T) {
	for f, want := range map[string]string{
		"sync.(*WaitGroup).Wait": "sync",
		"runtime.chanrecv1":      "runtime",
		"github.com/a/b.(*T).M":  "github.com/a/b",
		"internal/sync.(*M).L":   "internal/sync",
		"main.main.func1":        "main",
	} {
		if got := pkgPath(f); got != want {
			t.Errorf("pkgPath(%q) = %q, want %q", f, got, want)
		}
	}
}

// TestReadMachinery checks that samples with no program frame, such as
// the testing package waiting for a benchmark, are summed apart and do
// not count in the sites' shares.
func TestReadMachinery(t *testing.T) {
	fn := func(id uint64, name string) *profile.Function { return &profile.Function{ID: id, Name: name} }
	recv, run1, work := fn(1, "runtime.chanrecv1"), fn(2, "testing.(*B).run1"), fn(3, "example.com/w.work")
	loc := func(id uint64, f *profile.Function) *profile.Location {
		return &profile.Location{ID: id, Line: []profile.Line{{Function: f}}}
	}
	lRecv, lRun1, lWork := loc(1, recv), loc(2, run1), loc(3, work)
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "contentions", Unit: "count"}, {Type: "delay", Unit: "nanoseconds"}},
		Sample: []*profile.Sample{
			{Location: []*profile.Location{lRecv, lRun1}, Value: []int64{1, 900}},
			{Location: []*profile.Location{lRecv, lWork, lRun1}, Value: []int64{2, 100}},
		},
		Location: []*profile.Location{lRecv, lRun1, lWork},
		Function: []*profile.Function{recv, run1, work},
	}
	var buf bytes.Buffer
	if err := p.Write(&buf); err != nil {
		t.Fatal(err)
	}
	s, err := Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if s.Machinery.DelayNS != 900 || s.Machinery.Contentions != 1 {
		t.Errorf("machinery %+v, want 900 ns in 1 contention", s.Machinery)
	}
	if len(s.Sites) != 1 || s.Sites[0].Key() != "runtime.chanrecv1 ← w.work" || s.DelayNS != 100 || s.Share("runtime.chanrecv1 ← w.work") != 1 {
		t.Errorf("sites %+v, delay %d; want one site w.work with all 100 ns", s.Sites, s.DelayNS)
	}
}
