package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/perf/benchunit"

	"github.com/schedlab/schedlab/src/internal/results"
)

// A Session is a Run whose rounds its caller drives, for a search that
// decides after each round what runs next (schedlab tune): it builds
// every variant's test binaries once, then each Round runs every target
// under the variants the caller names, in a rotating order, and records
// the runs in the folder exactly as Run does.
type Session struct {
	r          *runner
	closeFiles func()
}

// A RunResult is one run of one target under one variant.
type RunResult struct {
	Variant, Target string
	Status          string // "ok", "failed", "timeout", "no-results", "interrupted"
	Wall, CPU       time.Duration
	Contended       bool // other load took more than Options.ContendedCPUs
	// Values is, by benchmark name (without the GOMAXPROCS suffix) and
	// unit, what the run reported, in benchstat's units (sec/op, not
	// ns/op; a -ns metric in sec).
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
	if err := os.MkdirAll(opt.Out, 0o755); err != nil {
		return nil, err
	}
	if err := r.meta.Write(opt.Out); err != nil {
		return nil, err
	}
	if r.tmp, err = os.MkdirTemp("", "schedlab-session-"); err != nil {
		return nil, err
	}
	if r.tmp, err = filepath.EvalSymlinks(r.tmp); err != nil {
		os.RemoveAll(r.tmp)
		return nil, err
	}
	closeFiles, err := r.openFiles()
	s := &Session{r: r, closeFiles: func() { closeFiles(); os.RemoveAll(r.tmp) }}
	if err != nil {
		s.closeFiles()
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
	defer s.closeFiles()
	return s.r.finish(err)
}

// ParseResults reads Go benchmark result lines: by benchmark name
// (the -N GOMAXPROCS suffix removed) and unit, the value, with units
// tidied as benchstat tidies them (ns/op is sec/op).
func ParseResults(text string) map[string]map[string]float64 {
	out := map[string]map[string]float64{}
	for _, line := range strings.Split(text, "\n") {
		if !results.IsResultLine(line) {
			continue
		}
		f := strings.Fields(line)
		name := f[0]
		if i := strings.LastIndexByte(name, '-'); i > 0 {
			if _, err := strconv.Atoi(name[i+1:]); err == nil {
				name = name[:i]
			}
		}
		vals := out[name]
		if vals == nil {
			vals = map[string]float64{}
			out[name] = vals
		}
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				continue
			}
			v, unit := benchunit.Tidy(v, f[i+1])
			vals[unit] = v
		}
	}
	return out
}
