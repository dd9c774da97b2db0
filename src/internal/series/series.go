package series

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// UpstreamTag names the commit holding the pristine release in the GOROOT
// repository; every commit after it is one patch.
const UpstreamTag = "upstream"

// Series is one checkout of schedlab: where its pin, patches and patched
// GOROOT live.
type Series struct {
	Root    string    // repository root
	GOROOT  string    // the patched GOROOT git repository (toolchain/goroot)
	Patches string    // patches/
	Pin     string    // toolchain/UPSTREAM
	Rev     string    // toolchain/REVISION: the fork revision N in goX-schedlab.N
	Out     io.Writer // progress and reports
	// Stock returns the verified upstream GOROOT for a pin. Tests replace
	// it with a small fake tree.
	Stock func(Pin) (string, error)
	// StockFor locates an unpinned release for rebase.
	StockFor func(version string) (string, error)
}

// New returns the Series rooted at root with the standard layout.
func New(root string) *Series {
	return &Series{
		Root:     root,
		GOROOT:   filepath.Join(root, "toolchain", "goroot"),
		Patches:  filepath.Join(root, "patches"),
		Pin:      filepath.Join(root, "toolchain", "UPSTREAM"),
		Rev:      filepath.Join(root, "toolchain", "REVISION"),
		Out:      os.Stdout,
		Stock:    VerifiedStock,
		StockFor: StockGOROOT,
	}
}

func (s *Series) printf(format string, args ...any) { fmt.Fprintf(s.Out, format, args...) }

// ReadPin reads toolchain/UPSTREAM.
func (s *Series) ReadPin() (Pin, error) {
	data, err := os.ReadFile(s.Pin)
	if err != nil {
		return Pin{}, err
	}
	p, err := ParsePin(data)
	if err != nil {
		return Pin{}, fmt.Errorf("%s: %v", s.Pin, err)
	}
	return p, nil
}

// Revision reads the fork revision number.
func (s *Series) Revision() (int, error) {
	data, err := os.ReadFile(s.Rev)
	if err != nil {
		return 0, err
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil || n < 1 {
		return 0, fmt.Errorf("%s: want a positive integer, got %q", s.Rev, strings.TrimSpace(string(data)))
	}
	return n, nil
}

// StampedVersion is the version the built toolchain reports:
// go1.X.Y-schedlab.N-<series hash>. The hash makes two different series
// print different versions even when the fork revision N was not bumped;
// the go command reads everything after the first '-' as a build suffix,
// so the toolchain still counts as go1.X.Y.
func StampedVersion(upstream string, rev int, seriesHash string) string {
	return fmt.Sprintf("%s-schedlab.%d-%s", upstream, rev, seriesHash)
}

// Version is the version the toolchain built from this checkout reports.
func (s *Series) Version() (string, error) {
	pin, err := s.ReadPin()
	if err != nil {
		return "", err
	}
	rev, err := s.Revision()
	if err != nil {
		return "", err
	}
	hash, err := s.SeriesHash()
	if err != nil {
		return "", err
	}
	return StampedVersion(pin.Version, rev, hash), nil
}

// PatchFiles lists patches/*.patch in application order.
func (s *Series) PatchFiles() ([]string, error) {
	files, err := filepath.Glob(filepath.Join(s.Patches, "*.patch"))
	sort.Strings(files)
	return files, err
}

func (s *Series) git() git { return git{dir: s.GOROOT} }

// appliedRecord is where apply and extract note the commit at which
// toolchain/goroot and patches/ agreed (microsoft/go's HEAD_AFTER_APPLY).
func (s *Series) appliedRecord() string {
	return filepath.Join(s.GOROOT, ".git", "schedlab-applied")
}

// copyRelease copies a release GOROOT into dir, leaving out the built
// binaries (bin/, pkg/) that make.bash regenerates, and makes it writable
// (the module cache copy is read-only).
func copyRelease(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if rel == "bin" || rel == "pkg" {
			return filepath.SkipDir
		}
		target := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.MkdirAll(target, 0o755)
		case d.Type()&fs.ModeSymlink != 0:
			link, err := os.Readlink(path)
			if err != nil {
				return err
			}
			return os.Symlink(link, target)
		default:
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			return os.WriteFile(target, data, info.Mode().Perm()|0o200)
		}
	})
}

// initUpstream makes dir a git repository holding one commit, the pristine
// release, tagged UpstreamTag.
func initUpstream(dir, stock, version string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := copyRelease(stock, dir); err != nil {
		return fmt.Errorf("copying %s: %v", stock, err)
	}
	g := git{dir: dir}
	if _, err := g.run("init", "-q"); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, ".git", "info", "exclude"), []byte("/bin/\n/pkg/\n"), 0o644); err != nil {
		return err
	}
	return commitTree(g, "upstream "+version, UpstreamTag)
}

