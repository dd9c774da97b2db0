package series

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// RuntimeFingerprint identifies the runtime code that the series in dir
// builds: sha256 over, patch by patch in order, the diff sections of the
// files a compiled runtime is made of (runtimeDirs, tests and testdata
// left out), with their
// "index" lines, whose blob IDs name the files' content; the first 12
// hex digits. Commit messages and every other file leave it unchanged, so
// a series change that touches only cmd/trace, cmd/go, tests or messages
// keeps the fingerprint, and a study of the old series still measured
// the current runtime. A change to any runtime file changes the
// fingerprint, also through the context lines of later patches.
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
	h := sha256.New()
	for _, data := range patches {
		for _, sec := range runtimeSections(data) {
			h.Write(sec)
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:12]
}

// runtimeSections returns the "diff --git" sections of a patch whose file
// is part of a compiled runtime, each up to the next section or the
// patch's signature ("-- " line).
func runtimeSections(patch []byte) [][]byte {
	var out [][]byte
	var cur *bytes.Buffer
	keep := false
	flush := func() {
		if cur != nil && keep {
			out = append(out, cur.Bytes())
		}
		cur, keep = nil, false
	}
	sc := bufio.NewScanner(bytes.NewReader(patch))
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "diff --git "):
			flush()
			cur = new(bytes.Buffer)
			f := strings.Fields(line)
			keep = len(f) == 4 && isRuntimeFile(strings.TrimPrefix(f[3], "b/"))
		case line == "-- ":
			flush()
		}
		if cur != nil {
			cur.WriteString(line)
			cur.WriteByte('\n')
		}
	}
	flush()
	return out
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
