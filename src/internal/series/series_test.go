package series

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// fakeRelease writes a tiny GOROOT-shaped tree standing in for a release.
func fakeRelease(t *testing.T, version, sched string) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"VERSION":             version + "\ntime 2026-10-19T22:20:36Z\n",
		"go.env":              "GOTOOLCHAIN=auto\n",
		"src/runtime/proc.go": "package runtime\n\n" + sched,
		"src/runtime/os.go":   "package runtime\n\nconst os = 1\n",
		"bin/go":              "binary, must not be copied\n",
		"pkg/tool/x":          "binary, must not be copied\n",
	}
	for name, data := range files {
		path := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(data), 0o444); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// testSeries sets up a schedlab checkout pinned to a fake release.
func testSeries(t *testing.T, releases map[string]string) *Series {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	root := t.TempDir()
	s := New(root)
	s.Out = &bytes.Buffer{}
	os.MkdirAll(s.Patches, 0o755)
	os.MkdirAll(filepath.Dir(s.Pin), 0o755)
	sum, err := ChecksumDir(releases["go1.98.0"])
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(s.Pin, Pin{Version: "go1.98.0", Checksum: sum}.Format(), 0o644)
	os.WriteFile(s.Rev, []byte("3\n"), 0o644)
	s.Stock = func(p Pin) (string, error) {
		dir := releases[p.Version]
		got, err := ChecksumDir(dir)
		if err != nil {
			return "", err
		}
		if got != p.Checksum {
			return "", errors.New("checksum mismatch")
		}
		return dir, nil
	}
	s.StockFor = func(v string) (string, error) { return releases[v], nil }
	return s
}

func commitFile(t *testing.T, s *Series, file, content, msg string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(s.GOROOT, file), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	g := s.git()
	if _, err := g.run("add", file); err != nil {
		t.Fatal(err)
	}
	if _, err := g.run("commit", "-q", "-m", msg); err != nil {
		t.Fatal(err)
	}
}

const patchMsg = "runtime: add a knob\n\nBecause experiments need it."

func TestApplyExtractRoundTrip(t *testing.T) {
	rel := fakeRelease(t, "go1.98.0", "var tick = 20\n")
	s := testSeries(t, map[string]string{"go1.98.0": rel})

	if err := s.Apply(false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(s.GOROOT, "bin", "go")); err == nil {
		t.Error("apply copied the release's bin/")
	}
	if err := s.Extract(); err == nil {
		t.Error("extract with no commits succeeded; it must refuse to empty patches/")
	}
	commitFile(t, s, "src/runtime/proc.go", "package runtime\n\nvar tick = 50\n", patchMsg)

	// Unextracted work blocks apply.
	if err := s.Apply(false); !errors.Is(err, ErrUnsafe) {
		t.Fatalf("apply over an unextracted commit: err = %v, want ErrUnsafe", err)
	}
	if err := s.Extract(); err != nil {
		t.Fatal(err)
	}
	files, _ := s.PatchFiles()
	if len(files) != 1 || filepath.Base(files[0]) != "0001-runtime-add-a-knob.patch" {
		t.Fatalf("patches = %v", files)
	}
	first, _ := os.ReadFile(files[0])
	if !bytes.HasPrefix(first, []byte("From 0000000000000000000000000000000000000000 ")) {
		t.Errorf("patch not extracted with --zero-commit:\n%s", first)
	}

	// A fresh apply and re-extract is a byte-for-byte no-op.
	if err := s.Apply(false); err != nil {
		t.Fatal(err)
	}
	if err := s.Extract(); err != nil {
		t.Fatal(err)
	}
	again, _ := os.ReadFile(files[0])
	if !bytes.Equal(first, again) {
		t.Errorf("re-extraction changed the patch:\n%s\n---\n%s", first, again)
	}
	data, _ := os.ReadFile(filepath.Join(s.GOROOT, "src/runtime/proc.go"))
	if !strings.Contains(string(data), "tick = 50") {
		t.Errorf("apply did not apply the series: %q", data)
	}

	// Uncommitted edits block apply; FORCE stashes them rather than
	// deleting them.
	os.WriteFile(filepath.Join(s.GOROOT, "src/runtime/os.go"), []byte("package runtime\n// edit\n"), 0o644)
	if err := s.Apply(false); !errors.Is(err, ErrUnsafe) {
		t.Fatalf("apply over a dirty tree: err = %v, want ErrUnsafe", err)
	}
	if err := s.Apply(true); err != nil {
		t.Fatal(err)
	}
	if out, _ := s.git().run("stash", "list"); !strings.Contains(out, "FORCE=1") {
		t.Errorf("FORCE did not stash the edit: stash list = %q", out)
	}

	// FORCE over an unextracted commit keeps it under a backup tag.
	commitFile(t, s, "src/runtime/os.go", "package runtime\n\nconst os = 2\n", "runtime: change os\n\nWhy.")
	if err := s.Apply(true); err != nil {
		t.Fatal(err)
	}
	if out, _ := s.git().run("tag", "-l", "schedlab-backup-*"); out == "" {
		t.Error("FORCE left no backup tag for the unextracted commit")
	}

	// The version stamp does not make the tree dirty.
	if err := stampVersion(filepath.Join(s.GOROOT, "VERSION"), StampedVersion("go1.98.0", 3, "0123456789ab")); err != nil {
		t.Fatal(err)
	}
	if d := s.dirtyFiles(); len(d) != 0 {
		t.Errorf("stamped VERSION counted as dirty: %v", d)
	}
	os.WriteFile(filepath.Join(s.GOROOT, "VERSION"), []byte("go1.98.0-schedlab.3-0123456789ab\ntime changed\n"), 0o644)
	if d := s.dirtyFiles(); len(d) != 1 {
		t.Errorf("a VERSION edit beyond the stamp was not counted as dirty: %v", d)
	}
}

