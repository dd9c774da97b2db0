package claims

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// A setting is a number that a study was configured with, not one it
// measured: prose may quote it beside the folder without a claim, but
// only the values the folder's metadata.json records.

// timeKnobs are the GODEBUG knobs whose values are durations in
// microseconds (timeslice=1000 is a 1ms slice).
var timeKnobs = []string{"timeslice", "sysmontick", "sysmonmaxtick"}

// Settings returns the durations a results folder's runs were
// configured with, as prose writes them: the values of the time knobs
// in its variants' GODEBUG ("1ms" for 1000, "500µs" for 500) and its
// -benchtime when that is a duration ("200ms"). A folder without
// metadata.json has none.
func Settings(dir string) ([]string, error) {
	b, err := os.ReadFile(filepath.Join(dir, "metadata.json"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var meta struct {
		Benchtime string `json:"benchtime"`
		Variants  []struct {
			GODEBUG string `json:"godebug"`
		} `json:"variants"`
	}
	if err := json.Unmarshal(b, &meta); err != nil {
		return nil, err
	}
	var out []string
	if d, err := time.ParseDuration(meta.Benchtime); err == nil {
		out = append(out, Durations(d)...)
	}
	for _, v := range meta.Variants {
		for _, kv := range strings.Split(v.GODEBUG, ",") {
			k, val, ok := strings.Cut(kv, "=")
			if !ok || !slices.Contains(timeKnobs, k) {
				continue
			}
			us, err := strconv.ParseInt(val, 10, 64)
			if err != nil || us <= 0 {
				continue
			}
			out = append(out, Durations(time.Duration(us)*time.Microsecond)...)
		}
	}
	return out, nil
}

// Durations returns the ways prose writes d exactly: in the largest of
// ms, µs and ns that gives an integer, and in the smaller ones ("1ms",
// "1000µs"); a fraction of a millisecond is also written in ms with its
// decimals ("0.5ms" for 500µs).
func Durations(d time.Duration) []string {
	var out []string
	if d%time.Millisecond == 0 {
		out = append(out, strconv.FormatInt(int64(d/time.Millisecond), 10)+"ms")
	} else if d%(100*time.Microsecond) == 0 && d < time.Second {
		out = append(out, strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', -1, 64)+"ms")
	}
	if d%time.Microsecond == 0 {
		out = append(out, strconv.FormatInt(int64(d/time.Microsecond), 10)+"µs")
	}
	out = append(out, strconv.FormatInt(int64(d), 10)+"ns")
	return out
}

// A SpecDuration is a duration that the code fixes, not one a study
// measured: an upstream constant ("stock's 10ms slice"), one of the
// series' constants, or a workload's parameter. Prose may quote it
// without a claim; TestSpecDurations finds each Source in its code, so
// that the list cannot drift from it.
type SpecDuration struct {
	Quoted string // as prose writes it
	What   string
	// Where is "goroot" for a file of the stock GOROOT, "patches" for
	// a line the series adds, or a file of this repository.
	Where  string
	File   string // in the stock GOROOT, for Where "goroot"
	Source string // the line, or a part of it, that sets the value
	// Near, if not empty, lists names of which the text must hold one
	// for the value to be allowed: a workload's 1ms is allowed beside
	// "LatencyProbe", not everywhere.
	Near []string
}

// SpecDurations are the durations prose may quote without a claim.
var SpecDurations = []SpecDuration{
	{"10ms", "the time slice after which sysmon preempts a goroutine", "goroot", "src/runtime/proc.go", "const forcePreemptNS = 10 * 1000 * 1000 // 10ms", nil},
	{"10ms", "sysmon's longest sleep", "goroot", "src/runtime/proc.go", "if delay > 10*1000 { // up to 10ms", nil},
	{"20µs", "sysmon's shortest sleep", "goroot", "src/runtime/proc.go", "delay = 20", nil},
	{"1ms", "the least time between a thread's unbind for C and its re-bind", "patches", "", "const numaRebindNS = 1e6", []string{"numaRebindNS"}},
	{"1ms", "how long the latency probe sleeps", "benchmarks/workloads/workloads_test.go", "", "time.Sleep(time.Millisecond)", []string{"LatencyProbe", "latency probe"}},
	{"49µs", "the longest of TimerStorm's sleeps, j%50 µs", "benchmarks/workloads/workloads_test.go", "", "}(time.Duration(j%50) * time.Microsecond)", []string{"TimerStorm", "timer storm", "timer-storm"}},
}

// specAllowed returns the SpecDurations that text may quote.
func specAllowed(text string) []string {
	var out []string
	lower := strings.ToLower(text)
	for _, d := range SpecDurations {
		near := len(d.Near) == 0
		for _, n := range d.Near {
			near = near || strings.Contains(lower, strings.ToLower(n))
		}
		if near {
			out = append(out, d.Quoted)
		}
	}
	return out
}
