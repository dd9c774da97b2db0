package toolchaintest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/src/internal/series"
)

// promProgram stresses the scheduler so that Ps steal from each other,
// then prints every runtime/metrics metric as Prometheus' Go collector
// exports it, in the text exposition format.
const promProgram = `package main

import (
	"log"
	"os"
	"runtime"
	"runtime/metrics"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/common/expfmt"
)

// churn makes many goroutines runnable on one P at once, so that the
// other, idle Ps steal them.
func churn() {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; i < 1000; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				s := 0
				for j := 0; j < 1000; j++ {
					s += j
				}
				_ = s
			}()
		}
	}()
	wg.Wait()
}

func main() {
	runtime.GOMAXPROCS(max(2, runtime.GOMAXPROCS(0)))
	ops := []metrics.Sample{{Name: "/sched/steal/operations:events"}}
	for round := 0; round < 200; round++ {
		churn()
		metrics.Read(ops)
		// A toolchain without the metric reports KindBad: just
		// run all the rounds.
		if round >= 10 && ops[0].Value.Kind() == metrics.KindUint64 && ops[0].Value.Uint64() > 0 {
			break
		}
	}

	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(collectors.WithGoCollectorRuntimeMetrics(collectors.MetricsAll)))
	mfs, err := reg.Gather()
	if err != nil {
		log.Fatal(err)
	}
	enc := expfmt.NewEncoder(os.Stdout, expfmt.NewFormat(expfmt.TypeTextPlain))
	for _, mf := range mfs {
		if err := enc.Encode(mf); err != nil {
			log.Fatal(err)
		}
	}
}
`

// TestPrometheusStealMetrics checks that the scheduler steal, global run
// queue and sysmon counters reach Prometheus through client_golang's Go
// collector, under the names the library derives from the runtime/metrics
// names.
//
// SCHEDLAB_GO, if set, names the go command to use instead of
// $SCHEDLAB_GOROOT/bin/go, for example the stock go1.27.3 one with
// SCHEDLAB_GOROOT pointing at a patched source tree that is not built.
func TestPrometheusStealMetrics(t *testing.T) {
	goroot := patchedGOROOT(t)
	gobin := os.Getenv("SCHEDLAB_GO")
	if gobin == "" {
		gobin = filepath.Join(goroot, "bin", "go")
	}

	dir := t.TempDir()
	gomod := "module promsteal\n\ngo 1.26.0\n\nrequire github.com/prometheus/client_golang v1.25.0\n"
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(promProgram), 0o644); err != nil {
		t.Fatal(err)
	}

	cmd := exec.Command(gobin, "run", ".")
	cmd.Dir = dir
	cmd.Env = append(series.ToolchainEnv(goroot), "GOFLAGS=-mod=mod")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s run .: %v\n%s", gobin, err, stderr.String())
	}

	// Samples of counters without labels: "name value".
	values := make(map[string]float64)
	types := make(map[string]string)
	for _, line := range strings.Split(string(out), "\n") {
		if rest, ok := strings.CutPrefix(line, "# TYPE "); ok {
			if name, typ, ok := strings.Cut(rest, " "); ok {
				types[name] = typ
			}
			continue
		}
		if strings.HasPrefix(line, "#") {
			continue
		}
		name, val, ok := strings.Cut(line, " ")
		if !ok || strings.Contains(name, "{") {
			continue
		}
		v, err := strconv.ParseFloat(val, 64)
		if err != nil {
			t.Errorf("bad sample %q: %v", line, err)
			continue
		}
		values[name] = v
	}

	// The names client_golang v1.25.0 gives the runtime/metrics
	// counters: "/sched/steal/attempts:events" becomes
	// go_sched_steal_attempts_events_total, and so on.
	names := []string{
		"go_sched_steal_attempts_events_total",
		"go_sched_steal_idle_victims_events_total",
		"go_sched_steal_operations_events_total",
		"go_sched_steal_goroutines_goroutines_total",
		"go_sched_steal_runnext_goroutines_total",
		"go_sched_steal_timers_events_total",
		"go_sched_steal_timer_goroutines_goroutines_total",
		"go_sched_steal_local_node_goroutines_total",
		"go_sched_steal_remote_node_goroutines_total",
		"go_sched_globalrunq_goroutines_goroutines_total",
		"go_sched_sysmon_wakeups_events_total",
		"go_sched_sysmon_preemptions_events_total",
	}
	missing := false
	for _, name := range names {
		if _, ok := values[name]; !ok {
			t.Errorf("exposition has no %s", name)
			missing = true
			continue
		}
		if types[name] != "counter" {
			t.Errorf("%s has type %q, want counter", name, types[name])
		}
	}
	if missing {
		t.Logf("go_sched series in the exposition:")
		for _, line := range strings.Split(string(out), "\n") {
			if strings.HasPrefix(line, "go_sched_") {
				t.Logf("  %s", line)
			}
		}
		return
	}

	attempts := values["go_sched_steal_attempts_events_total"]
	ops := values["go_sched_steal_operations_events_total"]
	stolen := values["go_sched_steal_goroutines_goroutines_total"]
	if attempts <= 0 || ops <= 0 || attempts < ops || stolen < ops {
		t.Errorf("steal attempts %v, operations %v, goroutines %v: want attempts ≥ operations > 0 and goroutines ≥ operations", attempts, ops, stolen)
	}
	if v := values["go_sched_sysmon_wakeups_events_total"]; v <= 0 {
		t.Errorf("go_sched_sysmon_wakeups_events_total = %v, want > 0", v)
	}
}
