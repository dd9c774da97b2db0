package series

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// builtRecord holds the InputsHash of the last successful toolchain build.
func (s *Series) builtRecord() string {
	return filepath.Join(s.GOROOT, ".git", "schedlab-built")
}

// UpToDate reports whether toolchain/goroot holds a build of the current
// pin, revision and series.
func (s *Series) UpToDate() bool {
	want, err := s.InputsHash()
	if err != nil {
		return false
	}
	got, err := os.ReadFile(s.builtRecord())
	if err != nil || strings.TrimSpace(string(got)) != want {
		return false
	}
	if _, err := os.Stat(filepath.Join(s.GOROOT, "bin", "go")); err != nil {
		return false
	}
	same, err := s.headMatchesPatches()
	return err == nil && same && len(s.dirtyFiles()) == 0
}

// Build applies the series when toolchain/goroot does not already hold it,
// stamps the version and runs make.bash with the stock release as bootstrap.
// Without force it does nothing when the build is up to date.
func (s *Series) Build(force bool) error {
	if !force && s.UpToDate() {
		s.printf("series: toolchain up to date (%s)\n", s.GOROOT)
		return nil
	}
	pin, err := s.ReadPin()
	if err != nil {
		return err
	}
	version, err := s.Version()
	if err != nil {
		return err
	}
	stock, err := s.Stock(pin)
	if err != nil {
		return err
	}
	same := false
	if _, err := os.Stat(filepath.Join(s.GOROOT, ".git")); err == nil && s.upstreamVersion() == pin.Version {
		same, _ = s.headMatchesPatches()
	}
	if !same || len(s.dirtyFiles()) > 0 {
		if err := s.Apply(false); err != nil {
			return err
		}
	}
	if err := stampVersion(filepath.Join(s.GOROOT, "VERSION"), version); err != nil {
		return err
	}
	// Hide the stamp (and the zbootstrap.go make.bash derives from it)
	// from git, so a developer's "git commit -a" in toolchain/goroot cannot
	// fold it into a patch. Apply undoes this before resetting the tree.
	if _, err := s.git().run(append([]string{"update-index", "--skip-worktree", "--"}, stampFiles...)...); err != nil {
		return err
	}
	os.Remove(s.builtRecord())
	if err := makeBash(s.GOROOT, stock, s.Out); err != nil {
		return err
	}
	got, err := GoVersion(s.GOROOT)
	if err != nil {
		return err
	}
	if got != version {
		return fmt.Errorf("built toolchain reports %q, want %q", got, version)
	}
	hash, err := s.InputsHash()
	if err != nil {
		return err
	}
	s.printf("series: built %s in %s\n", version, s.GOROOT)
	return os.WriteFile(s.builtRecord(), []byte(hash+"\n"), 0o644)
}

// stampVersion rewrites the first line of a GOROOT's VERSION file, which
// cmd/dist compiles into runtime.Version and the go command.
func stampVersion(file, version string) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	_, rest, _ := strings.Cut(string(data), "\n")
	return os.WriteFile(file, []byte(version+"\n"+rest), 0o644)
}

// ToolchainEnv is the environment for running a toolchain's go command:
// GOROOT set explicitly and GOTOOLCHAIN=local, because with any other
// GOTOOLCHAIN (a leftover go1.27.3, say) the go command may re-execute the
// stock release and everything silently runs unpatched.
func ToolchainEnv(goroot string) []string {
	return append(cleanGoEnv(os.Environ()), "GOROOT="+goroot, "GOTOOLCHAIN=local")
}

// GoVersion runs goroot/bin/go env GOVERSION.
func GoVersion(goroot string) (string, error) {
	cmd := exec.Command(filepath.Join(goroot, "bin", "go"), "env", "GOVERSION")
	cmd.Env = ToolchainEnv(goroot)
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%s/bin/go env GOVERSION: %v", goroot, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// makeBash builds goroot from source with bootstrap as GOROOT_BOOTSTRAP.
func makeBash(goroot, bootstrap string, out io.Writer) error {
	cmd := exec.Command("bash", "make.bash") // the module-cache release has no exec bits on scripts
	cmd.Dir = filepath.Join(goroot, "src")
	cmd.Env = append(cleanGoEnv(os.Environ()), "GOROOT_BOOTSTRAP="+bootstrap, "GOTOOLCHAIN=local")
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("make.bash in %s failed: %v", cmd.Dir, err)
	}
	return nil
}

// reproFiles are the release binaries verify-repro compares.
func reproFiles() []string {
	tool := filepath.Join("pkg", "tool", runtime.GOOS+"_"+runtime.GOARCH)
	return []string{
		filepath.Join("bin", "go"), filepath.Join("bin", "gofmt"),
		filepath.Join(tool, "compile"), filepath.Join(tool, "link"), filepath.Join(tool, "asm"),
	}
}

// SHA256File returns the hex sha256 of a file.
func SHA256File(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// VerifyRepro builds the pinned upstream with no patches in dir and checks
// that its main binaries are byte-identical to the official release: the
// proof that a stock-vs-patched comparison differs by the patches alone.
func (s *Series) VerifyRepro(dir string) error {
	pin, err := s.ReadPin()
	if err != nil {
		return err
	}
	stock, err := s.Stock(pin)
	if err != nil {
		return err
	}
	os.RemoveAll(dir)
	if err := copyRelease(stock, dir); err != nil {
		return err
	}
	s.printf("series: building unpatched %s in %s\n", pin.Version, dir)
	var log bytes.Buffer
	if err := makeBash(dir, stock, &log); err != nil {
		return fmt.Errorf("%v\n%s", err, log.String())
	}
	bad := 0
	for _, f := range reproFiles() {
		a, err := SHA256File(filepath.Join(stock, f))
		if err != nil {
			return err
		}
		b, err := SHA256File(filepath.Join(dir, f))
		if err != nil {
			return err
		}
		verdict := "identical"
		if a != b {
			verdict = "DIFFERENT (built " + b[:16] + ")"
			bad++
		}
		s.printf("%-28s %s  %s\n", f, a[:16], verdict)
	}
	if bad > 0 {
		return fmt.Errorf("verify-repro: %d of %d binaries differ from the official %s; A/B comparisons would mix build differences into the results (build kept in %s)", bad, len(reproFiles()), pin.Version, dir)
	}
	s.printf("series: a from-source build of %s is byte-identical to the official release\n", pin.Version)
	return os.RemoveAll(dir)
}
