package harness

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"
)

func TestParseVariant(t *testing.T) {
	tests := []struct {
		in   string
		want Variant
		err  string
	}{
		{in: "stock", want: Variant{Name: "stock", Toolchain: "stock"}},
		{in: "patched", want: Variant{Name: "patched", Toolchain: "patched"}},
		{in: "a=stock", want: Variant{Name: "a", Toolchain: "stock"}},
		{in: "slice1ms=patched:timeslice=1000", want: Variant{Name: "slice1ms", Toolchain: "patched", GODEBUG: "timeslice=1000"}},
		{in: "patched:timeslice=1000,sysmontick=50", want: Variant{Name: "patched:timeslice=1000,sysmontick=50", Toolchain: "patched", GODEBUG: "timeslice=1000,sysmontick=50"}},
		{in: "stock:gctrace=1", want: Variant{Name: "stock:gctrace=1", Toolchain: "stock", GODEBUG: "gctrace=1"}},
		{in: "/opt/go", want: Variant{Name: "go", Toolchain: "/opt/go"}},
		{in: "mine=/opt/go/:asyncpreemptoff=1", want: Variant{Name: "mine", Toolchain: "/opt/go", GODEBUG: "asyncpreemptoff=1"}},
		{in: "./tc/goroot", want: Variant{Name: "goroot", Toolchain: "tc/goroot"}},
		{in: "", err: "empty variant"},
		{in: "fancy", err: `unknown toolchain "fancy"`},
		{in: "x=", err: "no toolchain"},
		{in: "patched:bogus=1", err: `unknown GODEBUG knob "bogus"`},
		{in: "patched:timeslice", err: "want knob=value"},
	}
	for _, tt := range tests {
		got, err := ParseVariant(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParseVariant(%q) error = %v, want containing %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParseVariant(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
		}
	}
}

func TestApplyWrappers(t *testing.T) {
	vs, err := ParseVariants([]string{"stock", "oracle=stock"})
	if err != nil {
		t.Fatal(err)
	}
	if err := ApplyWrappers(vs, []string{"oracle=env  FOO=1"}); err != nil {
		t.Fatal(err)
	}
	if vs[0].Wrapper != nil || !reflect.DeepEqual(vs[1].Wrapper, []string{"env", "FOO=1"}) {
		t.Errorf("wrappers = %q, %q; want none, [env FOO=1]", vs[0].Wrapper, vs[1].Wrapper)
	}
	for spec, want := range map[string]string{
		"nobody=env":                `no variant named "nobody"`,
		"oracle=":                   "want name=command",
		"stock=no-such-command-xyz": "executable file not found",
		"oracle=env":                "already has a wrapper",
	} {
		if err := ApplyWrappers(vs, []string{spec}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ApplyWrappers(%q) error = %v, want containing %q", spec, err, want)
		}
	}
}

func TestParseVariantsDuplicate(t *testing.T) {
	if _, err := ParseVariants([]string{"stock", "stock"}); err == nil || !strings.Contains(err.Error(), "used twice") {
		t.Errorf("duplicate names: err = %v", err)
	}
	if _, err := ParseVariants(nil); err == nil {
		t.Errorf("no variants: no error")
	}
	vs, err := ParseVariants([]string{"a=stock", "b=stock"})
	if err != nil || len(vs) != 2 {
		t.Errorf("a=stock b=stock: %v, %v", vs, err)
	}
}

func TestKnobSweep(t *testing.T) {
	k, vs, err := ParseKnobSweep("timeslice=1000,2000,5000")
	if err != nil || k != "timeslice" || !reflect.DeepEqual(vs, []string{"1000", "2000", "5000"}) {
		t.Fatalf("ParseKnobSweep = %q %q %v", k, vs, err)
	}
	for _, bad := range []string{"timeslice", "nosuch=1,2", "timeslice=1,1", "timeslice=1,,2"} {
		if _, _, err := ParseKnobSweep(bad); err == nil {
			t.Errorf("ParseKnobSweep(%q): no error", bad)
		}
	}
	v, err := SweepVariants("patched", "timeslice", []string{"1000"}, "sysmontick=20")
	if err != nil || !reflect.DeepEqual(v[0], Variant{Name: "timeslice=1000", Toolchain: "patched", GODEBUG: "sysmontick=20,timeslice=1000"}) {
		t.Errorf("SweepVariants = %+v, %v", v, err)
	}
}

func TestSchedule(t *testing.T) {
	const rounds, targets, variants = 6, 4, 3
	s := Schedule(rounds, targets, variants)
	if len(s) != rounds*targets*variants {
		t.Fatalf("len = %d", len(s))
	}
	first := map[int]int{}
	for i := 0; i < len(s); i += variants {
		group := s[i : i+variants]
		seen := map[int]bool{}
		for _, sl := range group {
			if sl.Round != group[0].Round || sl.Target != group[0].Target {
				t.Fatalf("slots %d..: not one round/target: %v", i, group)
			}
			seen[sl.Variant] = true
		}
		if len(seen) != variants {
			t.Errorf("round %d target %d: variants %v, want each once", group[0].Round, group[0].Target, group)
		}
		first[group[0].Variant]++
		// Rounds are in order: everything of round r before round r+1.
		if i > 0 && s[i-1].Round > group[0].Round {
			t.Errorf("round order broken at %d", i)
		}
	}
	// Every variant goes first equally often.
	for v := 0; v < variants; v++ {
		if first[v] != rounds*targets/variants {
			t.Errorf("variant %d first %d times, want %d", v, first[v], rounds*targets/variants)
		}
	}
	// Two variants: A B, then B A in the next round (the order rotates).
	two := Schedule(2, 1, 2)
	got := fmt.Sprint(two)
	if want := "[{0 0 0} {0 0 1} {1 0 1} {1 0 0}]"; got != want {
		t.Errorf("Schedule(2,1,2) = %s, want %s", got, want)
	}
}

func TestConfigLines(t *testing.T) {
	c := BlockConfig{Variant: "slice1ms", Toolchain: "go1.27.3-schedlab.1", GODEBUG: "timeslice=1000",
		Upstream: "go1.27.3", Series: "0123456789ab", GOMAXPROCS: "2", CPU: "Some  CPU @ 2GHz", NUMANodes: 1}
	want := `variant: slice1ms
toolchain: go1.27.3-schedlab.1
godebug: timeslice=1000
upstream: go1.27.3
series: 0123456789ab
gomaxprocs: 2
cpu: Some CPU @ 2GHz
numa-nodes: 1
`
	if got := c.Lines(); got != want {
		t.Errorf("Lines() =\n%s\nwant\n%s", got, want)
	}
	// benchfmt reads them back as configuration of the result.
	in := c.Lines() + "BenchmarkX-2 10 100 ns/op\n"
	r := benchfmt.NewReader(strings.NewReader(in), "x")
	if !r.Scan() {
		t.Fatal(r.Err())
	}
	res, ok := r.Result().(*benchfmt.Result)
	if !ok {
		t.Fatalf("not a result: %v", r.Result())
	}
	for k, v := range map[string]string{"variant": "slice1ms", "godebug": "timeslice=1000", "series": "0123456789ab", "numa-nodes": "1", "cpu": "Some CPU @ 2GHz"} {
		if got := res.GetConfig(k); got != v {
			t.Errorf("config %s = %q, want %q", k, got, v)
		}
	}
	if got := (BlockConfig{}).Lines(); !strings.Contains(got, "godebug: none\n") || !strings.Contains(got, "variant: unknown\n") {
		t.Errorf("empty config lines:\n%s", got)
	}
}

func TestSeriesHash(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{"0002-b.patch": "second\n", "0001-a.patch": "first patch\n", "notes.txt": "ignored"}
	for n, c := range files {
		os.WriteFile(filepath.Join(dir, n), []byte(c), 0o644)
	}
	h := sha256.New()
	h.Write([]byte("0001-a.patch 12\nfirst patch\n0002-b.patch 7\nsecond\n"))
	want := hex.EncodeToString(h.Sum(nil))[:12]
	got, err := SeriesHash(dir)
	if err != nil || got != want {
		t.Errorf("SeriesHash = %q, %v; want %q", got, err, want)
	}
	empty, _ := SeriesHash(t.TempDir())
	if e := sha256.Sum256(nil); empty != hex.EncodeToString(e[:])[:12] {
		t.Errorf("empty series hash = %q", empty)
	}
}

func TestReadUpstream(t *testing.T) {
	p := filepath.Join(t.TempDir(), "UPSTREAM")
	os.WriteFile(p, []byte("# pinned release\nversion go1.27.3\nchecksum h1:abc=\n"), 0o644)
	if v, err := ReadUpstream(p); err != nil || v != "go1.27.3" {
		t.Errorf("ReadUpstream = %q, %v", v, err)
	}
	os.WriteFile(p, []byte("checksum h1:abc=\n"), 0o644)
	if _, err := ReadUpstream(p); err == nil {
		t.Errorf("no version line: no error")
	}
}

func TestFindRoot(t *testing.T) {
	root, err := FindRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "src", "internal", "harness")); err != nil {
		t.Errorf("FindRoot = %s: %v", root, err)
	}
	if _, err := FindRoot(t.TempDir()); err == nil {
		t.Errorf("FindRoot outside the repo: no error")
	}
}

