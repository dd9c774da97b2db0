package toolchaintest

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/src/internal/results"
	"github.com/schedlab/schedlab/src/internal/series"
)

// schedlabCmd builds schedlab into the test's temporary folder once per
// test and returns a command running it against this checkout.
func schedlabCmd(t *testing.T, dir string, args ...string) *exec.Cmd {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "schedlab")
	build := exec.Command("go", "build", "-o", bin, "./src/cmd/schedlab")
	build.Dir = repoRoot(t)
	build.Env = append(os.Environ(), "GOFLAGS=")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build schedlab: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "SCHEDLAB_ROOT="+repoRoot(t))
	return cmd
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestBenchPkgOutsideRepository runs schedlab bench -pkg on a package of
// a module outside the checkout with a replace directive, a vendor
// folder and a build-tagged benchmark: every variant's test binary must
// be built in the package's own module as go test would build it there
// (the vendored copy of the replaced module, the tagged file), and the
// folder must hold every variant's rows.
func TestBenchPkgOutsideRepository(t *testing.T) {
	goroot := patchedGOROOT(t)
	tmp := t.TempDir()
	writeFiles(t, tmp, map[string]string{
		"lib/go.mod":   "module example.com/lib\n\ngo 1.26\n",
		"lib/lib.go":   "package lib\n\nfunc Value() int { return 1 }\n",
		"user/go.mod":  "module example.com/user\n\ngo 1.26\n\nrequire example.com/lib v0.0.0\n\nreplace example.com/lib => ../lib\n",
		"user/user.go": "package user\n\nimport \"example.com/lib\"\n\nfunc Value() int { return lib.Value() }\n",
		"user/plain_test.go": "package user\n\nimport \"testing\"\n\n" +
			"func BenchmarkPlain(b *testing.B) {\n\tfor range b.N {\n\t}\n\tb.ReportMetric(float64(Value()), \"lib-value\")\n}\n",
		"user/tagged_test.go": "//go:build tuned\n\npackage user\n\nimport \"testing\"\n\n" +
			"func BenchmarkTagged(b *testing.B) {\n\tfor range b.N {\n\t}\n}\n",
	})
	user := filepath.Join(tmp, "user")
	vendor := exec.Command(filepath.Join(goroot, "bin", "go"), "mod", "vendor")
	vendor.Dir, vendor.Env = user, series.ToolchainEnv(goroot)
	output(t, vendor)
	// The vendored copy differs from ../lib: a build that ignored
	// vendor/ would report 1.
	writeFiles(t, user, map[string]string{"vendor/example.com/lib/lib.go": "package lib\n\nfunc Value() int { return 7 }\n"})

	out := filepath.Join(tmp, "res")
	output(t, schedlabCmd(t, tmp, "bench", "-pkg", user, "-tags", "tuned", "-variant", "stock", "-variant", "patched",
		"-count", "2", "-benchtime", "20x", "-out", out))
	raw, err := os.ReadFile(filepath.Join(out, results.RawFile))
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	variant := ""
	for _, line := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(line, "variant: "); ok {
			variant = v
		}
		if results.IsResultLine(line) {
			name, _, _ := strings.Cut(line, "-")
			counts[variant+" "+name]++
			if f := strings.Fields(line); name == "BenchmarkPlain" && !slices.Equal(f[len(f)-6:len(f)-4], []string{"7.000", "lib-value"}) {
				t.Errorf("%s: not built with the vendored module (want 7 lib-value): %s", variant, line)
			}
		}
	}
	for _, v := range []string{"stock", "patched"} {
		for _, b := range []string{"BenchmarkPlain", "BenchmarkTagged"} {
			if counts[v+" "+b] != 2 {
				t.Errorf("%s rows of %s: %d, want 2 (rows: %v)", v, b, counts[v+" "+b], counts)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(out, results.ReadmeFile)); err != nil {
		t.Errorf("no report: %v", err)
	}
}

// wakeBenchmark is a benchmark schedlab has never seen whose best knob
// setting is clear: a goroutine sleeping 1 ms while every P runs a
// CPU-bound goroutine wakes up as late as the running goroutine's time
// slice (about 20 ms by default); timeslice=1000 cuts that to about 1 ms.
const wakeBenchmark = `package wake

import (
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func BenchmarkWake(b *testing.B) {
	var stop atomic.Bool
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			x := 1
			for !stop.Load() {
				for i := range 1000 {
					x = x*31 + i
				}
			}
			_ = x
		}()
	}
	late := make([]float64, 0, b.N)
	for range b.N {
		due := time.Now().Add(time.Millisecond)
		time.Sleep(time.Millisecond)
		late = append(late, float64(time.Since(due)))
	}
	stop.Store(true)
	wg.Wait()
	sort.Float64s(late)
	b.ReportMetric(late[len(late)*9/10], "p90-late-ns")
}
`

// TestTuneFindsClearSetting runs schedlab tune on wakeBenchmark in a
// module of its own, within a budget of minutes: tune.json must name
// timeslice=1000 and the confirmation must find it better than stock.
// With -max-rounds 12 the search cuts at rounds 5 and 10, so that one
// overlapping run on a busy machine still leaves a cut before the end.
func TestTuneFindsClearSetting(t *testing.T) {
	patchedGOROOT(t)
	tmp := t.TempDir()
	writeFiles(t, tmp, map[string]string{
		"wake/go.mod":       "module example.com/wake\n\ngo 1.26\n",
		"wake/wake_test.go": wakeBenchmark,
	})
	out := filepath.Join(tmp, "tune")
	cmd := schedlabCmd(t, tmp, "tune", "-pkg", filepath.Join(tmp, "wake"), "-bench", "Wake", "-minimize", "p90-late-sec",
		"-knob", "timeslice=1000,50000", "-max-rounds", "12", "-benchtime", "40x", "-budget", "4m", "-out", out)
	t.Log(output(t, cmd))
	data, err := os.ReadFile(filepath.Join(out, "tune.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sum struct {
		Best *struct {
			GODEBUG string `json:"godebug"`
			Effect  struct {
				Pct         float64 `json:"pct"`
				Significant bool    `json:"significant"`
			} `json:"effect"`
		} `json:"best"`
		Search struct {
			Runs     int `json:"runs"`
			GridRuns int `json:"grid_runs"`
		} `json:"search"`
	}
	if err := json.Unmarshal(data, &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Best == nil || sum.Best.GODEBUG != "timeslice=1000" {
		t.Fatalf("tune.json best = %+v, want timeslice=1000\n%s", sum.Best, data)
	}
	if !sum.Best.Effect.Significant || sum.Best.Effect.Pct > -50 {
		t.Errorf("confirmed effect %+.1f%% (significant %v), want well below stock", sum.Best.Effect.Pct, sum.Best.Effect.Significant)
	}
	if sum.Search.Runs >= sum.Search.GridRuns {
		t.Errorf("the search ran %d runs, the grid's %d", sum.Search.Runs, sum.Search.GridRuns)
	}
	for _, f := range []string{"README.md", "frontier.png", "confirm/bench.txt", "bench.txt", "metadata.json"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("tune folder: %v", err)
		}
	}
}
