package claims

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExpr computes expr claims over match claims of a small folder, and
// refuses cycles, given claims and unknown names.
func TestExpr(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "summary.txt"), []byte("a: 0.0021\nb: 0.03\n"), 0o644)
	match := func(id, re string) Claim {
		return Claim{ID: id, File: "summary.txt", Base: "-", Unit: "-", Bench: re, Variant: "-", Field: "match"}
	}
	expr := func(id, e, quoted string) Claim {
		return Claim{ID: id, File: "-", Base: "-", Unit: "-", Bench: e, Variant: "-", Field: "expr", Quoted: quoted}
	}
	k := &Checker{Dir: dir, Claims: []Claim{
		match("pa", `a: ([0-9.]+)`), match("pb", `b: ([0-9.]+)`),
		{ID: "alpha", Bench: "the level", Field: "given", Quoted: "0.05"},
		expr("holm", "max(5*{pa}, 4*{pb})", ""),
		expr("loop1", "{loop2}+1", ""), expr("loop2", "{loop1}", ""),
	}}
	for _, tc := range []struct {
		c       Claim
		wantErr string
	}{
		{expr("x", "5*{pa}", "0.011"), ""},
		{expr("x", "max(5*{pa}, 4*{pb})", "0.12"), ""},
		{expr("x", "{holm} / 2", "0.06"), ""},
		{expr("x", "({pb}-{pa})/{pa}", "13.3"), ""},
		{expr("x", "abs(-{pa})", "0.0021"), ""},
		{expr("x", "5*{pa}", "0.012"), "quoted as 0.012"},
		{expr("x", "{alpha}*2", "0.1"), "given, not computed"},
		{expr("x", "{nope}", "1"), `no claim "nope"`},
		{expr("x", "{loop1}", "1"), "name each other"},
		{expr("x", "pa*2", "1"), "name claims as {id}"},
	} {
		err := k.Check(tc.c)
		switch {
		case tc.wantErr == "" && err != nil:
			t.Errorf("%s: %v", tc.c.Bench, err)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("%s: error %v, want one saying %q", tc.c.Bench, err, tc.wantErr)
		}
	}
}