// commitTree commits the whole working tree with a fixed identity and date,
// then points tag at it.
func commitTree(g git, msg, tag string) error {
	if _, err := g.run("add", "-A"); err != nil {
		return err
	}
	cmd := g.cmd("commit", "-q", "--no-verify", "--allow-empty", "-m", msg)
	cmd.Env = append(cmd.Env,
		"GIT_AUTHOR_NAME=Go release", "GIT_AUTHOR_EMAIL=release@golang.org",
		"GIT_AUTHOR_DATE=2000-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2000-01-01T00:00:00Z")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("git commit: %v\n%s", err, out)
	}
	_, err := g.run("tag", "-f", tag)
	return err
}

// upstreamVersion returns the release the GOROOT repository's upstream
// commit holds, from its subject.
func (s *Series) upstreamVersion() string {
	subj, err := s.git().run("log", "-1", "--format=%s", UpstreamTag)
	if err != nil {
		return ""
	}
	return strings.TrimPrefix(subj, "upstream ")
}

// ErrUnsafe is wrapped by refusals to discard work in toolchain/goroot.
var ErrUnsafe = errors.New("refusing to discard work in toolchain/goroot")

// guard checks that resetting toolchain/goroot loses nothing: no operation
// in progress, no uncommitted changes, no commits newer than the last apply
// or extract that patches/ does not hold. With force it saves what it would
// otherwise lose (a stash and a backup tag) and goes on.
func (s *Series) guard(force bool) error {
	if _, err := os.Stat(s.GOROOT); os.IsNotExist(err) {
		return nil
	}
	if _, err := os.Stat(filepath.Join(s.GOROOT, ".git")); err != nil {
		return fmt.Errorf("%w: %s exists but is not a git repository; move it away or remove it", ErrUnsafe, s.GOROOT)
	}
	g := s.git()
	for _, op := range []string{"rebase-apply", "rebase-merge"} {
		if _, err := os.Stat(filepath.Join(s.GOROOT, ".git", op)); err == nil {
			if !force {
				return fmt.Errorf("%w: a git am or rebase is in progress in %s; finish it (git am --continue, then make extract) or abort it (git am --abort), or rerun with FORCE=1", ErrUnsafe, s.GOROOT)
			}
			g.run("am", "--abort")
			g.run("rebase", "--abort")
		}
	}
	if dirty := s.dirtyFiles(); len(dirty) > 0 {
		if !force {
			return fmt.Errorf("%w: uncommitted changes in %s:\n\t%s\ncommit them and run make extract, or rerun with FORCE=1 (they are stashed, not deleted)",
				ErrUnsafe, s.GOROOT, strings.Join(dirty, "\n\t"))
		}
		if _, err := g.run("stash", "push", "-u", "-q", "-m", "schedlab: saved by FORCE=1 at "+time.Now().Format(time.RFC3339)); err != nil {
			return err
		}
		s.printf("series: uncommitted changes saved with git stash in %s\n", s.GOROOT)
	}
	head, err := g.run("rev-parse", "HEAD")
	if err != nil {
		return nil // no commits yet: nothing to lose
	}
	if rec, _ := os.ReadFile(s.appliedRecord()); strings.TrimSpace(string(rec)) == head {
		return nil
	}
	if same, err := s.headMatchesPatches(); err == nil && same {
		return nil
	}
	if !force {
		log, _ := g.run("log", "--oneline", UpstreamTag+"..HEAD")
		return fmt.Errorf("%w: %s has commits that are not in patches/:\n%s\nrun make extract to keep them, or rerun with FORCE=1 (a backup tag keeps them)", ErrUnsafe, s.GOROOT, log)
	}
	tag := "schedlab-backup-" + time.Now().UTC().Format("20060102T150405Z")
	if _, err := g.run("tag", tag, head); err != nil {
		return err
	}
	s.printf("series: commits saved as tag %s in %s\n", tag, s.GOROOT)
	return nil
}

// stampFiles are the tracked files that the version stamp and make.bash
// rewrite: VERSION, and the zbootstrap.go that cmd/dist generates from it.
var stampFiles = []string{"VERSION", "src/internal/buildcfg/zbootstrap.go"}

// dirtyFiles lists changed or untracked paths, ignoring the version stamp.
func (s *Series) dirtyFiles() []string {
	out, err := s.git().run("status", "--porcelain", "--untracked-files=all")
	if err != nil || out == "" {
		return nil
	}
	var dirty []string
	for _, line := range strings.Split(out, "\n") {
		if len(line) > 3 && slices.Contains(stampFiles, line[3:]) && s.onlyStamped(line[3:]) {
			continue
		}
		dirty = append(dirty, line)
	}
	return dirty
}

