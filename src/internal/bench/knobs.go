package bench

import (
	"fmt"
	"sort"
	"strings"
)

// SchedlabKnobs are the GODEBUG settings added by the patched runtime.
var SchedlabKnobs = []string{
	"timeslice", "sysmontick", "sysmonmaxtick", "sysmonidle", "sysmonnetpoll",
	"numa", "numabind", "numaconfine", "numaexempt", "numafake", "numamem", "numaplace", "numasteal", "numatrace", "numawake",
	"tracesteal",
}

// UpstreamKnobs are GODEBUG settings understood by the upstream runtime
// and standard library that are useful in a variant.
var UpstreamKnobs = []string{
	"adaptivestackstart", "asyncpreemptoff", "asynctimerchan", "cgocheck",
	"clobberfree", "decoratemappings", "disablethp", "dontfreezetheworld",
	"efence", "gccheckmark", "gcpacertrace", "gcshrinkstackoff",
	"gcstoptheworld", "gctrace", "harddecommit", "inittrace", "invalidptr",
	"madvdontneed", "memprofilerate", "panicnil", "profstackdepth",
	"runtimecontentionstacks", "sbrk", "scavtrace", "scheddetail",
	"schedtrace", "spinbitmutex", "traceadvanceperiod", "tracebackancestors",
	"tracecheckstackownership", "updatemaxprocs", "containermaxprocs",
	"dataindependenttiming", "http2client", "http2server", "netdns",
	"multipathtcp", "randseednop", "randautoseed", "tracefpunwindoff",
	"checkfinalizers", "greenteagc", "asyncpreemptoff", "traceallocfree",
}

var knownKnobs = func() map[string]bool {
	m := map[string]bool{}
	for _, k := range SchedlabKnobs {
		m[k] = true
	}
	for _, k := range UpstreamKnobs {
		m[k] = true
	}
	return m
}()

// KnownKnob reports whether name is a GODEBUG knob schedlab accepts.
func KnownKnob(name string) bool { return knownKnobs[name] }

// ValidateGODEBUG checks a comma-separated GODEBUG string: every element
// must be knob=value with a known knob.
func ValidateGODEBUG(s string) error {
	if s == "" {
		return nil
	}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" || v == "" {
			return fmt.Errorf("GODEBUG element %q: want knob=value", kv)
		}
		if !KnownKnob(k) {
			return fmt.Errorf("unknown GODEBUG knob %q (known: %s)", k, strings.Join(sortedKnobs(), ", "))
		}
	}
	return nil
}

func sortedKnobs() []string {
	var ks []string
	for k := range knownKnobs {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
