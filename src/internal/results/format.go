package results

import (
	"fmt"
	"strconv"
	"strings"
)

// BlockConfig is the configuration written before every block of results,
// so that benchstat (and schedlab compare) can slice by it.
type BlockConfig struct {
	Variant    string
	Toolchain  string // go env GOVERSION of the toolchain
	GODEBUG    string
	Upstream   string
	Series     string
	GOMAXPROCS string
	CPU        string
	NUMANodes  int
}

// ConfigKeys are the keys of BlockConfig lines, in order.
var ConfigKeys = []string{"variant", "toolchain", "godebug", "upstream", "series", "gomaxprocs", "cpu", "numa-nodes"}

// Lines formats c as Go benchmark format configuration lines.
func (c BlockConfig) Lines() string {
	godebug := c.GODEBUG
	if godebug == "" {
		godebug = "none"
	}
	vals := []string{c.Variant, c.Toolchain, godebug, c.Upstream, c.Series, c.GOMAXPROCS, c.CPU, fmt.Sprint(c.NUMANodes)}
	var b strings.Builder
	for i, k := range ConfigKeys {
		v := strings.Join(strings.Fields(vals[i]), " ")
		if v == "" {
			v = "unknown"
		}
		fmt.Fprintf(&b, "%s: %s\n", k, v)
	}
	return b.String()
}

// IsResultLine reports whether line is a complete benchmark result
// (a run killed mid-benchmark leaves just the name).
func IsResultLine(line string) bool {
	f := strings.Fields(line)
	if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
		return false
	}
	if _, err := strconv.Atoi(f[1]); err != nil {
		return false
	}
	_, err := strconv.ParseFloat(f[2], 64)
	return err == nil
}

// ResultLines returns the complete benchmark result lines of out, in
// order (see IsResultLine).
func ResultLines(out []byte) []string {
	var results []string
	for _, line := range strings.Split(string(out), "\n") {
		if IsResultLine(line) {
			results = append(results, line)
		}
	}
	return results
}
