package bench

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/schedlab/schedlab/src/internal/results"
	"github.com/schedlab/schedlab/src/internal/timeline"
	"github.com/schedlab/schedlab/src/internal/toolchain"
	"github.com/schedlab/schedlab/src/internal/trace"
)

// traceAll runs every target once more under every variant with the
// execution tracer on, after the measured rounds so that tracing's cost
// never enters bench.txt, and analyses each trace with the patched
// toolchain's go tool trace -d=steals. A schedlab toolchain traces with
// GODEBUG=tracesteal=1; a stock one gives a trace without steal events,
// whose analysis says so.
func (r *runner) traceAll(ctx context.Context) {
	dir := filepath.Join(r.opt.Out, results.TracesDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		r.fail("traces: %v", err)
		return
	}
	analyzer, aerr := toolchain.Resolve(r.opt.Root, "patched", "", "")
	for _, t := range r.opt.Suite.Targets {
		for _, v := range r.opt.Variants {
			if ctx.Err() != nil {
				return
			}
			tc := r.tcs[v.Toolchain]
			bp := r.bins[v.Toolchain][t.Pkg.Key]
			if bp == nil || bp.err != nil {
				continue
			}
			name := results.SafeName(strings.TrimPrefix(t.Name, "workloads.") + "-" + v.Name)
			tm := results.TraceMeta{Variant: v.Name, Target: t.Name, File: filepath.Join(results.TracesDir, name+".trace"), GODEBUG: v.GODEBUG}
			extra := ""
			if tc.Series != "none" {
				extra = "tracesteal=1"
				tm.GODEBUG = joinGODEBUG(v.GODEBUG, extra)
			}
			out, wall, err := r.extraRun(ctx, "traced", t, v, bp, extra, "-test.trace="+filepath.Join(r.opt.Out, tm.File))
			tm.WallS = wall
			switch {
			case err != nil:
				tm.Error = fmt.Sprintf("traced run failed: %v%s", err, tail(out, 5))
			case aerr != nil:
				tm.Error = "no analysis: " + aerr.Error()
			default:
				tm.Dir = filepath.Join(results.TracesDir, name)
				s, err := trace.Analyze(analyzer, filepath.Join(r.opt.Out, tm.File), filepath.Join(r.opt.Out, tm.Dir), t.Name+" ["+v.Name+"]")
				if err != nil {
					tm.Error, tm.Dir = err.Error(), ""
					break
				}
				tm.Steals, tm.Moved, tm.Local, tm.Remote = s.Steals, s.LocalMoved+s.RemoteMoved, s.LocalMoved, s.RemoteMoved
				tm.Hops, tm.Binds, tm.Preempt = s.Hops, s.Binds, s.Preempts
				tm.Events = len(s.Procs) > 0
				if _, err := trace.DrawTimeline(analyzer, filepath.Join(r.opt.Out, tm.File), filepath.Join(r.opt.Out, tm.Dir), t.Name+" ["+v.Name+"]", timeline.Options{}); err != nil {
					r.logf("warning: timeline of %s [%s]: %v", t.Name, v.Name, err)
				} else {
					tm.Timeline = filepath.Join(tm.Dir, trace.TimelineFile)
				}
			}
			if tm.Error != "" {
				r.logf("warning: trace of %s [%s]: %s", t.Name, v.Name, tm.Error)
			}
			r.meta.Traces = append(r.meta.Traces, tm)
			r.meta.Write(r.opt.Out)
		}
	}
}

// extraRun runs target t under variant v once more, outside the measured
// rounds, with extra GODEBUG settings and test flags (a trace, a profile),
// logging its output; what names the run in the log ("traced").
func (r *runner) extraRun(ctx context.Context, what string, t Target, v Variant, bp *builtPkg, godebug string, flags ...string) (out string, wallS float64, err error) {
	fmt.Fprintf(r.opt.Stderr, "schedlab: %s run: %s [%s]\n", what, t.Name, v.Name)
	args, timeout := r.runArgs(t)
	args = append(args, flags...)
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	argv := append(append([]string(nil), v.Wrapper...), bp.bin)
	argv = append(argv, args...)
	cmd := exec.CommandContext(rctx, argv[0], argv[1:]...)
	ownGroup(cmd)
	cmd.Dir = bp.dir
	cmd.Env = runEnv(r.tcs[v.Toolchain], v, godebug)
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	t0 := time.Now()
	err = cmd.Run()
	wallS = time.Since(t0).Seconds()
	fmt.Fprintf(r.log, "=== %s run: %s [%s]: %s (GODEBUG=%s, %.3fs)\n%s\n", what, t.Name, v.Name, strings.Join(argv, " "),
		joinGODEBUG(v.GODEBUG, godebug), wallS, buf.String())
	return buf.String(), wallS, err
}