func TestApplyBadPatch(t *testing.T) {
	rel := fakeRelease(t, "go1.98.0", "var tick = 20\n")
	s := testSeries(t, map[string]string{"go1.98.0": rel})
	if err := s.Apply(false); err != nil {
		t.Fatal(err)
	}
	commitFile(t, s, "src/runtime/proc.go", "package runtime\n\nvar tick = 50\n", patchMsg)
	if err := s.Extract(); err != nil {
		t.Fatal(err)
	}
	files, _ := s.PatchFiles()
	data, _ := os.ReadFile(files[0])
	// Corrupt the context so the patch cannot apply.
	os.WriteFile(files[0], bytes.ReplaceAll(data, []byte("-var tick = 20"), []byte("-var tick = 99")), 0o644)
	err := s.Apply(true)
	if err == nil || !strings.Contains(err.Error(), "0001-runtime-add-a-knob.patch does not apply") {
		t.Fatalf("apply of a broken patch: err = %v, want it to name the patch", err)
	}
}

func TestWrongChecksum(t *testing.T) {
	rel := fakeRelease(t, "go1.98.0", "var tick = 20\n")
	s := testSeries(t, map[string]string{"go1.98.0": rel})
	os.WriteFile(s.Pin, Pin{Version: "go1.98.0", Checksum: "h1:AAAA"}.Format(), 0o644)
	if err := s.Apply(false); err == nil || !strings.Contains(err.Error(), "checksum") {
		t.Fatalf("apply with a wrong checksum: err = %v", err)
	}
	if _, err := os.Stat(s.GOROOT); err == nil {
		t.Error("apply created toolchain/goroot from an unverified release")
	}
}

