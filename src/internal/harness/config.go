package harness

import (
	"fmt"
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
