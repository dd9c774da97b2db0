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
	files, err := s.PatchFiles()
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return fmt.Errorf("patches/ is empty")
	}
	var problems []string

	// Message rules.
	var parsed []Patch
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		p, err := ParsePatch(filepath.Base(f), data)
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		problems = append(problems, p.Lint()...)
		parsed = append(parsed, p)
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
	if err := os.Symlink(filepath.Join(stock, "pkg"), filepath.Join(repo, "pkg")); err != nil {
		return err
	}
	commits, err := g.run("rev-list", "--reverse", UpstreamTag+"..HEAD")
	if err != nil {
		return err
	}
	gocmd := filepath.Join(stock, "bin", "go")
	gofmt := filepath.Join(stock, "bin", "gofmt")
	all := map[string]bool{}
	for i, c := range strings.Fields(commits) {
		if _, err := g.run("checkout", "-q", "--detach", c); err != nil {
			return err
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
	if len(problems) > 0 {
		return fmt.Errorf("check failed:\n  %s", strings.Join(problems, "\n  "))
	}
	s.printf("check: ok: %d patches apply cleanly onto %s, re-extract byte-for-byte, follow the message rules, and every prefix compiles\n", len(files), pin.Version)
	return nil
}

// runIn runs a stock go tool against the GOROOT at repo.
func runIn(repo, tool string, args ...string) (string, error) {
	cmd := exec.Command(tool, args...)
	cmd.Dir = filepath.Join(repo, "src")
	cmd.Env = ToolchainEnv(repo)
	out, err := cmd.CombinedOutput()
	return string(out), err
}
