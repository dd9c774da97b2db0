package results

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/schedlab/schedlab/src/internal/physical"
)

// Metadata describes a results folder.
type Metadata struct {
	Command   string           `json:"command"`
	Suite     string           `json:"suite"`
	Count     int              `json:"count"`
	Benchtime string           `json:"benchtime"`
	CPU       string           `json:"cpu,omitempty"`
	Copies    int              `json:"copies,omitempty"`
	Measure   string           `json:"measure,omitempty"`
	Timeout   string           `json:"timeout"`
	Started   time.Time        `json:"started,omitzero"`
	Finished  time.Time        `json:"finished,omitzero"`
	Complete  bool             `json:"complete"`
	Machine   physical.Machine `json:"machine,omitzero"`
	// Doctor is schedlab doctor's report at the start of the run: what
	// the machine can measure and what distorts it.
	Doctor *physical.Doctor `json:"doctor,omitempty"`
	// Physical says which physical evidence (PhysicalFile) the runs
	// collected, and why the rest could not be.
	Physical  *physical.Info `json:"physical,omitempty"`
	Project   Provenance     `json:"project,omitzero"`
	Upstream  string         `json:"upstream"`
	Series    string         `json:"series"`
	Variants  []VariantMeta  `json:"variants"`
	Targets   []string       `json:"targets"`
	Failures  []string       `json:"failures,omitempty"`
	Contended []string       `json:"contended,omitempty"`
	Notes     []string       `json:"notes,omitempty"`
	Sweep     *SweepInfo     `json:"sweep,omitempty"`
	// Traces are the execution traces of `schedlab bench -trace`.
	Traces []TraceMeta `json:"traces,omitempty"`
	// Profiles are the profiles of `schedlab bench -profile`.
	Profiles []ProfileMeta `json:"profiles,omitempty"`
	// Backfilled is set when this file was written after the run
	// (schedlab metadata -backfill).
	Backfilled *Backfill `json:"backfilled,omitempty"`
}

// VariantMeta records a variant as run.
type VariantMeta struct {
	Name      string `json:"name"`
	Toolchain string `json:"toolchain"` // spec
	GOROOT    string `json:"goroot"`
	Version   string `json:"version"`
	Series    string `json:"series"`
	GODEBUG   string `json:"godebug"`
	// Wrapper is the command the variant's benchmark binaries ran
	// under (e.g. numactl for an oracle variant); empty for most.
	Wrapper []string `json:"wrapper,omitempty"`
	// ExecTrace is set when every run of the variant wrote an
	// execution trace (schedlab bench -exectrace).
	ExecTrace bool              `json:"exectrace,omitempty"`
	Binaries  map[string]string `json:"binaries"` // pkg key -> sha256 of the test binary
}

// SweepInfo marks a results folder written by `schedlab sweep`.
type SweepInfo struct {
	Knob    string   `json:"knob"`
	Values  []string `json:"values"`
	Metrics []string `json:"metrics"`
	// Tradeoffs are "x:y" pairs of metrics; each gets a plot of y
	// against x with one point per variant, for every benchmark that
	// reports both (e.g. sysmon-wakeups/s:p99-wake-ns).
	Tradeoffs []string `json:"tradeoffs,omitempty"`
}

// TraceMeta records one traced run and what its Steal events say.
type TraceMeta struct {
	Variant string  `json:"variant"`
	Target  string  `json:"target"`
	File    string  `json:"file"`             // relative to the results folder
	Dir     string  `json:"dir,omitempty"`    // the analysis, relative to the results folder
	GODEBUG string  `json:"godebug"`          // as run, with tracesteal=1 on a schedlab toolchain
	Error   string  `json:"error,omitempty"`  // why there is no trace or no analysis
	Steals  int64   `json:"steals"`           // WorkSteal events
	Moved   int64   `json:"moved"`            // goroutines moved, timer steals included
	Local   int64   `json:"local"`            // of Moved, within a node
	Remote  int64   `json:"remote"`           // of Moved, across nodes
	Hops    int64   `json:"hops"`             // NUMAHop events
	Binds   int64   `json:"binds"`            // NUMABind events
	Preempt int64   `json:"preempts"`         // SlicePreempt events
	Events  bool    `json:"steal_events"`     // the trace has the Steal experiment
	WallS   float64 `json:"wall_s,omitempty"` // of the traced run
	// Timeline is the per-P timeline of the trace's middle
	// timeline.DefaultWindow, relative to the results folder.
	Timeline string `json:"timeline,omitempty"`
}