func TestLoadSuite(t *testing.T) {
	root, _ := FindRoot(".")
	for _, n := range SuiteNames {
		s, err := LoadSuite(root, n)
		if err != nil {
			t.Errorf("suite %s: %v", n, err)
			continue
		}
		if len(s.Targets) == 0 {
			t.Errorf("suite %s is empty", n)
		}
	}
	if _, err := LoadSuite(root, "nosuch"); err == nil || !strings.Contains(err.Error(), `unknown suite "nosuch"`) {
		t.Errorf("unknown suite: %v", err)
	}
	s, _ := LoadSuite(root, "sched")
	if err := s.Filter("PingPong"); err != nil || len(s.Targets) != 1 {
		t.Errorf("Filter: %v, %d targets", err, len(s.Targets))
	}
	if err := s.Filter("nosuch"); err == nil {
		t.Errorf("Filter matching nothing: no error")
	}
	ext, _ := LoadSuite(root, "external")
	mods := map[string]bool{}
	for _, tg := range ext.Targets {
		mods[tg.Pkg.Module] = true
	}
	for _, m := range []string{"google.golang.org/grpc", "github.com/valyala/fasthttp", "github.com/nats-io/nats-server/v2", "github.com/panjf2000/ants/v2", "github.com/sourcegraph/conc", "go.etcd.io/bbolt"} {
		if !mods[m] {
			t.Errorf("external suite lacks %s", m)
		}
	}
}

