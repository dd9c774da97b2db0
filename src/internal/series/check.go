package series

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// Check is the fast series gate: a fresh apply from scratch into a
// throwaway repository (not toolchain/goroot), extraction reproduces
// patches/ byte for byte, every patch follows the message rules, and every
// prefix of the series compiles. It does not run make.bash: each prefix is
// compiled by the stock go command against the prefix's GOROOT/src.
func (s *Series) Check() error {
	pin, err := s.ReadPin()
	if err != nil {
		return err
	}
	stock, err := s.Stock(pin)
	if err != nil {
		return err
	}
	files, parsed, problems, err := s.readSeries()
	if err != nil {
		return err
	}

	// Message rules.
	for _, p := range parsed {
		problems = append(problems, p.Lint()...)
	}

	// Fresh apply from scratch.
	tmp, err := os.MkdirTemp("", "schedlab-check-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	repo := filepath.Join(tmp, "goroot")
	s.printf("check: fresh apply of %d patches onto %s\n", len(files), pin.Version)
	if err := initUpstream(repo, stock, pin.Version); err != nil {
		return err
	}
	g := git{dir: repo}
	for _, f := range files {
		if err := amOne(g, f, false); err != nil {
			return fmt.Errorf("check: %v", err)
		}
	}

	// Extraction is a no-op.
	out := filepath.Join(tmp, "extracted")
	if err := formatPatches(g, out); err != nil {
		return err
	}
	diffs, err := diffDirs(s.Patches, out)
	if err != nil {
		return err
	}
	for _, d := range diffs {
		problems = append(problems, "re-extraction is not a no-op: "+d+" (regenerate patches/ with make extract; never hand-edit them)")
	}

	// Every prefix compiles.
	compiled, err := s.compilePrefixes(repo, stock, parsed)
	if err != nil {
		return err
	}
	problems = append(problems, compiled...)
	if len(problems) > 0 {
		return fmt.Errorf("check failed:\n  %s", strings.Join(problems, "\n  "))
	}
	s.printf("check: ok: %d patches apply cleanly onto %s, re-extract byte-for-byte, follow the message rules, and every prefix compiles\n", len(files), pin.Version)
	return nil
}

// runIn runs a stock go tool against the GOROOT at repo.
func runIn(repo, tool string, args ...string) (string, error) {
	return runInEnv(repo, nil, tool, args...)
}

// runInEnv is runIn with extra environment variables.
func runInEnv(repo string, env []string, tool string, args ...string) (string, error) {
	cmd := exec.Command(tool, args...)
	cmd.Dir = filepath.Join(repo, "src")
	cmd.Env = append(ToolchainEnv(repo), env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// compilePrefixes checks out each commit after UpstreamTag in repo in turn
// and builds runtime plus every package the commit's patch touches with
// the go command of the release at stock; the new Go files must be
// gofmt-clean. It ends with go vet (tests included) over all those
// packages at the last commit. It returns the problems found.
func (s *Series) compilePrefixes(repo, stock string, parsed []Patch) ([]string, error) {
	g := git{dir: repo}
	if err := os.Symlink(filepath.Join(stock, "pkg"), filepath.Join(repo, "pkg")); err != nil {
		return nil, err
	}
	commits, err := g.run("rev-list", "--reverse", UpstreamTag+"..HEAD")
	if err != nil {
		return nil, err
	}
	gocmd := filepath.Join(stock, "bin", "go")
	gofmt := filepath.Join(stock, "bin", "gofmt")
	var problems []string
	all := map[string]bool{}
	for i, c := range strings.Fields(commits) {
		if _, err := g.run("checkout", "-q", "--detach", c); err != nil {
			return nil, err
		}
		pkgs := []string{"runtime"}
		var gofiles []string
		if i < len(parsed) {
			for _, pkg := range touchedPackages(parsed[i].Files) {
				if _, err := os.Stat(filepath.Join(repo, "src", pkg)); err == nil && pkg != "runtime" {
					pkgs = append(pkgs, pkg)
				}
			}
			for _, f := range parsed[i].Files {
				if strings.HasSuffix(f, ".go") && !strings.Contains(f, "/testdata/") {
					if _, err := os.Stat(filepath.Join(repo, f)); err == nil {
						gofiles = append(gofiles, filepath.Join(repo, f))
					}
				}
			}
		}
		for _, p := range pkgs {
			all[p] = true
		}
		name := fmt.Sprintf("patch %d", i+1)
		if i < len(parsed) {
			name = parsed[i].Name
		}
		s.printf("check: %s: go build %s\n", name, strings.Join(pkgs, " "))
		if msg, err := runIn(repo, gocmd, append([]string{"build"}, pkgs...)...); err != nil {
			problems = append(problems, fmt.Sprintf("series prefix ending at %s does not compile:\n%s", name, msg))
		}
		if len(gofiles) > 0 {
			msg, err := runIn(repo, gofmt, append([]string{"-l"}, gofiles...)...)
			if err != nil || strings.TrimSpace(msg) != "" {
				problems = append(problems, fmt.Sprintf("%s: not gofmt-clean: %s", name, strings.TrimSpace(msg)))
			}
		}
	}
	var vetPkgs []string
	for p := range all {
		if _, err := os.Stat(filepath.Join(repo, "src", p)); err == nil {
			vetPkgs = append(vetPkgs, p)
		}
	}
	sort.Strings(vetPkgs)
	s.printf("check: go vet %s (with tests)\n", strings.Join(vetPkgs, " "))
	if msg, err := runIn(repo, gocmd, append([]string{"vet"}, vetPkgs...)...); err != nil {
		problems = append(problems, "go vet on the whole series:\n"+msg)
	}
	// The runtime's tests are compiled for two 32-bit targets as well:
	// a 64-bit-only mistake (an atomic.Uint64 in a runtime local, which
	// only the heap aligns there) breaks every 32-bit builder.
	for _, arch := range CrossTestArchs {
		s.printf("check: GOARCH=%s go test -c runtime\n", arch)
		if msg, err := runInEnv(repo, []string{"GOOS=linux", "GOARCH=" + arch}, gocmd, "test", "-c", "-o", os.DevNull, "runtime"); err != nil {
			problems = append(problems, fmt.Sprintf("GOARCH=%s go test -c runtime fails:\n%s", arch, msg))
		}
	}
	return problems, nil
}

// CrossTestArchs are the GOARCH values (linux) for which make check
// compiles the runtime's test binary besides the host's.
var CrossTestArchs = []string{"386", "arm"}

// How a patch applies onto another release, as CheckRebase reports it.
const (
	applyClean    = "clean"    // git am, no merge needed
	applyThreeWay = "3-way"    // git am -3: the context moved, a 3-way merge resolved it
	applyConflict = "conflict" // a 3-way merge left conflicts: make rebase would stop here
	applyNotTried = "not tried"
)

// PatchApply is one row of CheckRebase's report.
type PatchApply struct {
	Patch, Result, Detail string
}

// applyEach applies files onto repo one at a time, first as they are and,
// where that fails, with a 3-way merge. It stops at the first conflict
// (later patches build on it) and marks the rest not tried.
func applyEach(repo string, files []string) []PatchApply {
	g := git{dir: repo}
	var rows []PatchApply
	stopped := false
	for _, f := range files {
		row := PatchApply{Patch: filepath.Base(f)}
		switch {
		case stopped:
			row.Result = applyNotTried
		case amOne(g, f, false) == nil:
			row.Result = applyClean
		default:
			g.run("am", "--abort")
			if err := amOne(g, f, true); err != nil {
				row.Result, row.Detail = applyConflict, err.Error()
				g.run("am", "--abort")
				stopped = true
			} else {
				row.Result = applyThreeWay
			}
		}
		rows = append(rows, row)
	}
	return rows
}

// CheckRebase tries the series on another upstream release without
// touching toolchain/goroot or the pin: a scratch repository holding that
// release, each patch applied in turn (clean, 3-way or conflict), and every
// prefix that applied compiled with that release's go command, as Check
// does for the pinned one. It is how the series stays honest on a release
// line it is not pinned to.
func (s *Series) CheckRebase(version string) error {
	if !validRelease(version) {
		return fmt.Errorf("UPSTREAM=%q is not a Go release name like go1.27.3", version)
	}
	stock, err := s.StockFor(version)
	if err != nil {
		return err
	}
	files, parsed, bad, err := s.readSeries()
	if err != nil {
		return err
	}
	if len(bad) > 0 {
		return fmt.Errorf("%s", strings.Join(bad, "\n"))
	}
	tmp, err := os.MkdirTemp("", "schedlab-check-rebase-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	repo := filepath.Join(tmp, "goroot")
	s.printf("check-rebase: applying %d patches onto %s in a scratch repository\n", len(files), version)
	if err := s.initRebaseScratch(repo, stock, version, files); err != nil {
		return err
	}
	rows := applyEach(repo, files)
	applied, counts := 0, map[string]int{}
	for _, r := range rows {
		counts[r.Result]++
		if r.Result == applyClean || r.Result == applyThreeWay {
			applied++
		}
		s.printf("  %-9s %s\n", r.Result, r.Patch)
		if r.Detail != "" {
			s.printf("            %s\n", strings.ReplaceAll(r.Detail, "\n", "\n            "))
		}
	}
	var problems []string
	if applied > 0 && stock != "" {
		if _, err := os.Stat(filepath.Join(stock, "bin", "go")); err == nil {
			compiled, err := s.compilePrefixes(repo, stock, parsed[:applied])
			if err != nil {
				return err
			}
			problems = append(problems, compiled...)
		}
	}
	summary := fmt.Sprintf("%d clean, %d 3-way, %d conflict, %d not tried", counts[applyClean], counts[applyThreeWay], counts[applyConflict], counts[applyNotTried])
	if counts[applyConflict] > 0 {
		problems = append(problems, fmt.Sprintf("the series does not apply onto %s (%s): make rebase UPSTREAM=%s would stop at the conflict above", version, summary, version))
	}
	if len(problems) > 0 {
		return fmt.Errorf("check-rebase %s failed:\n  %s", version, strings.Join(problems, "\n  "))
	}
	s.printf("check-rebase: ok: onto %s %s; every prefix compiles (the pin is unchanged)\n", version, summary)
	return nil
}

// initRebaseScratch makes repo hold the series applied to the pinned
// release and, as an orphan commit tagged UpstreamTag, the release at
// stock. The old history's blobs are what a 3-way merge needs: each
// patch's index lines name the blobs its hunks apply to, which exist only
// where the series was applied to the release it was extracted from (as
// in toolchain/goroot during make rebase).
func (s *Series) initRebaseScratch(repo, stock, version string, files []string) error {
	pin, err := s.ReadPin()
	if err != nil {
		return err
	}
	pinned, err := s.Stock(pin)
	if err != nil {
		return err
	}
	if err := initUpstream(repo, pinned, pin.Version); err != nil {
		return err
	}
	g := git{dir: repo}
	for _, f := range files {
		if err := amOne(g, f, false); err != nil {
			return fmt.Errorf("the series does not apply to its own pin %s: %v", pin.Version, err)
		}
	}
	if _, err := g.run("checkout", "-q", "--orphan", "onto-"+version); err != nil {
		return err
	}
	if _, err := g.run("rm", "-rfq", "--cached", "."); err != nil {
		return err
	}
	if err := clearTree(repo); err != nil {
		return err
	}
	if err := copyRelease(stock, repo); err != nil {
		return err
	}
	return commitTree(g, "upstream "+version, UpstreamTag)
}

// readSeries lists and parses patches/. A file that does not parse is
// described in bad and left out of parsed.
func (s *Series) readSeries() (files []string, parsed []Patch, bad []string, err error) {
	if files, err = s.PatchFiles(); err != nil {
		return nil, nil, nil, err
	}
	if len(files) == 0 {
		return nil, nil, nil, fmt.Errorf("patches/ is empty")
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, nil, nil, err
		}
		p, err := ParsePatch(filepath.Base(f), data)
		if err != nil {
			bad = append(bad, err.Error())
			continue
		}
		parsed = append(parsed, p)
	}
	return files, parsed, bad, nil
}
