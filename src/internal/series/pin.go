// Package series maintains schedlab's patch series over a pinned upstream Go
// release: it turns patches/ into a git-backed GOROOT, extracts commits back
// into patches/, checks the series, rebases it onto other releases and builds
// the version-stamped toolchain.
package series

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"

	"golang.org/x/mod/sumdb/dirhash"
)

// Pin is the content of toolchain/UPSTREAM: the upstream release the series
// applies to and the checksum of that release's GOROOT as the go command
// downloads it.
type Pin struct {
	Version  string // e.g. "go1.27.3"
	Checksum string // dirhash.Hash1 of the release GOROOT, "h1:…"
}

const pinHeader = `# The upstream Go release schedlab's patch series applies to, and the
# checksum (golang.org/x/mod/sumdb/dirhash Hash1) of the GOROOT that
# "GOTOOLCHAIN=<version> go env GOROOT" downloads. The build refuses a
# GOROOT whose checksum differs. Update with: make rebase UPSTREAM=<version>
`

// ParsePin parses the pin file format: "key value" lines, # comments.
func ParsePin(data []byte) (Pin, error) {
	var p Pin
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, val, ok := strings.Cut(line, " ")
		if !ok {
			return Pin{}, fmt.Errorf("line %d: want \"key value\", got %q", n, line)
		}
		val = strings.TrimSpace(val)
		switch key {
		case "version":
			p.Version = val
		case "checksum":
			p.Checksum = val
		default:
			return Pin{}, fmt.Errorf("line %d: unknown key %q", n, key)
		}
	}
	if !validRelease(p.Version) {
		return Pin{}, fmt.Errorf("version %q is not a Go release name like go1.27.3", p.Version)
	}
	if !strings.HasPrefix(p.Checksum, "h1:") {
		return Pin{}, fmt.Errorf("checksum %q is not an h1: dirhash", p.Checksum)
	}
	return p, nil
}

// Format renders the pin file.
func (p Pin) Format() []byte {
	return []byte(fmt.Sprintf("%sversion %s\nchecksum %s\n", pinHeader, p.Version, p.Checksum))
}

// validRelease reports whether v names a Go release (go1.N, go1.N.M, go1.NrcK).
func validRelease(v string) bool {
	rest, ok := strings.CutPrefix(v, "go1.")
	if !ok || rest == "" {
		return false
	}
	for _, part := range strings.FieldsFunc(rest, func(r rune) bool { return r == '.' || r == 'r' || r == 'c' }) {
		if _, err := strconv.Atoi(part); err != nil {
			return false
		}
	}
	return true
}

// ChecksumDir returns the dirhash of a GOROOT tree.
func ChecksumDir(dir string) (string, error) {
	return dirhash.HashDir(dir, "goroot", dirhash.Hash1)
}

// StockGOROOT locates (downloading through the module proxy when needed) the
// official release version with the go command on PATH.
func StockGOROOT(version string) (string, error) {
	gocmd, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("no go command on PATH: install any Go >= 1.21 from https://go.dev/dl and retry")
	}
	cmd := exec.Command(gocmd, "env", "GOROOT")
	cmd.Env = append(cleanGoEnv(os.Environ()), "GOTOOLCHAIN="+version)
	cmd.Dir = os.TempDir() // away from any go.mod or go.work asking for something else
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("GOTOOLCHAIN=%s go env GOROOT: %v\n%s", version, err, stderr.String())
	}
	dir := strings.TrimSpace(string(out))
	if _, err := os.Stat(dir + "/src/runtime"); err != nil {
		return "", fmt.Errorf("GOTOOLCHAIN=%s go env GOROOT gave %q, which has no src/runtime", version, dir)
	}
	return dir, nil
}

// VerifiedStock returns the stock GOROOT for p after checking its checksum.
func VerifiedStock(p Pin) (string, error) {
	dir, err := StockGOROOT(p.Version)
	if err != nil {
		return "", err
	}
	sum, err := ChecksumDir(dir)
	if err != nil {
		return "", err
	}
	if sum != p.Checksum {
		return "", fmt.Errorf("checksum mismatch for %s at %s:\n\tgot  %s\n\twant %s (toolchain/UPSTREAM)\n"+
			"The downloaded release is not the one the series was pinned to. If toolchain/UPSTREAM was edited by hand, "+
			"restore it (git checkout toolchain/UPSTREAM) or re-pin with make rebase UPSTREAM=%s; "+
			"if the module cache is corrupt, run go clean -modcache",
			p.Version, dir, sum, p.Checksum, p.Version)
	}
	return dir, nil
}

// cleanGoEnv drops variables that would make a go command act on something
// other than what we ask for.
func cleanGoEnv(env []string) []string {
	var out []string
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "GOROOT", "GOTOOLCHAIN", "GOFLAGS", "GODEBUG", "GOENV", "GOEXPERIMENT", "GOOS", "GOARCH", "GO111MODULE", "GOWORK":
			continue
		}
		out = append(out, kv)
	}
	return out
}
