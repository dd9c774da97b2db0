package results

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestIndexUpToDate checks that results/INDEX.md and INDEX.json are what
// schedlab index writes now: a new folder, a new series or a new citation
// makes them stale.
func TestIndexUpToDate(t *testing.T) {
	root := repoRoot(t)
	out, err := exec.Command("git", "-C", root, "rev-parse", "--is-shallow-repository").Output()
	if err != nil {
		t.Skipf("no git history: %v", err)
	}
	if strings.TrimSpace(string(out)) == "true" {
		t.Skip("shallow clone: the history does not hold every series")
	}
	es, current, runtime, err := BuildIndex(root)
	if err != nil {
		t.Fatal(err)
	}
	var md, js bytes.Buffer
	WriteIndex(&md, es, current, runtime)
	if err := WriteIndexJSON(&js, es, current, runtime); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string][]byte{IndexFile: md.Bytes(), IndexJSONFile: js.Bytes()} {
		got, err := os.ReadFile(filepath.Join(root, "results", name))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("results/%s is stale: run `make index` (schedlab index) and commit it", name)
		}
	}
}

func TestSplitFolder(t *testing.T) {
	for name, want := range map[string][2]string{
		"2026-12-01-vm-pauses":       {"2026-12-01", "pauses"},
		"2026-11-30-vm-cost-sched-6": {"2026-11-30", "cost-sched-6"},
		"odd":                        {"", "odd"},
	} {
		if d, s := splitFolder(name); d != want[0] || s != want[1] {
			t.Errorf("splitFolder(%q) = %q, %q; want %q, %q", name, d, s, want[0], want[1])
		}
	}
}

func TestMarkNewer(t *testing.T) {
	es := []IndexEntry{
		{Folder: "a-numa", Date: "2026-11-30", Study: "numa"},
		{Folder: "a-numa-3", Date: "2026-11-30", Study: "numa-3"},
		{Folder: "a-numa-2", Date: "2026-11-30", Study: "numa-2"},
		{Folder: "b-numa", Date: "2026-12-01", Study: "numa"},
		{Folder: "a-steal", Date: "2026-11-30", Study: "steal"},
	}
	markNewer(es)
	for i, want := range []string{"b-numa", "b-numa", "b-numa", "", ""} {
		if es[i].Newer != want {
			t.Errorf("%s: newer %q, want %q", es[i].Folder, es[i].Newer, want)
		}
	}
}
