package toolchain

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
)

func TestSeriesHash(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{"0002-b.patch": "second\n", "0001-a.patch": "first patch\n", "notes.txt": "ignored"}
	for n, c := range files {
		os.WriteFile(filepath.Join(dir, n), []byte(c), 0o644)
	}
	h := sha256.New()
	h.Write([]byte("0001-a.patch 12\nfirst patch\n0002-b.patch 7\nsecond\n"))
	want := hex.EncodeToString(h.Sum(nil))[:12]
	got, err := SeriesHash(dir)
	if err != nil || got != want {
		t.Errorf("SeriesHash = %q, %v; want %q", got, err, want)
	}
	empty, _ := SeriesHash(t.TempDir())
	if e := sha256.Sum256(nil); empty != hex.EncodeToString(e[:])[:12] {
		t.Errorf("empty series hash = %q", empty)
	}
}

func TestReadUpstream(t *testing.T) {
	p := filepath.Join(t.TempDir(), "UPSTREAM")
	os.WriteFile(p, []byte("# pinned release\nversion go1.27.3\nchecksum h1:abc=\n"), 0o644)
	if v, err := ReadUpstream(p); err != nil || v != "go1.27.3" {
		t.Errorf("ReadUpstream = %q, %v", v, err)
	}
	os.WriteFile(p, []byte("checksum h1:abc=\n"), 0o644)
	if _, err := ReadUpstream(p); err == nil {
		t.Errorf("no version line: no error")
	}
}

func TestFindRoot(t *testing.T) {
	root, err := FindRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "src", "internal", "toolchain")); err != nil {
		t.Errorf("FindRoot = %s: %v", root, err)
	}
	if _, err := FindRoot(t.TempDir()); err == nil {
		t.Errorf("FindRoot outside the repo: no error")
	}
}
