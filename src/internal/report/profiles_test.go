package report

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"testing"
	"time"

	"github.com/schedlab/schedlab/src/internal/results"
)

//go:noinline
func blockFor(d time.Duration) {
	c := make(chan int)
	go func() { time.Sleep(d); c <- 1 }()
	<-c
}

// writeBlockProfile writes this process's block profile after blocking
// for d at blockFor.
func writeBlockProfile(t *testing.T, path string, d time.Duration) {
	t.Helper()
	runtime.SetBlockProfileRate(1)
	defer runtime.SetBlockProfileRate(0)
	blockFor(d)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := pprof.Lookup("block").WriteTo(f, 0); err != nil {
		t.Fatal(err)
	}
}

func TestWriteProfiles(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, results.ProfilesDir), 0o755)
	writeBlockProfile(t, filepath.Join(dir, results.ProfilesDir, "a.block.pprof"), 10*time.Millisecond)
	writeBlockProfile(t, filepath.Join(dir, results.ProfilesDir, "b.block.pprof"), 30*time.Millisecond)
	meta := &results.Metadata{
		Variants: []results.VariantMeta{{Name: "stock"}, {Name: "tick"}, {Name: "broken"}},
		Profiles: []results.ProfileMeta{
			{Variant: "stock", Target: "workloads.X", Kind: "block", File: filepath.Join(results.ProfilesDir, "a.block.pprof")},
			{Variant: "tick", Target: "workloads.X", Kind: "block", File: filepath.Join(results.ProfilesDir, "b.block.pprof")},
			{Variant: "broken", Target: "workloads.X", Kind: "block", File: filepath.Join(results.ProfilesDir, "c.block.pprof"), Error: "profiled run failed: exit status 1"},
		},
	}
	var b strings.Builder
	writeProfiles(func(f string, a ...any) { fmt.Fprintf(&b, f, a...) }, meta, dir)
	out := b.String()
	for _, want := range []string{
		"### workloads.X, block profile",
		"| site | stock | tick |",
		"`runtime.chanrecv1 ← report.blockFor`",
		" pp |",
		"- broken: profiled run failed: exit status 1",
		"| program sites: delay (contentions) |",
		"| no program frame: delay (contentions) |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("profiles section lacks %q:\n%s", want, out)
		}
	}
}
