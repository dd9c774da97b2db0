package series

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// nextTag marks, during a rebase, the commit holding the new upstream.
const nextTag = "upstream-next"

// Rebase moves the series onto another upstream release. It commits the new
// release as an orphan commit in toolchain/goroot and applies the patches
// one by one with 3-way merges. On a conflict it names the patch and the
// files and leaves the am in progress for the developer to resolve; running
// Rebase again with the same version after "git am --continue" resumes with
// the next patch. On success it moves the upstream tag, re-pins and extracts.
func (s *Series) Rebase(version string) error {
	if !validRelease(version) {
		return fmt.Errorf("UPSTREAM=%q is not a Go release name like go1.27.3", version)
	}
	g := s.git()
	patches, err := s.PatchFiles()
	if err != nil {
		return err
	}
	if len(patches) == 0 {
		return fmt.Errorf("patches/ is empty: nothing to rebase")
	}
	if _, err := os.Stat(filepath.Join(s.GOROOT, ".git", "rebase-apply")); err == nil {
		return fmt.Errorf("a git am is in progress in %s: resolve the conflict, git add the files and run git am --continue (or git am --skip), then rerun make rebase UPSTREAM=%s", s.GOROOT, version)
	}
	if _, err := os.Stat(filepath.Join(s.GOROOT, ".git")); os.IsNotExist(err) {
		// A fresh clone has no toolchain/goroot yet: create it at the
		// pinned release first, so that the rebase starts from the series
		// as committed and records the old release under upstream-<old>.
		s.printf("rebase: %s does not exist yet; applying the series to the pinned release first\n", s.GOROOT)
		if err := s.Apply(false); err != nil {
			return err
		}
	}
	resuming := g.ok("rev-parse", "-q", "--verify", "refs/tags/"+nextTag) && s.subjectOf(nextTag) == "upstream "+version
	if !resuming {
		if err := s.guard(false); err != nil {
			return err
		}
		stock, err := s.StockFor(version)
		if err != nil {
			return err
		}
		s.printf("rebase: committing %s as the new base in %s\n", version, s.GOROOT)
		g.run(append([]string{"update-index", "--no-skip-worktree", "--"}, stampFiles...)...)
		if _, err := g.run("checkout", "-q", "-f", "--orphan", "rebase-"+version); err != nil {
			return err
		}
		if _, err := g.run("rm", "-rfq", "--cached", "."); err != nil {
			return err
		}
		if err := clearTree(s.GOROOT); err != nil {
			return err
		}
		if err := copyRelease(stock, s.GOROOT); err != nil {
			return err
		}
		if err := commitTree(g, "upstream "+version, nextTag); err != nil {
			return err
		}
	}
	n, err := g.run("rev-list", "--count", nextTag+"..HEAD")
	if err != nil {
		return err
	}
	done, _ := strconv.Atoi(n)
	for i := done; i < len(patches); i++ {
		s.printf("rebase: applying %s\n", filepath.Base(patches[i]))
		if err := amOne(g, patches[i], true); err != nil {
			return fmt.Errorf("rebase onto %s stopped: %v\n\nResolve it in %s: edit the conflicted files, git add them, git am --continue;\n"+
				"then rerun make rebase UPSTREAM=%s to apply the remaining %d patches.\n"+
				"To give up: make apply FORCE=1 (returns to the pinned release; the new commits stay under tag %s).",
				version, err, s.GOROOT, version, len(patches)-i-1, nextTag)
		}
	}
	stock, err := s.StockFor(version)
	if err != nil {
		return err
	}
	sum, err := ChecksumDir(stock)
	if err != nil {
		return err
	}
	if old := s.upstreamVersion(); old != "" {
		g.run("tag", "-f", "upstream-"+old, UpstreamTag)
	}
	if _, err := g.run("tag", "-f", UpstreamTag, nextTag); err != nil {
		return err
	}
	g.run("tag", "-d", nextTag)
	g.run("branch", "-f", "schedlab", "HEAD")
	g.run("checkout", "-q", "schedlab")
	if err := os.WriteFile(s.Pin, Pin{Version: version, Checksum: sum}.Format(), 0o644); err != nil {
		return err
	}
	if err := s.Extract(); err != nil {
		return err
	}
	s.printf("rebase: series rebased onto %s; toolchain/UPSTREAM re-pinned. Build and test it (make toolchain test) before committing.\n", version)
	return nil
}

func (s *Series) subjectOf(rev string) string {
	out, _ := s.git().run("log", "-1", "--format=%s", rev)
	return out
}

// clearTree removes everything in dir except .git and the ignored build
// outputs.
func clearTree(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		switch e.Name() {
		case ".git", "bin", "pkg":
			continue
		}
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	return nil
}
