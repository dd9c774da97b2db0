package report

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/schedlab/schedlab/src/internal/blockprof"
	"github.com/schedlab/schedlab/src/internal/results"
)

// profileSites is how many sites the README lists per profile.
const profileSites = 5

// writeProfiles writes the README's section on the profiles: per
// benchmark and kind, the top sites of every variant with their share of
// the variant's blocking delay, and each share's change against the
// first variant in percentage points.
func writeProfiles(p func(string, ...any), meta *results.Metadata, dir string) {
	if len(meta.Profiles) == 0 {
		return
	}
	p("## Block and mutex profiles\n\n")
	p("One profiled run of each benchmark under each variant, after the measured rounds (profiling's cost is not in the tables above), recording every event. ")
	p("A site is the blocking primitive and the first caller outside the runtime, sync and internal packages; samples with no such caller, or that reach the testing package first (a benchmark's runner waiting for its goroutine, the runtime's own locks), are summed apart and left out of the shares. ")
	p("Each cell: the site's share of the variant's delay at program sites (and its delay); the change is against %s in percentage points. ", baseVariant(meta))
	p("One run per cell, and the totals include the benchmark's calibration runs: read shares, not totals, and treat small changes as noise. ")
	p("The profiles are in `%s/`; `go tool pprof -top -diff_base=A B` compares two.\n\n", results.ProfilesDir)
	type key struct{ target, kind string }
	var order []key
	byKey := map[key]map[string]results.ProfileMeta{}
	for _, pm := range meta.Profiles {
		k := key{pm.Target, pm.Kind}
		if byKey[k] == nil {
			order = append(order, k)
			byKey[k] = map[string]results.ProfileMeta{}
		}
		byKey[k][pm.Variant] = pm
	}
	for _, k := range order {
		p("### %s, %s profile\n\n", k.target, k.kind)
		sums, sites := readProfiles(p, meta, dir, byKey[k])
		if len(sums) == 0 {
			p("\n")
			continue
		}
		writeSiteTable(p, meta, sums, sites)
	}
}

// readProfiles reads the profiles of one benchmark and kind, by
// variant, and returns their summaries and the top sites of each, in
// the order of the variants and then of each one's sites. A profile
// that is missing or unreadable gets a line saying why instead.
func readProfiles(p func(string, ...any), meta *results.Metadata, dir string, byVariant map[string]results.ProfileMeta) (map[string]*blockprof.Summary, []string) {
	sums := map[string]*blockprof.Summary{}
	var sites []string
	seen := map[string]bool{}
	for _, v := range meta.Variants {
		pm, ok := byVariant[v.Name]
		if !ok {
			continue
		}
		if pm.Error != "" {
			p("- %s: %s\n", v.Name, strings.ReplaceAll(pm.Error, "\n", " "))
			continue
		}
		f, err := os.Open(filepath.Join(dir, pm.File))
		if err != nil {
			p("- %s: %v\n", v.Name, err)
			continue
		}
		s, err := blockprof.Read(f)
		f.Close()
		if err != nil {
			p("- %s: %s: %v\n", v.Name, pm.File, err)
			continue
		}
		sums[v.Name] = s
		for _, site := range s.Sites[:min(profileSites, len(s.Sites))] {
			if !seen[site.Key()] {
				seen[site.Key()] = true
				sites = append(sites, site.Key())
			}
		}
	}
	return sums, sites
}

// writeSiteTable writes the table of sites against variants (those with
// a summary, in the folder's order), each cell the site's share and
// delay and its change against the base, then each variant's total.
func writeSiteTable(p func(string, ...any), meta *results.Metadata, sums map[string]*blockprof.Summary, sites []string) {
	var cols []string
	for _, v := range meta.Variants {
		if sums[v.Name] != nil {
			cols = append(cols, v.Name)
		}
	}
	p("| site | %s |\n|---|%s\n", strings.Join(cols, " | "), strings.Repeat("---|", len(cols)))
	base := sums[baseVariant(meta)]
	for _, site := range sites {
		p("| `%s` |", site)
		for _, c := range cols {
			s := sums[c]
			var delay int64
			for _, x := range s.Sites {
				if x.Key() == site {
					delay = x.DelayNS
				}
			}
			cell := fmt.Sprintf(" %.1f%% (%s)", 100*s.Share(site), fmtMS(delay))
			if base != nil && s != base {
				cell += fmt.Sprintf(", %+.1f pp", 100*(s.Share(site)-base.Share(site)))
			}
			p("%s |", cell)
		}
		p("\n")
	}
	p("| program sites: delay (contentions) |")
	for _, c := range cols {
		p(" %s (%d) |", fmtMS(sums[c].DelayNS), sums[c].Contentions)
	}
	p("\n| no program frame: delay (contentions) |")
	for _, c := range cols {
		p(" %s (%d) |", fmtMS(sums[c].Machinery.DelayNS), sums[c].Machinery.Contentions)
	}
	p("\n\n")
}

func fmtMS(ns int64) string { return fmt.Sprintf("%.1f ms", float64(ns)/1e6) }
