package bench

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// A Variant is a toolchain plus an optional GODEBUG setting, under a name.
type Variant struct {
	Name      string // as it appears in the variant: config line
	Toolchain string // "stock", "patched", or a GOROOT path
	GODEBUG   string // comma-separated knob=value list, may be empty
	// Wrapper, if set, is a command that runs the benchmark binary
	// (its path and flags follow), e.g. numactl --cpunodebind=0
	// --membind=0 for an oracle variant: stock with its threads and
	// memory confined to one node, the locality a NUMA-aware scheduler
	// can at best reach.
	Wrapper []string
	// ExecTrace, if set, has every run of the variant write an
	// execution trace (-test.trace) to a temporary file: the cost of
	// tracing, in time or in instructions, is then the difference from
	// the same variant without it.
	ExecTrace bool
}

func (v Variant) String() string {
	s := v.Name + "=" + v.Toolchain
	if v.GODEBUG != "" {
		s += ":" + v.GODEBUG
	}
	return s
}

// ParseVariant parses a -variant flag value:
//
//	stock | patched | /path/to/goroot
//	[name=]toolchain[:GODEBUG]
//
// e.g. "slice1ms=patched:timeslice=1000". Without a name, the name is the
// toolchain (the base name of a path) followed by ":GODEBUG" if any.
func ParseVariant(s string) (Variant, error) {
	if strings.TrimSpace(s) == "" {
		return Variant{}, fmt.Errorf("empty variant")
	}
	head, godebug, _ := strings.Cut(s, ":")
	name, tc := "", head
	if !strings.Contains(head, "/") {
		if n, t, ok := strings.Cut(head, "="); ok {
			name, tc = n, t
		}
	} else if i := strings.Index(head, "="); i >= 0 && !strings.Contains(head[:i], "/") {
		name, tc = head[:i], head[i+1:]
	}
	if tc == "" {
		return Variant{}, fmt.Errorf("variant %q: no toolchain (want stock, patched or a GOROOT path)", s)
	}
	switch {
	case tc == "stock" || tc == "patched":
	case strings.Contains(tc, "/") || strings.HasPrefix(tc, "."):
		tc = filepath.Clean(tc)
	default:
		return Variant{}, fmt.Errorf("variant %q: unknown toolchain %q (want stock, patched or a GOROOT path)", s, tc)
	}
	if err := ValidateGODEBUG(godebug); err != nil {
		return Variant{}, fmt.Errorf("variant %q: %v", s, err)
	}
	if name == "" {
		name = tc
		if strings.Contains(tc, "/") {
			name = filepath.Base(tc)
		}
		if godebug != "" {
			name += ":" + godebug
		}
	}
	if strings.ContainsAny(name, " \t\n") {
		return Variant{}, fmt.Errorf("variant %q: name %q contains white space", s, name)
	}
	return Variant{Name: name, Toolchain: tc, GODEBUG: godebug}, nil
}

// ParseVariants parses each flag value and checks that names are unique.
func ParseVariants(specs []string) ([]Variant, error) {
	if len(specs) == 0 {
		return nil, fmt.Errorf("no variants: give at least one -variant (e.g. -variant stock -variant patched)")
	}
	seen := map[string]bool{}
	var vs []Variant
	for _, s := range specs {
		v, err := ParseVariant(s)
		if err != nil {
			return nil, err
		}
		if seen[v.Name] {
			return nil, fmt.Errorf("variant name %q used twice; name them, e.g. -variant a=stock -variant b=stock", v.Name)
		}
		seen[v.Name] = true
		vs = append(vs, v)
	}
	return vs, nil
}

// ApplyWrappers sets the Wrapper of variants from -wrap flag values of
// the form name=command [args...] (split at white space; no shell
// quoting). The command must be installed: a comparison whose oracle
// silently did not run would be worse than none.
func ApplyWrappers(vs []Variant, specs []string) error {
	for _, s := range specs {
		name, cmdline, ok := strings.Cut(s, "=")
		argv := strings.Fields(cmdline)
		if !ok || name == "" || len(argv) == 0 {
			return fmt.Errorf("-wrap %q: want name=command [args...], e.g. 'oracle=numactl --cpunodebind=0 --membind=0'", s)
		}
		i := slices.IndexFunc(vs, func(v Variant) bool { return v.Name == name })
		if i < 0 {
			return fmt.Errorf("-wrap %q: no variant named %q", s, name)
		}
		if vs[i].Wrapper != nil {
			return fmt.Errorf("-wrap %q: variant %q already has a wrapper", s, name)
		}
		if _, err := exec.LookPath(argv[0]); err != nil {
			return fmt.Errorf("-wrap %q: %v", s, err)
		}
		// Runs start in their package's directory: a relative path
		// to a wrapper must not depend on it.
		if strings.Contains(argv[0], "/") {
			abs, err := filepath.Abs(argv[0])
			if err != nil {
				return fmt.Errorf("-wrap %q: %v", s, err)
			}
			argv[0] = abs
		}
		vs[i].Wrapper = argv
	}
	return nil
}

// ApplyExecTrace sets ExecTrace on the variants named (the -exectrace
// flag's values).
func ApplyExecTrace(vs []Variant, names []string) error {
	for _, name := range names {
		i := slices.IndexFunc(vs, func(v Variant) bool { return v.Name == name })
		if i < 0 {
			return fmt.Errorf("-exectrace %q: no variant named %q", name, name)
		}
		vs[i].ExecTrace = true
	}
	return nil
}

// execTraceArgs returns args with, for a variant that traces, the flag
// that writes its execution trace to file.
func execTraceArgs(v Variant, args []string, file string) []string {
	if !v.ExecTrace {
		return args
	}
	return append(slices.Clone(args), "-test.trace="+file)
}