// onlyStamped reports whether file differs from its committed version only
// by the -schedlab.N-<hash> suffix on the upstream version.
func (s *Series) onlyStamped(file string) bool {
	cur, err := os.ReadFile(filepath.Join(s.GOROOT, file))
	if err != nil {
		return false
	}
	orig, err := s.git().run("show", "HEAD:"+file)
	if err != nil {
		return false
	}
	committedVersion, _ := s.git().run("show", "HEAD:VERSION")
	upstream, _, _ := strings.Cut(committedVersion, "\n")
	re := regexp.MustCompile(regexp.QuoteMeta(upstream) + `-schedlab\.[0-9]+(-[0-9a-f]{12})?`)
	return strings.TrimRight(re.ReplaceAllString(string(cur), upstream), "\n") == strings.TrimRight(orig, "\n")
}

// headMatchesPatches reports whether extracting toolchain/goroot now would
// reproduce patches/ exactly.
func (s *Series) headMatchesPatches() (bool, error) {
	tmp, err := os.MkdirTemp("", "schedlab-extract-")
	if err != nil {
		return false, err
	}
	defer os.RemoveAll(tmp)
	if err := formatPatches(s.git(), tmp); err != nil {
		return false, err
	}
	diff, err := diffDirs(s.Patches, tmp)
	return err == nil && len(diff) == 0, err
}

// formatPatches writes the commits after UpstreamTag as normalised patch
// files into dir.
func formatPatches(g git, dir string) error {
	_, err := g.run("format-patch", "-q", "--zero-commit", "--no-numbered", "--no-signature",
		"--abbrev=14", "--no-cover-letter", "-o", dir, UpstreamTag+"..HEAD")
	return err
}

// diffDirs compares the *.patch files of two directories and describes each
// difference; empty means identical.
func diffDirs(a, b string) ([]string, error) {
	read := func(dir string) (map[string][]byte, error) {
		files, err := filepath.Glob(filepath.Join(dir, "*.patch"))
		if err != nil {
			return nil, err
		}
		m := map[string][]byte{}
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				return nil, err
			}
			m[filepath.Base(f)] = data
		}
		return m, nil
	}
	ma, err := read(a)
	if err != nil {
		return nil, err
	}
	mb, err := read(b)
	if err != nil {
		return nil, err
	}
	var diffs []string
	for name, data := range ma {
		other, ok := mb[name]
		switch {
		case !ok:
			diffs = append(diffs, "only in "+a+": "+name)
		case !bytes.Equal(data, other):
			diffs = append(diffs, "differs: "+name)
		}
	}
	for name := range mb {
		if _, ok := ma[name]; !ok {
			diffs = append(diffs, "only in "+b+": "+name)
		}
	}
	sort.Strings(diffs)
	return diffs, nil
}

// Apply resets toolchain/goroot to the pinned upstream and applies the
// series, one commit per patch. It creates the repository when missing or
// when it holds another upstream release.
func (s *Series) Apply(force bool) error {
	pin, err := s.ReadPin()
	if err != nil {
		return err
	}
	if err := s.guard(force); err != nil {
		return err
	}
	if err := s.ensureUpstream(pin); err != nil {
		return err
	}
	g := s.git()
	g.run(append([]string{"update-index", "--no-skip-worktree", "--"}, stampFiles...)...)
	if _, err := g.run("checkout", "-q", "-f", "-B", "schedlab", UpstreamTag); err != nil {
		return err
	}
	if _, err := g.run("clean", "-fdq"); err != nil {
		return err
	}
	patches, err := s.PatchFiles()
	if err != nil {
		return err
	}
	for _, p := range patches {
		if err := amOne(g, p, true); err != nil {
			return fmt.Errorf("%v\nThe series stops before %s; toolchain/goroot is left mid-am at that patch.\n"+
				"Fix it there (resolve, git add, git am --continue; or git am --skip), then run make extract,\n"+
				"or repair the series with make rebase if upstream moved", err, filepath.Base(p))
		}
	}
	head, err := g.run("rev-parse", "HEAD")
	if err != nil {
		return err
	}
	s.printf("series: applied %d patches onto %s in %s\n", len(patches), pin.Version, s.GOROOT)
	return os.WriteFile(s.appliedRecord(), []byte(head+"\n"), 0o644)
}

