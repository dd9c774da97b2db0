package bench

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/src/internal/results"
	"github.com/schedlab/schedlab/src/internal/series"
	"github.com/schedlab/schedlab/src/internal/toolchain"
)

// fakePrebuilt writes a -build-only folder by hand: a "test binary"
// that is a shell script printing one benchmark result, and its
// manifest, for toolchain spec stock of series "s123".
func fakePrebuilt(t *testing.T) (dir string, m *prebuilt) {
	t.Helper()
	dir = t.TempDir()
	bin := filepath.Join(dir, "workloads-stock.test")
	script := "#!/bin/sh\necho 'goos: linux'\necho 'BenchmarkSmoke-2 \t 100\t 12.5 ns/op'\necho PASS\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	sum, err := series.SHA256File(bin)
	if err != nil {
		t.Fatal(err)
	}
	m = &prebuilt{Host: "builder", Upstream: "go1.27.4", Series: "s123", Project: results.Provenance{Commit: "c0ffee"},
		Toolchains: map[string]*toolchain.Toolchain{"stock": {Spec: "stock", GOROOT: "/nonexistent/goroot", Version: "go1.27.4", Series: "none"}},
		Binaries:   map[string]map[string]prebuiltBin{"stock": {"workloads": {File: filepath.Base(bin), SHA256: sum}}}}
	writeManifest(t, dir, m)
	return dir, m
}

func writeManifest(t *testing.T, dir string, m *prebuilt) {
	t.Helper()
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, PrebuiltFile), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestPrebuiltRun runs prebuilt binaries with no checkout (Root "") and
// checks that the folder records the builder's series and harness, not
// this machine's, and that a binary that is not the one built fails by
// name instead of running.
func TestPrebuiltRun(t *testing.T) {
	_, suite := smokeSuite(t)
	dir, m := fakePrebuilt(t)
	vs, err := ParseVariants([]string{"a=stock"})
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "res")
	meta, err := Run(context.Background(), Options{Suite: suite, Variants: vs, Count: 2, Out: out, Stderr: io.Discard, Prebuilt: dir})
	if err != nil {
		t.Fatalf("Run: %v (failures %v)", err, meta.Failures)
	}
	if meta.Series != "s123" || meta.Project.Commit != "c0ffee" || meta.Variants[0].GOROOT != "/nonexistent/goroot" {
		t.Errorf("metadata: series %q, harness commit %q, GOROOT %q; want the manifest's s123, c0ffee, /nonexistent/goroot",
			meta.Series, meta.Project.Commit, meta.Variants[0].GOROOT)
	}
	if !strings.Contains(strings.Join(meta.Notes, "\n"), "prebuilt on builder") {
		t.Errorf("notes %q do not say the binaries were prebuilt", meta.Notes)
	}
	raw, err := os.ReadFile(filepath.Join(out, results.RawFile))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(raw), "BenchmarkSmoke-2"); n != 2 {
		t.Errorf("%s has %d results, want 2 (one a round):\n%s", results.RawFile, n, raw)
	}

	// The binary changed after the manifest was written.
	b := m.Binaries["stock"]["workloads"]
	b.SHA256 = strings.Repeat("0", 64)
	m.Binaries["stock"]["workloads"] = b
	writeManifest(t, dir, m)
	meta, err = Run(context.Background(), Options{Suite: suite, Variants: vs, Count: 1, Out: filepath.Join(t.TempDir(), "res"), Stderr: io.Discard, Prebuilt: dir})
	if err == nil || len(meta.Failures) == 0 || !strings.Contains(meta.Failures[0], "SHA-256") {
		t.Errorf("a binary that does not match its manifest: err %v, failures %q; want a SHA-256 failure", err, meta.Failures)
	}
}

// TestPrebuiltMissing: a variant whose toolchain the folder was not
// built for is refused before anything runs.
func TestPrebuiltMissing(t *testing.T) {
	_, suite := smokeSuite(t)
	dir, _ := fakePrebuilt(t)
	vs, err := ParseVariants([]string{"stock", "patched"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(context.Background(), Options{Suite: suite, Variants: vs, Count: 1, Out: filepath.Join(t.TempDir(), "res"), Stderr: io.Discard, Prebuilt: dir})
	if err == nil || !strings.Contains(err.Error(), `no binaries for toolchain "patched"`) {
		t.Errorf("Run with a toolchain the folder lacks: %v; want it named", err)
	}
}
