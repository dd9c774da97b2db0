// Package blockprof summarizes Go block and mutex profiles by blocking
// site, so that the profiles of two runs (two knob settings) can be
// compared site by site.
//
// A site is the blocking primitive (the profile's leaf frame, such as
// sync.(*WaitGroup).Wait or runtime.chanrecv1) together with the first
// caller outside the runtime, sync and internal packages: the program's
// line that blocked. That is what `go tool pprof -top` would list once
// the primitives are collapsed, computed here without a pprof binary.
// Samples without such a caller, or that reach the testing package
// before one (a benchmark's runner waiting for its goroutine, the
// runtime's own locks), are not the program's blocking: they are summed
// apart, in Machinery, and left out of the sites and their shares.
package blockprof

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/google/pprof/profile"
)

// Site is one blocking site and what it cost in one profile.
type Site struct {
	Primitive   string // leaf function, package path trimmed
	Caller      string // first caller outside runtime, sync and internal packages
	Contentions int64
	DelayNS     int64
}

// Key names the site.
func (s Site) Key() string {
	if s.Caller == "" {
		return s.Primitive
	}
	return s.Primitive + " ← " + s.Caller
}

// Summary is a profile by site.
type Summary struct {
	Sites       []Site // by delay, largest first
	Contentions int64  // of the sites
	DelayNS     int64  // of the sites
	// Machinery sums the samples with no program frame.
	Machinery Site
}

// Read parses a block or mutex profile (as written by -test.blockprofile
// or -test.mutexprofile) and sums it by site.
func Read(r io.Reader) (*Summary, error) {
	p, err := profile.Parse(r)
	if err != nil {
		return nil, err
	}
	ci, di := -1, -1
	for i, st := range p.SampleType {
		switch st.Type {
		case "contentions":
			ci = i
		case "delay":
			di = i
		}
	}
	if ci < 0 || di < 0 {
		var types []string
		for _, st := range p.SampleType {
			types = append(types, st.Type+"/"+st.Unit)
		}
		return nil, fmt.Errorf("not a block or mutex profile: sample types %s", strings.Join(types, ", "))
	}
	by := map[string]*Site{}
	s := &Summary{}
	for _, smp := range p.Sample {
		site := siteOf(smp)
		if site.Caller == "" {
			s.Machinery.Contentions += smp.Value[ci]
			s.Machinery.DelayNS += smp.Value[di]
			continue
		}
		k := site.Key()
		if by[k] == nil {
			by[k] = &site
		}
		by[k].Contentions += smp.Value[ci]
		by[k].DelayNS += smp.Value[di]
		s.Contentions += smp.Value[ci]
		s.DelayNS += smp.Value[di]
	}
	for _, site := range by {
		s.Sites = append(s.Sites, *site)
	}
	sort.Slice(s.Sites, func(i, j int) bool {
		a, b := s.Sites[i], s.Sites[j]
		if a.DelayNS != b.DelayNS {
			return a.DelayNS > b.DelayNS
		}
		return a.Key() < b.Key()
	})
	return s, nil
}

// Share is site k's part of the summary's delay (0 when absent).
func (s *Summary) Share(k string) float64 {
	if s.DelayNS == 0 {
		return 0
	}
	for _, site := range s.Sites {
		if site.Key() == k {
			return float64(site.DelayNS) / float64(s.DelayNS)
		}
	}
	return 0
}

// siteOf names the site of a sample: frames leaf first, inlined callees
// before the function they were inlined into.
func siteOf(smp *profile.Sample) Site {
	var frames []string
	for _, loc := range smp.Location {
		for _, l := range loc.Line {
			if l.Function != nil {
				frames = append(frames, l.Function.Name)
			}
		}
	}
	if len(frames) == 0 {
		return Site{Primitive: "?"}
	}
	// The blocking primitive is the first frame; the caller the first
	// frame of the program after it.
	s := Site{Primitive: short(frames[0])}
	for _, f := range frames[1:] {
		if pkgPath(f) == "testing" {
			// Reached through the testing package before any program
			// frame: the harness's own wait (a benchmark's runner
			// waiting for its goroutine, StopTimer's locks), whatever
			// calls it (TestMain, the generated main.main).
			return s
		}
		if !isMachinery(f) {
			s.Caller = short(f)
			break
		}
	}
	return s
}

// isMachinery reports whether function f is part of how Go blocks rather
// than of the program that blocked: the runtime, sync and internal
// packages.
func isMachinery(f string) bool {
	pkg := pkgPath(f)
	return pkg == "runtime" || pkg == "sync" || pkg == "internal" || strings.HasPrefix(pkg, "internal/") ||
		strings.HasPrefix(pkg, "runtime/") || strings.HasPrefix(pkg, "sync/")
}

// pkgPath is the import path of a function's package: everything up to
// the first dot after the last slash.
func pkgPath(f string) string {
	slash := strings.LastIndex(f, "/")
	dot := strings.Index(f[slash+1:], ".")
	if dot < 0 {
		return f
	}
	return f[:slash+1+dot]
}

// short trims a function's import path to its last element.
func short(f string) string {
	return f[strings.LastIndex(f, "/")+1:]
}