func TestRebaseConflictAndResume(t *testing.T) {
	const pad = "\n// 1\n// 2\n// 3\n// 4\n// 5\n// 6\n"
	old := fakeRelease(t, "go1.98.0", "var tick = 20\n"+pad+"// end\n")
	conflicting := fakeRelease(t, "go1.99.1", "var tick = 30\n"+pad+"// end\n")
	clean := fakeRelease(t, "go1.99.0", "var tick = 30\n"+pad+"var other = 1\n")
	s := testSeries(t, map[string]string{"go1.98.0": old, "go1.99.0": clean, "go1.99.1": conflicting})
	if err := s.Apply(false); err != nil {
		t.Fatal(err)
	}
	commitFile(t, s, "src/runtime/proc.go", "package runtime\n\nvar tick = 50\n"+pad+"// end\n", patchMsg)
	if err := s.Extract(); err != nil {
		t.Fatal(err)
	}

	// A conflicting upstream stops with the patch and file named, the am
	// left in progress.
	err := s.Rebase("go1.99.1")
	if err == nil || !strings.Contains(err.Error(), "0001-runtime-add-a-knob.patch") || !strings.Contains(err.Error(), "src/runtime/proc.go") {
		t.Fatalf("rebase onto a conflicting release: err = %v", err)
	}
	if _, err := os.Stat(filepath.Join(s.GOROOT, ".git", "rebase-apply")); err != nil {
		t.Fatal("rebase did not leave the am in progress for resolution")
	}
	// Resolve and resume.
	os.WriteFile(filepath.Join(s.GOROOT, "src/runtime/proc.go"), []byte("package runtime\n\nvar tick = 50\n"+pad+"// end\n"), 0o644)
	g := s.git()
	if _, err := g.run("add", "src/runtime/proc.go"); err != nil {
		t.Fatal(err)
	}
	if _, err := g.run("am", "--continue"); err != nil {
		t.Fatal(err)
	}
	if err := s.Rebase("go1.99.1"); err != nil {
		t.Fatal(err)
	}
	pin, err := s.ReadPin()
	if err != nil || pin.Version != "go1.99.1" {
		t.Fatalf("pin after rebase = %+v, %v", pin, err)
	}
	if v := s.upstreamVersion(); v != "go1.99.1" {
		t.Errorf("upstream tag holds %q after rebase", v)
	}
	// The re-pinned series applies from scratch.
	if err := s.Apply(false); err != nil {
		t.Fatal(err)
	}

	// A clean rebase succeeds in one go.
	if err := s.Rebase("go1.99.0"); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(s.GOROOT, "src/runtime/proc.go"))
	if !strings.Contains(string(data), "tick = 50") || !strings.Contains(string(data), "other = 1") {
		t.Errorf("3-way rebase result: %q", data)
	}
}

func TestInputsHashChanges(t *testing.T) {
	rel := fakeRelease(t, "go1.98.0", "var tick = 20\n")
	s := testSeries(t, map[string]string{"go1.98.0": rel})
	h1, err := s.InputsHash()
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(s.Rev, []byte("4\n"), 0o644)
	h2, _ := s.InputsHash()
	os.WriteFile(filepath.Join(s.Patches, "0001-x.patch"), []byte("x"), 0o644)
	h3, _ := s.InputsHash()
	if h1 == h2 || h2 == h3 {
		t.Errorf("inputs hash did not change with revision or series: %s %s %s", h1, h2, h3)
	}
}

func TestRebaseFreshClone(t *testing.T) {
	const pad = "\n// 1\n// 2\n// 3\n// 4\n// 5\n// 6\n"
	old := fakeRelease(t, "go1.98.0", "var tick = 20\n"+pad+"// end\n")
	next := fakeRelease(t, "go1.99.0", "var tick = 20\n"+pad+"var other = 1\n")
	s := testSeries(t, map[string]string{"go1.98.0": old, "go1.99.0": next})
	if err := s.Apply(false); err != nil {
		t.Fatal(err)
	}
	commitFile(t, s, "src/runtime/proc.go", "package runtime\n\nvar tick = 50\n"+pad+"// end\n", patchMsg)
	if err := s.Extract(); err != nil {
		t.Fatal(err)
	}
	// A fresh clone: patches/ and the pin, no toolchain/goroot.
	if err := os.RemoveAll(s.GOROOT); err != nil {
		t.Fatal(err)
	}
	if err := s.Rebase("go1.99.0"); err != nil {
		t.Fatalf("rebase from a fresh clone: %v", err)
	}
	if pin, _ := s.ReadPin(); pin.Version != "go1.99.0" {
		t.Errorf("pin after rebase = %q", pin.Version)
	}
	data, _ := os.ReadFile(filepath.Join(s.GOROOT, "src/runtime/proc.go"))
	if !strings.Contains(string(data), "tick = 50") || !strings.Contains(string(data), "other = 1") {
		t.Errorf("rebased proc.go = %q", data)
	}
}

