package series

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// RuntimeFingerprint identifies the runtime code that the series in dir
// builds: sha256 over the files a compiled runtime is made of
// (runtimeDirs, tests and testdata left out) that the series changes,
// each named with the blob ID of its content after the last patch that
// touches it (from the patch's "index" line), in path order; the first
// 12 hex digits. It depends only on the runtime the series ends with:
// commit messages, every other file, and how the changes are split
// into patches (a fix-up folded into the patch it fixes) leave it
// unchanged, so a study of the old series still measured the current
// runtime. A change to any runtime file's final content changes it.
func RuntimeFingerprint(dir string) (string, error) {
	patches, err := filepath.Glob(filepath.Join(dir, "*.patch"))
	if err != nil {
		return "", err
	}
	sort.Strings(patches)
	var contents [][]byte
	for _, p := range patches {
		data, err := os.ReadFile(p)
		if err != nil {
			return "", err
		}
		contents = append(contents, data)
	}
	return runtimeFingerprint(contents), nil
}

// runtimeFingerprint is RuntimeFingerprint over the patches' contents,
// in series order.
func runtimeFingerprint(patches [][]byte) string {
	final := map[string]string{}
	for _, data := range patches {
		for p, blob := range runtimeBlobs(data) {
			final[p] = blob
		}
	}
	paths := make([]string, 0, len(final))
	for p := range final {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	h := sha256.New()
	for _, p := range paths {
		fmt.Fprintf(h, "%s %s\n", p, final[p])
	}
	return hex.EncodeToString(h.Sum(nil))[:12]
}

// runtimeBlobs maps each file of a patch that is part of a compiled
// runtime to the blob ID of its content after the patch (all zeros
// for a deleted file). A section without an "index" line (a mode
// change only) leaves the content as it was and is not listed.
func runtimeBlobs(patch []byte) map[string]string {
	blobs := map[string]string{}
	file := ""
	sc := bufio.NewScanner(bytes.NewReader(patch))
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "diff --git "):
			file = ""
			if f := strings.Fields(line); len(f) == 4 && isRuntimeFile(strings.TrimPrefix(f[3], "b/")) {
				file = strings.TrimPrefix(f[3], "b/")
			}
		case line == "-- ":
			file = ""
		case file != "" && strings.HasPrefix(line, "index "):
			f := strings.Fields(line)
			if _, post, ok := strings.Cut(f[1], ".."); ok {
				blobs[file] = post
			}
			file = "" // the rest of the section is its hunks
		}
	}
	return blobs
}

// runtimeDirs are where the code compiled into a program's runtime
// lives: the runtime and its packages, its internal packages, and the
// execution trace's event table, which the tracer imports.
var runtimeDirs = []string{"src/runtime/", "src/internal/runtime/", "src/internal/trace/tracev2/"}

// isRuntimeFile reports whether a repository path is compiled into the
// runtime: a non-test file under runtimeDirs, outside testdata.
func isRuntimeFile(p string) bool {
	in := false
	for _, d := range runtimeDirs {
		in = in || strings.HasPrefix(p, d)
	}
	if !in {
		return false
	}
	return !strings.HasSuffix(p, "_test.go") && !strings.Contains(p, "/testdata/")
}