func TestLoadExternalErrors(t *testing.T) {
	p := filepath.Join(t.TempDir(), "m.txt")
	for _, bad := range []string{
		"x example.com/m example.com/m ^B$\n",
		"x example.com/m@v1 other.com/p ^B$\n",
		"x example.com/m@v1 example.com/m ^B($\n",
		"# nothing\n",
	} {
		os.WriteFile(p, []byte(bad), 0o644)
		if _, err := LoadExternal(p); err == nil {
			t.Errorf("LoadExternal(%q): no error", bad)
		}
	}
}

const noisySame = `variant: a
toolchain: go1.27.3
godebug: none
BenchmarkX-2 1 100 ns/op
BenchmarkX-2 1 101 ns/op
BenchmarkX-2 1 102 ns/op
BenchmarkX-2 1 103 ns/op
BenchmarkX-2 1 104 ns/op
BenchmarkX-2 1 105 ns/op
variant: b
BenchmarkX-2 1 200 ns/op
BenchmarkX-2 1 201 ns/op
BenchmarkX-2 1 202 ns/op
BenchmarkX-2 1 203 ns/op
BenchmarkX-2 1 204 ns/op
BenchmarkX-2 1 205 ns/op
variant: c
toolchain: go1.27.3-schedlab.1
BenchmarkX-2 1 300 ns/op
BenchmarkX-2 1 301 ns/op
BenchmarkX-2 1 302 ns/op
BenchmarkX-2 1 303 ns/op
BenchmarkX-2 1 304 ns/op
BenchmarkX-2 1 305 ns/op
`

func TestSelfCheck(t *testing.T) {
	p := filepath.Join(t.TempDir(), "bench.txt")
	os.WriteFile(p, []byte(noisySame), 0o644)
	c, err := Compare([]string{p}, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(c.Cols, []string{"a", "b", "c"}) {
		t.Fatalf("columns %v", c.Cols)
	}
	w := c.SelfCheck()
	if len(w) != 1 || !strings.Contains(w[0], "a and b run the same toolchain") || !strings.Contains(w[0], "X-2") {
		t.Errorf("SelfCheck = %q, want one warning about a and b", w)
	}
	var buf bytes.Buffer
	c.WriteText(&buf)
	if !strings.Contains(buf.String(), "+97.56%") {
		t.Errorf("table lacks the +97.56%% delta:\n%s", buf.String())
	}
	if _, err := Compare([]string{p}, CompareOptions{Base: "zz"}); err == nil {
		t.Errorf("unknown base: no error")
	}
}

func TestBenchCPUName(t *testing.T) {
	raw := "goos: linux\ngoarch: amd64\ncpu: AMD EPYC 9654 96-Core Processor   \nBenchmarkX-2\t1\t1 ns/op\ncpu: other\n"
	if got := benchCPUName([]byte(raw)); got != "AMD EPYC 9654 96-Core Processor" {
		t.Errorf("benchCPUName = %q", got)
	}
	if got := benchCPUName([]byte("BenchmarkX-2\t1\t1 ns/op\n")); got != "" {
		t.Errorf("benchCPUName without a cpu line = %q, want empty", got)
	}
}
