package trace

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/schedlab/schedlab/src/internal/plots"
	"github.com/schedlab/schedlab/src/internal/timeline"
	"github.com/schedlab/schedlab/src/internal/toolchain"
)

// TimelineFile is the per-P timeline `schedlab trace -timeline` and
// `schedlab bench -trace` write next to a trace's analysis (and .png).
const TimelineFile = "timeline.svg"

// RunsCSV runs the patched toolchain's `go tool trace -d=runs` on a trace
// file and returns its CSV.
func RunsCSV(tc *toolchain.Toolchain, traceFile string) ([]byte, error) {
	out, err := tc.Run(context.Background(), "", "tool", "trace", "-d=runs", traceFile)
	if err != nil && strings.Contains(err.Error(), "invalid debug mode runs") {
		err = fmt.Errorf("%v\n(this go tool trace predates -d=runs: rebuild the toolchain with make toolchain)", err)
	}
	return out, err
}

// Load reads a trace's goroutine runs (-d=runs) and Steal events
// (-d=steals, none in a trace without tracesteal=1) through the patched
// toolchain: what the timeline, the latency analysis and the Perfetto
// export are made from.
func Load(tc *toolchain.Toolchain, traceFile string) (*timeline.Trace, error) {
	runs, err := RunsCSV(tc, traceFile)
	if err != nil {
		return nil, err
	}
	t := &timeline.Trace{}
	if err := t.ReadRuns(bytes.NewReader(runs)); err != nil {
		return nil, err
	}
	steals, err := StealCSV(tc, traceFile)
	if err != nil {
		return nil, err
	}
	if err := t.ReadSteals(bytes.NewReader(steals)); err != nil {
		return nil, err
	}
	return t, nil
}

// DrawTimeline draws the per-P timeline of a window of a trace into
// dir/TimelineFile (SVG and PNG) from the patched toolchain's go tool
// trace -d=runs and -d=steals, and returns a line saying what it shows.
func DrawTimeline(tc *toolchain.Toolchain, traceFile, dir, title string, opt timeline.Options) (string, error) {
	t, err := Load(tc, traceFile)
	if err != nil {
		return "", err
	}
	return DrawLoadedTimeline(t, dir, title, opt)
}

// DrawLoadedTimeline is DrawTimeline of a trace already loaded.
func DrawLoadedTimeline(t *timeline.Trace, dir, title string, opt timeline.Options) (string, error) {
	opt.Title = title
	p, w, h, err := timeline.Plot(t, opt)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	if err := plots.Save(p, w, h, filepath.Join(dir, TimelineFile)); err != nil {
		return "", err
	}
	from, to := t.Window(opt)
	return fmt.Sprintf("timeline of %v to %v after the trace began (%d runs, %d scheduler events, %d stop-the-world pauses in the whole trace)",
		time.Duration(from), time.Duration(to), len(t.Runs), len(t.Events), len(t.STWs)), nil
}
