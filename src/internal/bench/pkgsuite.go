package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/schedlab/schedlab/src/internal/results"
	"github.com/schedlab/schedlab/src/internal/toolchain"
)

// PackageSuite returns a suite of the benchmarks of the Go packages in
// dirs (schedlab bench -pkg, schedlab tune): one target per benchmark
// function whose name matches bench, as go test's -bench matches it
// (the part before the first '/' against the function's name, the rest
// passed on to select sub-benchmarks). Each package is listed with
// lister's go test -list in its own directory, so a package of any
// module (its own go.mod, replace directives, vendor/, build tags) is
// listed, and later built, as go test would there.
func PackageSuite(ctx context.Context, lister *toolchain.Toolchain, dirs []string, bench, tags string) (*Suite, error) {
	if bench == "" {
		bench = "."
	}
	top, rest, hasRest := strings.Cut(bench, "/")
	topRE, err := regexp.Compile(top)
	if err != nil {
		return nil, fmt.Errorf("-bench %q: %v", bench, err)
	}
	s := &Suite{Name: "pkg"}
	keys := map[string]bool{}
	var names []string
	for _, d := range dirs {
		abs, err := filepath.Abs(d)
		if err != nil {
			return nil, err
		}
		if st, err := os.Stat(abs); err != nil || !st.IsDir() {
			return nil, fmt.Errorf("-pkg %s: not a directory", d)
		}
		listArgs := []string{"test", "-list", "^Benchmark"}
		if tags != "" {
			listArgs = append(listArgs, "-tags", tags)
		}
		out, err := lister.Run(ctx, abs, append(listArgs, ".")...)
		if err != nil {
			return nil, fmt.Errorf("-pkg %s: listing its benchmarks: %v", d, err)
		}
		imp, err := lister.Run(ctx, abs, "list", "-f", "{{.ImportPath}}", ".")
		if err != nil {
			return nil, fmt.Errorf("-pkg %s: %v", d, err)
		}
		key := results.SafeName(filepath.Base(abs))
		for i := 2; keys[key]; i++ {
			key = fmt.Sprintf("%s-%d", results.SafeName(filepath.Base(abs)), i)
		}
		keys[key] = true
		p := &Pkg{Key: key, Kind: DirPkg, Import: firstLine(imp), Dir: abs, Tags: tags}
		for _, line := range strings.Split(string(out), "\n") {
			name := strings.TrimSpace(line)
			if !strings.HasPrefix(name, "Benchmark") || strings.ContainsAny(name, " \t") {
				continue
			}
			names = append(names, key+"."+strings.TrimPrefix(name, "Benchmark"))
			if !topRE.MatchString(name) {
				continue
			}
			re := "^" + regexp.QuoteMeta(name) + "$"
			if hasRest {
				re += "/" + rest
			}
			s.Targets = append(s.Targets, Target{Name: key + "." + strings.TrimPrefix(name, "Benchmark"), Pkg: p, Bench: re})
		}
	}
	if len(s.Targets) == 0 {
		if len(names) == 0 {
			return nil, fmt.Errorf("-pkg %s: no benchmarks", strings.Join(dirs, ","))
		}
		return nil, fmt.Errorf("-bench %q matches no benchmark of %s (it has: %s)", bench, strings.Join(dirs, ","), strings.Join(names, ", "))
	}
	return s, nil
}
