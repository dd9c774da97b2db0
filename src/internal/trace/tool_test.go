package trace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/src/internal/toolchain"
)

// fakeGo is a GOROOT whose go command plays the patched go tool trace:
// -d=runs and -d=steals print the CSVs beside it, -d=stock the trace
// with every line "STEAL" dropped, or fails as a toolchain without the
// mode would when the file nostock is there.
const fakeGo = `#!/bin/sh
d=$(dirname "$0")/..
case "$3" in
-d=runs) cat "$d/runs.csv" ;;
-d=steals) cat "$d/steals.csv" ;;
-d=stock)
	if [ -f "$d/nostock" ]; then
		echo "invalid debug mode stock, want one of: parsed, wire, footprint, steals, runs" >&2
		exit 1
	fi
	grep -v STEAL "$4"
	exit 0 ;;
*) echo "fake go: $*" >&2; exit 2 ;;
esac
`

func fakeToolchain(t *testing.T, runs, steals string) (*toolchain.Toolchain, string) {
	t.Helper()
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "bin"), 0o755)
	for name, data := range map[string]string{"bin/go": fakeGo, "runs.csv": runs, "steals.csv": steals} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(data), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return &toolchain.Toolchain{Spec: root, GOROOT: root}, root
}

func TestLoad(t *testing.T) {
	tc, _ := fakeToolchain(t, latencyRuns, latencySteals)
	tr, err := Load(tc, "x.trace")
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Runs) != 6 || !tr.Ready || len(tr.Events) != 4 || tr.Node[1] != 1 {
		t.Errorf("loaded %d runs (ready %v), %d events, nodes %v", len(tr.Runs), tr.Ready, len(tr.Events), tr.Node)
	}
}

func TestStockCopy(t *testing.T) {
	tc, root := fakeToolchain(t, latencyRuns, latencySteals)
	dir := t.TempDir()
	in := filepath.Join(dir, "in.trace")
	os.WriteFile(in, []byte("header\nevent\nSTEAL event\nevent\n"), 0o644)
	out := filepath.Join(dir, "out.trace")
	size, same, err := StockCopy(tc, in, out)
	if err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(out); string(data) != "header\nevent\nevent\n" || size != int64(len(data)) || same {
		t.Errorf("copy %q (%d bytes, same %v): want the trace without its STEAL line", data, size, same)
	}
	// A stock trace comes back unchanged, and says so.
	if _, same, err := StockCopy(tc, out, filepath.Join(dir, "again.trace")); err != nil || !same {
		t.Errorf("stock trace: same %v, %v; want an unchanged copy", same, err)
	}
	// A toolchain without -d=stock: a clear error, and what was at the
	// destination stays as it was, with no temporary file left.
	os.WriteFile(filepath.Join(root, "nostock"), nil, 0o644)
	os.WriteFile(out, []byte("old"), 0o644)
	_, _, err = StockCopy(tc, in, out)
	if err == nil || !strings.Contains(err.Error(), "predates -d=stock") || !strings.Contains(err.Error(), "make toolchain") {
		t.Errorf("without -d=stock: %v", err)
	}
	if data, _ := os.ReadFile(out); string(data) != "old" {
		t.Errorf("a failed copy replaced the destination with %q", data)
	}
	ents, _ := os.ReadDir(dir)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if len(names) != 3 {
		t.Errorf("folder holds %v, want in, out, again and nothing temporary", names)
	}
}

func TestLoadOldToolchain(t *testing.T) {
	tc, root := fakeToolchain(t, "kind,start_ns,end_ns,proc,thread,goroutine,state,reason\nrun,0,10,0,1,1,Waiting,\n", latencySteals)
	tr, err := Load(tc, "x.trace")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Latencies(tr); err == nil {
		t.Error("latency of runs without ready times: no error")
	}
	// A go tool trace without -d=runs at all.
	os.WriteFile(filepath.Join(root, "bin", "go"), []byte("#!/bin/sh\necho 'invalid debug mode runs, want one of: parsed' >&2\nexit 1\n"), 0o755)
	if _, err := Load(tc, "x.trace"); err == nil || !strings.Contains(err.Error(), "predates -d=runs") {
		t.Errorf("without -d=runs: %v", err)
	}
}
