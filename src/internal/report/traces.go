package report

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/schedlab/schedlab/src/internal/results"
	"github.com/schedlab/schedlab/src/internal/timeline"
	"github.com/schedlab/schedlab/src/internal/trace"
)

// writeTraces writes the README's section on the traced runs.
func writeTraces(p func(string, ...any), meta *results.Metadata) {
	if len(meta.Traces) == 0 {
		return
	}
	p("## Execution traces\n\n")
	p("One traced run of each benchmark under each variant, after the measured rounds (tracing's cost is not in the tables above). ")
	p("Schedlab toolchains traced with `GODEBUG=tracesteal=1`; each trace's steal events are in its folder: `%s` (every event), `%s`, and the thief × victim matrix `%s`. ", trace.StealsCSVFile, trace.StealTextFile, trace.StealMatrixFile)
	p("Open a trace with the patched `go tool trace` (its Work stealing page); stock tools refuse traces with steal events.\n\n")
	if slices.ContainsFunc(meta.Traces, func(t results.TraceMeta) bool { return t.Timeline != "" }) {
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
		links := fmt.Sprintf("[svg](%s)", filepath.ToSlash(filepath.Join(t.Dir, trace.StealMatrixFile)))
		if t.Timeline != "" {
			links += fmt.Sprintf(", [timeline](%s)", filepath.ToSlash(t.Timeline))
		}
		p("| %s | %s | %d | %d | %d%s | %d | %d | %d | %d | %s |\n", t.Target, t.Variant, t.Steals, t.Moved, t.Local, share, t.Remote, t.Hops, t.Binds, t.Preempt, links)
	}
	p("\n")
}
