package claims

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDraftText drafts claims for a table row and a sentence and checks
// that each lands on the cell and field the text means, and that a
// number the data does not hold is left for a person.
func TestDraftText(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for i := 0; i < 10; i++ {
		for _, v := range []struct {
			name string
			a, b float64
		}{{"stock", 100, 50}, {"patched", 120, 50}} {
			fmt.Fprintf(&b, "variant: %s\nBenchmarkAlpha-2 1 %v ns/op\nBenchmarkBeta-2 1 %v ns/op\n", v.name, v.a+float64(i), v.b+float64(i%2))
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "bench.txt"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	text := "| benchmark | stock | patched | Δ |\n|---|---:|---:|---:|\n| Alpha | 104.5ns | 124.5ns | +19.1% |\n\n" +
		"`Alpha` is +19.1% (p=0.000) and Beta 7.5% off; stock is −16.1% against patched.\n\nAgainst patched, stock's geomean is −8.4%.\n"
	d, err := DraftText(dir, text, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, c := range d.Claims {
		got[c.Quoted] = c.Bench + " " + c.Variant + " " + c.Field
	}
	want := map[string]string{
		"104.5ns": "Alpha-2 stock median",
		"124.5ns": "Alpha-2 patched median",
		"+19.1%":  "Alpha-2 patched pct",
		"0.000":   "Alpha-2 patched p",
		"−16.1%":  "Alpha-2 stock pct",
		"−8.4%":   "- stock geopct",
	}
	for q, w := range want {
		if got[q] != w {
			t.Errorf("%s drafted as %q, want %q", q, got[q], w)
		}
	}
	if len(d.Unmatched) != 1 || !strings.HasPrefix(d.Unmatched[0], "7.5%:") {
		t.Errorf("unmatched = %q, want only 7.5%%", d.Unmatched)
	}
	k := &Checker{Dir: dir}
	defer k.Close()
	for _, c := range d.Claims {
		if err := k.Check(c); err != nil {
			t.Errorf("a drafted claim does not check: %v", err)
		}
	}
}
