package series

import (
	"archive/tar"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os/exec"
	"path"
	"sort"
	"strings"
)

// RuntimeFingerprints maps every series that repo's history has
// committed in patches/ (by its HashPatches hash) to its
// RuntimeFingerprint, so that results of an old series can be told
// apart by whether they measured the current runtime's code. It reads
// the history with git; a shallow clone knows only the series it holds.
func RuntimeFingerprints(repo string) (map[string]string, error) {
	out, err := exec.Command("git", "-C", repo, "log", "--format=%H", "--", "patches").Output()
	if err != nil {
		return nil, fmt.Errorf("git log -- patches: %v", err)
	}
	fps := map[string]string{}
	for _, c := range strings.Fields(string(out)) {
		arch, err := exec.Command("git", "-C", repo, "archive", c, "patches").Output()
		if err != nil {
			// A commit that removed patches/ entirely has nothing to
			// archive; it measured no series.
			continue
		}
		names, contents, err := patchFiles(arch)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", c, err)
		}
		fps[hashContents(names, contents)[:12]] = runtimeFingerprint(contents)
	}
	return fps, nil
}

// patchFiles returns the *.patch files of a tar archive of patches/, by
// base name in sorted order, and their contents.
func patchFiles(arch []byte) (names []string, contents [][]byte, err error) {
	files := map[string][]byte{}
	tr := tar.NewReader(bytes.NewReader(arch))
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, err
		}
		if h.Typeflag != tar.TypeReg || path.Dir(h.Name) != "patches" || !strings.HasSuffix(h.Name, ".patch") {
			continue
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			return nil, nil, err
		}
		files[path.Base(h.Name)] = data
	}
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		contents = append(contents, files[n])
	}
	return names, contents, nil
}

// hashContents is hashFiles over names and contents already read.
func hashContents(names []string, contents [][]byte) string {
	h := sha256.New()
	for i, n := range names {
		fmt.Fprintf(h, "%s %d\n", n, len(contents[i]))
		h.Write(contents[i])
	}
	return hex.EncodeToString(h.Sum(nil))
}
