package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/perf/benchfmt"

	"github.com/schedlab/schedlab/src/internal/results"
)

// A Session is a Run whose rounds its caller drives, for a search that
// decides after each round what runs next (schedlab tune): it builds
// every variant's test binaries once, then each Round runs every target
// under the variants the caller names, in a rotating order, and records
// the runs in the folder exactly as Run does.
type Session struct {
	r       *runner
	cleanup func() // closes the folder's files, removes the test binaries
}

// A RunResult is one run of one target under one variant.
type RunResult struct {
	Variant, Target string
	Status          string // "ok", "failed", "timeout", "no-results", "interrupted"
	Wall, CPU       time.Duration
	Contended       bool // other load took more than Options.ContendedCPUs
	// Values is, by benchmark name (as benchfmt gives it: X-2 for
	// BenchmarkX-2) and unit, what the run reported, in benchstat's
	// units (sec/op, not ns/op; a -ns metric in sec).
	Values map[string]map[string]float64
}

// OpenSession checks opt, resolves the toolchains and builds every
// variant's test binaries. With resume, a folder that already holds
// runs is appended to, and its metadata's start, failures and
// contention are kept; otherwise the folder must not hold results.
func OpenSession(ctx context.Context, opt Options, resume bool) (*Session, error) {
	countNote, err := opt.check()
	if err != nil {
		return nil, err
	}
	if opt.Measure != MeasureTime || opt.BuildOnly != "" || opt.Prebuilt != "" || opt.Trace || len(opt.Profile) > 0 {
		return nil, fmt.Errorf("a session runs the benchmarks' own units, built here: no -measure, -build-only, -prebuilt, -trace or -profile")
	}
	old, oldErr := results.ReadMetadata(opt.Out)
	if _, err := os.Stat(filepath.Join(opt.Out, results.RawFile)); err == nil && !resume {
		return nil, fmt.Errorf("%s already holds results (%s); choose another -out", opt.Out, results.RawFile)
	}
	r, err := newRunner(opt, countNote)
	if err != nil {
		return nil, err
	}
	failed := 0
	if resume && oldErr == nil {
		failed = len(old.Failures)
		r.meta.Started, r.meta.Failures, r.meta.Contended = old.Started, old.Failures, old.Contended
		r.meta.Notes = append(r.meta.Notes, fmt.Sprintf("resumed at %s", time.Now().UTC().Truncate(time.Second).Format(time.RFC3339)))
	}
	cleanup, err := r.open()
	s := &Session{r: r, cleanup: cleanup}
	if err != nil {
		cleanup()
		return nil, err
	}
	r.build(ctx)
	if err := ctx.Err(); err != nil {
		s.Close(err)
		return nil, err
	}
	if len(r.meta.Failures) > failed {
		// A build failed: no round could compare every variant.
		msg := r.meta.Failures[len(r.meta.Failures)-1]
		s.Close(nil)
		return nil, fmt.Errorf("%w: %s", ErrFailures, msg)
	}
	return s, nil
}

// Round runs every target once under each of the named variants, in
// an order that rotates with round (as Schedule's), and returns the
// runs. round counts from 0 and is what the folder's files say plus one.
func (s *Session) Round(ctx context.Context, round int, variants []string) ([]RunResult, error) {
	r := s.r
	idx := make([]int, len(variants))
	for i, name := range variants {
		idx[i] = slices.IndexFunc(r.opt.Variants, func(v Variant) bool { return v.Name == name })
		if idx[i] < 0 {
			return nil, fmt.Errorf("no variant %q in the session", name)
		}
	}
	var out []RunResult
	for ti, t := range r.opt.Suite.Targets {
		for i := range idx {
			if err := ctx.Err(); err != nil {
				return out, err
			}
			vi := idx[(i+round+ti)%len(idx)]
			out = append(out, r.runOne(ctx, Slot{Round: round, Target: ti, Variant: vi}, t, r.opt.Variants[vi]))
		}
	}
	return out, nil
}

// Close writes the folder's final metadata (complete when err is nil)
// and removes the test binaries.
func (s *Session) Close(err error) (*results.Metadata, error) {
	defer s.cleanup()
	return s.r.finish(err)
}

// ParseResults reads Go benchmark results with benchfmt: by benchmark
// name and unit, the value, with units tidied as benchstat tidies them
// (ns/op is sec/op, a -ns metric is in sec).
func ParseResults(text string) map[string]map[string]float64 {
	out := map[string]map[string]float64{}
	rd := benchfmt.NewReader(strings.NewReader(text), "run")
	for rd.Scan() {
		res, ok := rd.Result().(*benchfmt.Result)
		if !ok {
			continue // a syntax error or a unit line
		}
		name := string(res.Name.Full())
		vals := out[name]
		if vals == nil {
			vals = map[string]float64{}
			out[name] = vals
		}
		for _, v := range res.Values {
			vals[v.Unit] = v.Value
		}
	}
	return out
}
