package harness

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/schedlab/schedlab/src/internal/blockprof"
)

// ProfilesDir holds the profiles of `schedlab bench -profile`.
const ProfilesDir = "profiles"

// ProfileKinds are the profiles -profile can keep, by the test flag that
// writes each. Both record every event (the testing package's default
// rate and fraction of 1 once the profile is asked for).
var ProfileKinds = map[string]string{
	"block": "-test.blockprofile",
	"mutex": "-test.mutexprofile",
}

// ProfileMeta records one profiled run.
type ProfileMeta struct {
	Variant string `json:"variant"`
	Target  string `json:"target"`
	Kind    string `json:"kind"`            // "block" or "mutex"
	File    string `json:"file"`            // relative to the results folder
	Error   string `json:"error,omitempty"` // why there is no profile
}

// ParseProfileKinds checks a -profile list ("block,mutex").
func ParseProfileKinds(list string) ([]string, error) {
	var kinds []string
	for _, k := range strings.Split(list, ",") {
		if k = strings.TrimSpace(k); k == "" {
			continue
		}
		if ProfileKinds[k] == "" {
			return nil, fmt.Errorf("-profile %q: want a list of block, mutex", list)
		}
		kinds = append(kinds, k)
	}
	return kinds, nil
}

// profileAll runs every target once more under every variant with the
// profiles of opt.Profile on, after the measured rounds (profiling every
// blocking event slows the program, so it never enters bench.txt). One
// run writes all the kinds asked for.
func (b *bench) profileAll(ctx context.Context) {
	dir := filepath.Join(b.opt.Out, ProfilesDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.fail("profiles: %v", err)
		return
	}
	for _, t := range b.opt.Suite.Targets {
		for _, v := range b.opt.Variants {
			if ctx.Err() != nil {
				return
			}
			bp := b.bins[v.Toolchain][t.Pkg.Key]
			if bp == nil || bp.err != nil {
				continue
			}
			name := sanitize(strings.TrimPrefix(t.Name, "workloads.") + "-" + v.Name)
			var flags []string
			var pms []ProfileMeta
			for _, k := range b.opt.Profile {
				pm := ProfileMeta{Variant: v.Name, Target: t.Name, Kind: k, File: filepath.Join(ProfilesDir, name+"."+k+".pprof")}
				flags = append(flags, ProfileKinds[k]+"="+filepath.Join(b.opt.Out, pm.File))
				pms = append(pms, pm)
			}
			out, _, err := b.extraRun(ctx, "profiled", t, v, bp, "", flags...)
			for i := range pms {
				if err != nil {
					pms[i].Error = fmt.Sprintf("profiled run failed: %v%s", err, tail(out, 5))
				} else if _, serr := os.Stat(filepath.Join(b.opt.Out, pms[i].File)); serr != nil {
					pms[i].Error = "no profile written: " + serr.Error()
				}
				if pms[i].Error != "" {
					b.logf("warning: %s profile of %s [%s]: %s", pms[i].Kind, t.Name, v.Name, pms[i].Error)
				}
			}
			b.meta.Profiles = append(b.meta.Profiles, pms...)
			b.meta.write(b.opt.Out)
		}
	}
}

// profileSites is how many sites the README lists per profile.
const profileSites = 5

// writeProfiles writes the README's section on the profiles: per
// benchmark and kind, the top sites of every variant with their share of
// the variant's blocking delay, and each share's change against the
// first variant in percentage points.
func writeProfiles(p func(string, ...any), meta *Metadata, dir string) {
	if len(meta.Profiles) == 0 {
		return
	}
	p("## Block and mutex profiles\n\n")
	p("One profiled run of each benchmark under each variant, after the measured rounds (profiling's cost is not in the tables above), recording every event. ")
	p("A site is the blocking primitive and the first caller outside the runtime, sync and internal packages. ")
	p("Each cell: the site's share of the variant's total delay (and its delay); the change is against %s in percentage points. ", meta.Variants[0].Name)
	p("One run per cell, and the totals include the benchmark's calibration runs: read shares, not totals, and treat small changes as noise. ")
	p("The profiles are in `%s/`; `go tool pprof -top -diff_base=A B` compares two.\n\n", ProfilesDir)
	type key struct{ target, kind string }
	var order []key
	byKey := map[key]map[string]ProfileMeta{}
	for _, pm := range meta.Profiles {
		k := key{pm.Target, pm.Kind}
		if byKey[k] == nil {
			order = append(order, k)
			byKey[k] = map[string]ProfileMeta{}
		}
		byKey[k][pm.Variant] = pm
	}
	for _, k := range order {
		p("### %s, %s profile\n\n", k.target, k.kind)
		sums := map[string]*blockprof.Summary{}
		var sites []string
		seen := map[string]bool{}
		for _, v := range meta.Variants {
			pm, ok := byKey[k][v.Name]
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
		if len(sums) == 0 {
			p("\n")
			continue
		}
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
		p("| total delay (contentions) |")
		for _, c := range cols {
			p(" %s (%d) |", fmtMS(sums[c].DelayNS), sums[c].Contentions)
		}
		p("\n\n")
	}
}

func fmtMS(ns int64) string { return fmt.Sprintf("%.1f ms", float64(ns)/1e6) }
