package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/schedlab/schedlab/src/internal/results"
)

// ProfileKinds are the profiles -profile can keep, by the test flag that
// writes each. Both record every event (the testing package's default
// rate and fraction of 1 once the profile is asked for).
var ProfileKinds = map[string]string{
	"block": "-test.blockprofile",
	"mutex": "-test.mutexprofile",
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
func (r *runner) profileAll(ctx context.Context) {
	dir := filepath.Join(r.opt.Out, results.ProfilesDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		r.fail("profiles: %v", err)
		return
	}
	for _, t := range r.opt.Suite.Targets {
		for _, v := range r.opt.Variants {
			if ctx.Err() != nil {
				return
			}
			bp := r.bins[v.Toolchain][t.Pkg.Key]
			if bp == nil || bp.err != nil {
				continue
			}
			name := results.SafeName(strings.TrimPrefix(t.Name, "workloads.") + "-" + v.Name)
			var flags []string
			var pms []results.ProfileMeta
			for _, k := range r.opt.Profile {
				pm := results.ProfileMeta{Variant: v.Name, Target: t.Name, Kind: k, File: filepath.Join(results.ProfilesDir, name+"."+k+".pprof")}
				flags = append(flags, ProfileKinds[k]+"="+filepath.Join(r.opt.Out, pm.File))
				pms = append(pms, pm)
			}
			out, _, err := r.extraRun(ctx, "profiled", t, v, bp, "", flags...)
			for i := range pms {
				if err != nil {
					pms[i].Error = fmt.Sprintf("profiled run failed: %v%s", err, tail(out, 5))
				} else if _, serr := os.Stat(filepath.Join(r.opt.Out, pms[i].File)); serr != nil {
					pms[i].Error = "no profile written: " + serr.Error()
				}
				if pms[i].Error != "" {
					r.logf("warning: %s profile of %s [%s]: %s", pms[i].Kind, t.Name, v.Name, pms[i].Error)
				}
			}
			r.meta.Profiles = append(r.meta.Profiles, pms...)
			r.meta.Write(r.opt.Out)
		}
	}
}
