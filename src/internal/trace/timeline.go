package trace

import (
	"bytes"
	"context"
	"fmt"
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

// DrawTimeline draws the per-P timeline of a window of a trace into
// dir/TimelineFile (SVG and PNG) from the patched toolchain's go tool
// trace -d=runs and -d=steals, and returns a line saying what it shows.
func DrawTimeline(tc *toolchain.Toolchain, traceFile, dir, title string, opt timeline.Options) (string, error) {
	runs, err := tc.Run(context.Background(), "", "tool", "trace", "-d=runs", traceFile)
	if err != nil {
		if strings.Contains(err.Error(), "invalid debug mode runs") {
			err = fmt.Errorf("%v\n(this go tool trace predates -d=runs: rebuild the toolchain with make toolchain)", err)
		}
		return "", err
	}
	t := &timeline.Trace{}
	if err := t.ReadRuns(bytes.NewReader(runs)); err != nil {
		return "", err
	}
	steals, err := StealCSV(tc, traceFile)
	if err != nil {
		return "", err
	}
	if err := t.ReadSteals(bytes.NewReader(steals)); err != nil {
		return "", err
	}
	opt.Title = title
	p, w, h, err := timeline.Plot(t, opt)
	if err != nil {
		return "", err
	}
	if err := plots.Save(p, w, h, filepath.Join(dir, TimelineFile)); err != nil {
		return "", err
	}
	from, to := t.Window(opt)
	return fmt.Sprintf("timeline of %v to %v after the trace began (%d runs, %d scheduler events, %d stop-the-world pauses in the whole trace)",
		time.Duration(from), time.Duration(to), len(t.Runs), len(t.Events), len(t.STWs)), nil
}