// ProfileMeta records one profiled run.
type ProfileMeta struct {
	Variant string `json:"variant"`
	Target  string `json:"target"`
	Kind    string `json:"kind"`            // "block" or "mutex"
	File    string `json:"file"`            // relative to the results folder
	Error   string `json:"error,omitempty"` // why there is no profile
}

// DefaultContendedCPUs is how many CPUs' worth of time other processes
// (or the hypervisor) may take during a run before it is flagged in
// Metadata.Contended, unless the run set another threshold. The README
// of a report quotes it.
const DefaultContendedCPUs = 0.3

// ReadMetadata reads dir/metadata.json.
func ReadMetadata(dir string) (*Metadata, error) {
	data, err := os.ReadFile(filepath.Join(dir, MetadataFile))
	if err != nil {
		return nil, err
	}
	var m Metadata
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s: %v", filepath.Join(dir, MetadataFile), err)
	}
	return &m, nil
}

// Write writes m to dir/metadata.json. It writes a temporary file and
// renames it, so that a reader (or a run killed mid-write) never sees
// half a file: a run rewrites its metadata after every failure.
func (m *Metadata) Write(dir string) error {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	tmp := filepath.Join(dir, MetadataFile+".tmp")
	if err := os.WriteFile(tmp, append(data, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, MetadataFile))
}

// SetTradeoffs records trade-off plots for the sweep in results folder
// dir, for reports written from then on.
func SetTradeoffs(dir string, tradeoffs []string) error {
	meta, err := ReadMetadata(dir)
	if err != nil {
		return err
	}
	if meta.Sweep == nil {
		return fmt.Errorf("%s is not a sweep: trade-off plots need one", dir)
	}
	meta.Sweep.Tradeoffs = tradeoffs
	return meta.Write(dir)
}

// Provenance records what produced a results folder beyond the
// toolchains: the schedlab commit and whether the tree had uncommitted
// changes, the Go that built the harness, and the environment settings
// that change generated code or GC behaviour.
type Provenance struct {
	Commit string            `json:"commit"`
	Dirty  bool              `json:"dirty"`
	HostGo string            `json:"host_go"`
	Env    map[string]string `json:"env,omitempty"` // GOAMD64, GOGC, GOMEMLIMIT, GOMAXPROCS as set (unset: absent)
}

// ProbeProvenance fills Provenance for the checkout at root.
func ProbeProvenance(root string) Provenance {
	p := Provenance{HostGo: runtime.Version(), Commit: "unknown"}
	if out, err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Output(); err == nil {
		p.Commit = strings.TrimSpace(string(out))
	}
	if out, err := exec.Command("git", "-C", root, "status", "--porcelain", "--untracked-files=no").Output(); err == nil {
		p.Dirty = len(bytes.TrimSpace(out)) > 0
	}
	for _, k := range []string{"GOAMD64", "GOGC", "GOMEMLIMIT", "GOMAXPROCS"} {
		if v, ok := os.LookupEnv(k); ok {
			if p.Env == nil {
				p.Env = map[string]string{}
			}
			p.Env[k] = v
		}
	}
	return p
}

// ShellQuote quotes s for a POSIX shell where it needs it. A results
// folder records the command that made it (Metadata.Command, a merge's
// record) as a line that can be pasted to redo it.
func ShellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
