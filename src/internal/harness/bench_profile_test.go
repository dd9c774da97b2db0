package harness

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"testing"
	"time"
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
	os.MkdirAll(filepath.Join(dir, ProfilesDir), 0o755)
	writeBlockProfile(t, filepath.Join(dir, ProfilesDir, "a.block.pprof"), 10*time.Millisecond)
	writeBlockProfile(t, filepath.Join(dir, ProfilesDir, "b.block.pprof"), 30*time.Millisecond)
	meta := &Metadata{
		Variants: []VariantMeta{{Name: "stock"}, {Name: "tick"}, {Name: "broken"}},
		Profiles: []ProfileMeta{
			{Variant: "stock", Target: "workloads.X", Kind: "block", File: filepath.Join(ProfilesDir, "a.block.pprof")},
			{Variant: "tick", Target: "workloads.X", Kind: "block", File: filepath.Join(ProfilesDir, "b.block.pprof")},
			{Variant: "broken", Target: "workloads.X", Kind: "block", File: filepath.Join(ProfilesDir, "c.block.pprof"), Error: "profiled run failed: exit status 1"},
		},
	}
	var b strings.Builder
	writeProfiles(func(f string, a ...any) { fmt.Fprintf(&b, f, a...) }, meta, dir)
	out := b.String()
	for _, want := range []string{
		"### workloads.X, block profile",
		"| site | stock | tick |",
		"`runtime.chanrecv1 ← harness.blockFor`",
		" pp |",
		"- broken: profiled run failed: exit status 1",
		"| total delay (contentions) |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("profiles section lacks %q:\n%s", want, out)
		}
	}
}

func TestParseProfileKinds(t *testing.T) {
	if k, err := ParseProfileKinds("block, mutex"); err != nil || strings.Join(k, ",") != "block,mutex" {
		t.Errorf("block, mutex: %q, %v", k, err)
	}
	if k, err := ParseProfileKinds(""); err != nil || len(k) != 0 {
		t.Errorf("empty: %q, %v", k, err)
	}
	if _, err := ParseProfileKinds("block,cpu"); err == nil {
		t.Error("cpu accepted")
	}
}
