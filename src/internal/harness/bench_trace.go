package harness

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/schedlab/schedlab/src/internal/timeline"
)

// TracesDir holds the execution traces of `schedlab bench -trace`, one
// per variant and target, each with its analysis in a folder of the
// same name.
const TracesDir = "traces"

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

// traceAll runs every target once more under every variant with the
// execution tracer on, after the measured rounds so that tracing's cost
// never enters bench.txt, and analyses each trace with the patched
// toolchain's go tool trace -d=steals. A schedlab toolchain traces with
// GODEBUG=tracesteal=1; a stock one gives a trace without steal events,
// whose analysis says so.
func (b *bench) traceAll(ctx context.Context) {
	dir := filepath.Join(b.opt.Out, TracesDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.fail("traces: %v", err)
		return
	}
	analyzer, aerr := ResolveToolchain(b.opt.Root, "patched", "", "")
	for _, t := range b.opt.Suite.Targets {
		for _, v := range b.opt.Variants {
			if ctx.Err() != nil {
				return
			}
			tc := b.tcs[v.Toolchain]
			bp := b.bins[v.Toolchain][t.Pkg.Key]
			if bp == nil || bp.err != nil {
				continue
			}
			name := sanitize(strings.TrimPrefix(t.Name, "workloads.") + "-" + v.Name)
			tm := TraceMeta{Variant: v.Name, Target: t.Name, File: filepath.Join(TracesDir, name+".trace"), GODEBUG: v.GODEBUG}
			extra := ""
			if tc.Series != "none" {
				extra = "tracesteal=1"
				tm.GODEBUG = strings.TrimPrefix(v.GODEBUG+",tracesteal=1", ",")
			}
			out, wall, err := b.extraRun(ctx, "traced", t, v, bp, extra, "-test.trace="+filepath.Join(b.opt.Out, tm.File))
			tm.WallS = wall
			switch {
			case err != nil:
				tm.Error = fmt.Sprintf("traced run failed: %v%s", err, tail(out, 5))
			case aerr != nil:
				tm.Error = "no analysis: " + aerr.Error()
			default:
				tm.Dir = filepath.Join(TracesDir, name)
				s, err := AnalyzeTrace(analyzer, filepath.Join(b.opt.Out, tm.File), filepath.Join(b.opt.Out, tm.Dir), t.Name+" ["+v.Name+"]")
				if err != nil {
					tm.Error, tm.Dir = err.Error(), ""
					break
				}
				tm.Steals, tm.Moved, tm.Local, tm.Remote = s.Steals, s.LocalMoved+s.RemoteMoved, s.LocalMoved, s.RemoteMoved
				tm.Hops, tm.Binds, tm.Preempt = s.Hops, s.Binds, s.Preempts
				tm.Events = len(s.Procs) > 0
				if _, err := DrawTimeline(analyzer, filepath.Join(b.opt.Out, tm.File), filepath.Join(b.opt.Out, tm.Dir), t.Name+" ["+v.Name+"]", timeline.Options{}); err != nil {
					b.logf("warning: timeline of %s [%s]: %v", t.Name, v.Name, err)
				} else {
					tm.Timeline = filepath.Join(tm.Dir, TimelineFile)
				}
			}
			if tm.Error != "" {
				b.logf("warning: trace of %s [%s]: %s", t.Name, v.Name, tm.Error)
			}
			b.meta.Traces = append(b.meta.Traces, tm)
			b.meta.write(b.opt.Out)
		}
	}
}

// extraRun runs target t under variant v once more, outside the measured
// rounds, with extra GODEBUG settings and test flags (a trace, a profile),
// logging its output; what names the run in the log ("traced").
func (b *bench) extraRun(ctx context.Context, what string, t Target, v Variant, bp *builtPkg, godebug string, flags ...string) (out string, wallS float64, err error) {
	fmt.Fprintf(b.opt.Stderr, "schedlab: %s run: %s [%s]\n", what, t.Name, v.Name)
	args, timeout := b.runArgs(t)
	args = append(args, flags...)
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	argv := append(append([]string(nil), v.Wrapper...), bp.bin)
	argv = append(argv, args...)
	cmd := exec.CommandContext(rctx, argv[0], argv[1:]...)
	cmd.Dir = bp.dir
	cmd.Env = runEnv(b.tcs[v.Toolchain], v, godebug)
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	t0 := time.Now()
	err = cmd.Run()
	wallS = time.Since(t0).Seconds()
	fmt.Fprintf(b.log, "=== %s run: %s [%s]: %s (GODEBUG=%s, %.3fs)\n%s\n", what, t.Name, v.Name, strings.Join(argv, " "),
		strings.TrimPrefix(v.GODEBUG+","+godebug, ","), wallS, buf.String())
	return buf.String(), wallS, err
}

// writeTraces writes the README's section on the traced runs.
func writeTraces(p func(string, ...any), meta *Metadata) {
	if len(meta.Traces) == 0 {
		return
	}
	p("## Execution traces\n\n")
	p("One traced run of each benchmark under each variant, after the measured rounds (tracing's cost is not in the tables above). ")
	p("Schedlab toolchains traced with `GODEBUG=tracesteal=1`; each trace's steal events are in its folder: `%s` (every event), `%s`, and the thief × victim matrix `%s`. ", StealsCSVFile, StealTextFile, StealMatrixFile)
	p("Open a trace with the patched `go tool trace` (its Work stealing page); stock tools refuse traces with steal events.\n\n")
	if slices.ContainsFunc(meta.Traces, func(t TraceMeta) bool { return t.Timeline != "" }) {
		p("The timelines show the middle %v of each trace: one row per P, grouped by node, goroutine runs as bars, steals as arrows from victim to thief; `schedlab trace -timeline -from T -to T FILE` draws another window.\n\n", time.Duration(timeline.DefaultWindow))
	}
	p("| benchmark | variant | steals | goroutines moved | within a node | across nodes | hops | binds | slice preemptions | matrix |\n|---|---|---|---|---|---|---|---|---|---|\n")
	for _, t := range meta.Traces {
		if t.Error != "" {
			p("| %s | %s | %s |  |  |  |  |  |  | |\n", t.Target, t.Variant, strings.ReplaceAll(t.Error, "\n", " "))
			continue
		}
		if !t.Events {
			links := fmt.Sprintf("[trace](%s)", filepath.ToSlash(t.File))
			if t.Timeline != "" {
				links += fmt.Sprintf(", [timeline](%s)", filepath.ToSlash(t.Timeline))
			}
			p("| %s | %s | no steal events (a stock toolchain) |  |  |  |  |  |  | %s |\n", t.Target, t.Variant, links)
			continue
		}
		share := ""
		if t.Moved > 0 {
			share = fmt.Sprintf(" (%.1f%%)", 100*float64(t.Local)/float64(t.Moved))
		}
		links := fmt.Sprintf("[svg](%s)", filepath.ToSlash(filepath.Join(t.Dir, StealMatrixFile)))
		if t.Timeline != "" {
			links += fmt.Sprintf(", [timeline](%s)", filepath.ToSlash(t.Timeline))
		}
		p("| %s | %s | %d | %d | %d%s | %d | %d | %d | %d | %s |\n", t.Target, t.Variant, t.Steals, t.Moved, t.Local, share, t.Remote, t.Hops, t.Binds, t.Preempt, links)
	}
	p("\n")
}
