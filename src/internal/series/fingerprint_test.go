package series

import (
	"os"
	"path/filepath"
	"testing"
)

const patchA = `From 1 Mon Sep 17 00:00:00 2001
Subject: [PATCH] runtime: a

message one
---
diff --git a/src/runtime/proc.go b/src/runtime/proc.go
index 1111..2222 100644
--- a/src/runtime/proc.go
+++ b/src/runtime/proc.go
@@ -1 +1 @@
-old
+new
diff --git a/src/runtime/proc_test.go b/src/runtime/proc_test.go
index 3333..4444 100644
@@ -1 +1 @@
-t1
+t2
diff --git a/src/cmd/trace/main.go b/src/cmd/trace/main.go
index 5555..6666 100644
@@ -1 +1 @@
-x
+y
-- 
2.39.5
`

func writePatch(t *testing.T, dir, name, text string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRuntimeFingerprint checks what the fingerprint follows: runtime
// code, not messages, tests or other commands.
func TestRuntimeFingerprint(t *testing.T) {
	fp := func(text string) string {
		dir := t.TempDir()
		writePatch(t, dir, "0001-a.patch", text)
		got, err := RuntimeFingerprint(dir)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	base := fp(patchA)
	for name, c := range map[string]struct {
		from, to string
		same     bool
	}{
		"message":   {"message one", "message two", true},
		"test file": {"+t2", "+t3", true},
		"cmd/trace": {"+y", "+z", true},
		// A runtime file's content is named by its blob ID.
		"runtime code": {"index 1111..2222", "index 1111..2223", false},
	} {
		other := fp(replace(patchA, c.from, c.to))
		if (other == base) != c.same {
			t.Errorf("%s changed: fingerprint %s -> %s, want same=%v", name, base, other, c.same)
		}
	}
	if len(base) != 12 {
		t.Errorf("fingerprint %q, want 12 hex digits", base)
	}
}

// TestRuntimeFingerprintSplit checks that the fingerprint names the
// runtime a series ends with, not how its patches divide the changes: a
// fix-up in a patch of its own and the same change folded into the
// patch it fixes give the same fingerprint; a fix-up that leaves a
// different final content does not.
func TestRuntimeFingerprintSplit(t *testing.T) {
	section := func(file, pre, post string) string {
		return "diff --git a/" + file + " b/" + file + "\nindex " + pre + ".." + post + " 100644\n@@ -1 +1 @@\n-x\n+y\n"
	}
	patch := func(sections ...string) []byte {
		s := "Subject: [PATCH] runtime: x\n\n---\n"
		for _, sec := range sections {
			s += sec
		}
		return []byte(s + "-- \n2.39.5\n")
	}
	folded := runtimeFingerprint([][]byte{
		patch(section("src/runtime/proc.go", "aaaa", "cccc"), section("src/runtime/numa.go", "0000", "dddd")),
		patch(section("src/runtime/mgc.go", "eeee", "ffff")),
	})
	split := runtimeFingerprint([][]byte{
		patch(section("src/runtime/proc.go", "aaaa", "bbbb"), section("src/runtime/numa.go", "0000", "dddd")),
		patch(section("src/runtime/mgc.go", "eeee", "ffff")),
		patch(section("src/runtime/proc.go", "bbbb", "cccc"), section("src/runtime/proc_test.go", "1111", "2222")),
	})
	if folded != split {
		t.Errorf("fix-up folded: %s; in its own patch: %s; want the same", folded, split)
	}
	other := runtimeFingerprint([][]byte{
		patch(section("src/runtime/proc.go", "aaaa", "bbbb"), section("src/runtime/numa.go", "0000", "dddd")),
		patch(section("src/runtime/mgc.go", "eeee", "ffff")),
	})
	if other == folded {
		t.Errorf("without the fix-up's change: %s, the same as with it", other)
	}
	// results.upstreamRuntime: what a series with no runtime change
	// gives, sha256 of nothing.
	if none := runtimeFingerprint(nil); none != "e3b0c44298fc" {
		t.Errorf("no runtime change: %s, want e3b0c44298fc", none)
	}
}

func replace(s, old, new string) string {
	for i := 0; i+len(old) <= len(s); i++ {
		if s[i:i+len(old)] == old {
			return s[:i] + new + s[i+len(old):]
		}
	}
	panic("no " + old)
}

func TestIsRuntimeFile(t *testing.T) {
	for p, want := range map[string]bool{
		"src/runtime/proc.go":                   true,
		"src/runtime/asm_amd64.s":               true,
		"src/internal/runtime/atomic/types.go":  true,
		"src/runtime/numa_test.go":              false,
		"src/runtime/testdata/testprog/numa.go": false,
		"src/cmd/trace/steals.go":               false,
		"src/internal/trace/tracev2/events.go":  true,
		"src/internal/trace/order.go":           false,
		"src/runtime/metrics/description.go":    true,
	} {
		if got := isRuntimeFile(p); got != want {
			t.Errorf("isRuntimeFile(%q) = %v, want %v", p, got, want)
		}
	}
}

// TestRuntimeFingerprintsHistory checks the history walk against the
// working tree: the current series must map to the fingerprint of
// patches/ (when this checkout's history has it committed).
func TestRuntimeFingerprintsHistory(t *testing.T) {
	root, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, ".git")); err != nil {
		t.Skip("not a git checkout")
	}
	fps, err := RuntimeFingerprints(root)
	if err != nil {
		t.Skip(err)
	}
	cur, err := HashPatches(filepath.Join(root, "patches"))
	if err != nil {
		t.Fatal(err)
	}
	fp, ok := fps[cur]
	if !ok {
		t.Skipf("series %s is not committed yet", cur)
	}
	want, err := RuntimeFingerprint(filepath.Join(root, "patches"))
	if err != nil {
		t.Fatal(err)
	}
	if fp != want {
		t.Errorf("history maps %s to %s; patches/ gives %s", cur, fp, want)
	}
	if len(fps) < 2 {
		t.Errorf("%d series in the history, want more than one", len(fps))
	}
}