func TestApplyEachClassifies(t *testing.T) {
	const pad = "\n// 1\n// 2\n// 3\n// 4\n// 5\n// 6\n"
	base := "var tick = 20\n" + pad + "// end\n"
	old := fakeRelease(t, "go1.98.0", base)
	s := testSeries(t, map[string]string{"go1.98.0": old})
	if err := s.Apply(false); err != nil {
		t.Fatal(err)
	}
	commitFile(t, s, "src/runtime/proc.go", "package runtime\n\nvar tick = 50\n"+pad+"// end\n", patchMsg)
	commitFile(t, s, "src/runtime/os.go", "package runtime\n\nconst os = 2\n", patchMsg)
	// A second patch to proc.go, whose hunk also sees the moved context.
	commitFile(t, s, "src/runtime/proc.go", "package runtime\n\nvar tick = 50\n"+strings.Replace(pad, "// 5", "// five", 1)+"// end\n", patchMsg)
	if err := s.Extract(); err != nil {
		t.Fatal(err)
	}
	files, _ := s.PatchFiles()
	for _, tc := range []struct {
		name, sched, osgo string
		want              []string
	}{
		{"same", base, "const os = 1\n", []string{applyClean, applyClean, applyClean}},
		// A context line of proc.go's hunk changed: only a 3-way merge applies it.
		{"moved", "var tick = 20\n" + strings.Replace(pad, "// 2", "// two", 1) + "// end\n", "const os = 1\n", []string{applyThreeWay, applyClean, applyThreeWay}},
		{"conflict", "var tick = 30\n" + pad + "// end\n", "const os = 1\n", []string{applyConflict, applyNotTried, applyNotTried}},
	} {
		rel := fakeRelease(t, "go1.99.0", tc.sched)
		repo := filepath.Join(t.TempDir(), "goroot")
		if err := s.initRebaseScratch(repo, rel, "go1.99.0", files); err != nil {
			t.Fatal(err)
		}
		rows := applyEach(repo, files)
		var got []string
		for _, r := range rows {
			got = append(got, r.Result)
		}
		if strings.Join(got, ",") != strings.Join(tc.want, ",") {
			t.Errorf("%s: results %v, want %v", tc.name, got, tc.want)
		}
		if tc.name == "conflict" && !strings.Contains(rows[0].Detail, "src/runtime/proc.go") {
			t.Errorf("conflict detail does not name the file: %q", rows[0].Detail)
		}
	}
}

// TestRebaseScratchHasPinnedHistory covers the case that made the first
// check-rebase report a false conflict: a patch whose hunk needs a 3-way
// merge, in a file an earlier patch changed. Its index line names the
// file as the earlier patch left it on the pinned release, a blob that
// exists only if the scratch repository applied the series to the pin.
func TestRebaseScratchHasPinnedHistory(t *testing.T) {
	lines := "a\n1\n2\n3\n4\n5\n6\n7\n8\n9\nb\n"
	old := fakeRelease(t, "go1.98.0", lines)
	s := testSeries(t, map[string]string{"go1.98.0": old})
	if err := s.Apply(false); err != nil {
		t.Fatal(err)
	}
	p1 := strings.Replace(lines, "1\n", "ONE\n", 1)
	commitFile(t, s, "src/runtime/proc.go", "package runtime\n\n"+p1, patchMsg)
	commitFile(t, s, "src/runtime/proc.go", "package runtime\n\n"+strings.Replace(p1, "8\n", "EIGHT\n", 1), patchMsg)
	if err := s.Extract(); err != nil {
		t.Fatal(err)
	}
	files, _ := s.PatchFiles()
	// The new release changed a context line of the second patch only.
	rel := fakeRelease(t, "go1.99.0", strings.Replace(lines, "6\n", "six\n", 1))
	repo := filepath.Join(t.TempDir(), "goroot")
	if err := s.initRebaseScratch(repo, rel, "go1.99.0", files); err != nil {
		t.Fatal(err)
	}
	rows := applyEach(repo, files)
	if len(rows) != 2 || rows[0].Result != applyClean || rows[1].Result != applyThreeWay {
		t.Errorf("results %+v, want clean then 3-way", rows)
	}
}