// amOne applies one patch file; threeWay enables 3-way merges against the
// blobs the patch names.
func amOne(g git, patch string, threeWay bool) error {
	args := []string{"am", "-q", "--committer-date-is-author-date"}
	if threeWay {
		args = append(args, "-3")
	}
	if _, err := g.run(append(args, patch)...); err != nil {
		conflicts, _ := g.run("diff", "--name-only", "--diff-filter=U")
		msg := fmt.Sprintf("patch %s does not apply", filepath.Base(patch))
		if conflicts != "" {
			msg += "; conflicts in:\n\t" + strings.ReplaceAll(conflicts, "\n", "\n\t")
		}
		return fmt.Errorf("%s\n(%v)", msg, firstLines(err.Error(), 12))
	}
	return nil
}

func firstLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = append(lines[:n], "…")
	}
	return strings.Join(lines, "\n")
}

// ensureUpstream makes sure toolchain/goroot exists and its upstream commit
// holds pin.Version, recreating the repository when it holds another.
func (s *Series) ensureUpstream(pin Pin) error {
	if _, err := os.Stat(filepath.Join(s.GOROOT, ".git")); err == nil {
		if v := s.upstreamVersion(); v == pin.Version {
			return nil
		} else {
			s.printf("series: %s holds upstream %q, pin is %s: recreating it\n", s.GOROOT, v, pin.Version)
			old := s.GOROOT + ".old-" + time.Now().UTC().Format("20060102T150405Z")
			if err := os.Rename(s.GOROOT, old); err != nil {
				return err
			}
			s.printf("series: previous tree moved to %s\n", old)
		}
	}
	stock, err := s.Stock(pin)
	if err != nil {
		return err
	}
	s.printf("series: creating %s from %s\n", s.GOROOT, stock)
	return initUpstream(s.GOROOT, stock, pin.Version)
}

// Extract regenerates patches/ from the commits after UpstreamTag.
func (s *Series) Extract() error {
	g := s.git()
	if _, err := os.Stat(filepath.Join(s.GOROOT, ".git", "rebase-apply")); err == nil {
		return errors.New("a git am is in progress in toolchain/goroot: finish it (git am --continue) before extracting")
	}
	n, err := g.run("rev-list", "--count", UpstreamTag+"..HEAD")
	if err != nil {
		return fmt.Errorf("toolchain/goroot is not set up (run make apply): %v", err)
	}
	if n == "0" {
		return errors.New("toolchain/goroot has no commits after upstream: extracting would empty patches/; run make apply first")
	}
	if dirty := s.dirtyFiles(); len(dirty) > 0 {
		s.printf("series: warning: uncommitted changes are not extracted:\n\t%s\n", strings.Join(dirty, "\n\t"))
	}
	tmp, err := os.MkdirTemp("", "schedlab-extract-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if err := formatPatches(g, tmp); err != nil {
		return err
	}
	diff, err := diffDirs(s.Patches, tmp)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(s.Patches, 0o755); err != nil {
		return err
	}
	old, _ := s.PatchFiles()
	for _, f := range old {
		if err := os.Remove(f); err != nil {
			return err
		}
	}
	fresh, _ := filepath.Glob(filepath.Join(tmp, "*.patch"))
	for _, f := range fresh {
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(s.Patches, filepath.Base(f)), data, 0o644); err != nil {
			return err
		}
	}
	head, _ := g.run("rev-parse", "HEAD")
	if err := os.WriteFile(s.appliedRecord(), []byte(head+"\n"), 0o644); err != nil {
		return err
	}
	if len(diff) == 0 {
		s.printf("series: extracted %s patches; patches/ unchanged\n", n)
	} else {
		s.printf("series: extracted %s patches:\n\t%s\n", n, strings.Join(diff, "\n\t"))
	}
	return nil
}

// InputsHash identifies everything the built toolchain depends on: the pin,
// the fork revision and the series.
func (s *Series) InputsHash() (string, error) {
	patches, err := s.PatchFiles()
	if err != nil {
		return "", err
	}
	return hashFiles(append([]string{s.Pin, s.Rev}, patches...))
}

// SeriesHash is a short hash of patches/ alone, for result metadata.
func (s *Series) SeriesHash() (string, error) { return HashPatches(s.Patches) }

// HashPatches identifies the series in dir: sha256 over dir/*.patch in
// sorted order, hashing for each file its base name, a space, its length
// in decimal, a newline and its content; the first 12 hex digits. An empty
// or missing directory hashes the empty input.
func HashPatches(dir string) (string, error) {
	patches, err := filepath.Glob(filepath.Join(dir, "*.patch"))
	if err != nil {
		return "", err
	}
	sort.Strings(patches)
	sum, err := hashFiles(patches)
	if err != nil {
		return "", err
	}
	return sum[:12], nil
}

// hashFiles returns the hex sha256 over files in the given order, hashing
// for each its base name, a space, its length in decimal, a newline and its
// content.
func hashFiles(files []string) (string, error) {
	h := sha256.New()
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s %d\n", filepath.Base(f), len(data))
		h.Write(data)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
