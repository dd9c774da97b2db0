package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/src/internal/toolchain"
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

// TestExecTrace: -exectrace adds the trace flag to the named variant's
// runs only, and instruction mode refuses a wrapper, which cachegrind
// would not count, rather than dropping it.
func TestExecTrace(t *testing.T) {
	vs, err := ParseVariants([]string{"trace=patched", "notrace=patched"})
	if err != nil {
		t.Fatal(err)
	}
	if err := ApplyExecTrace(vs, []string{"trace"}); err != nil {
		t.Fatal(err)
	}
	if err := ApplyExecTrace(vs, []string{"nobody"}); err == nil || !strings.Contains(err.Error(), `no variant named "nobody"`) {
		t.Errorf("ApplyExecTrace(nobody) error = %v", err)
	}
	args := []string{"-test.bench=X"}
	if got := execTraceArgs(vs[0], args, "/tmp/t.out"); !reflect.DeepEqual(got, []string{"-test.bench=X", "-test.trace=/tmp/t.out"}) {
		t.Errorf("traced variant's args = %q", got)
	}
	if got := execTraceArgs(vs[1], args, "/tmp/t.out"); !reflect.DeepEqual(got, args) {
		t.Errorf("untraced variant's args = %q", got)
	}
	if len(args) != 1 {
		t.Errorf("execTraceArgs changed its argument: %q", args)
	}
	if err := ApplyWrappers(vs, []string{"notrace=env"}); err != nil {
		t.Fatal(err)
	}
	opt := Options{Suite: &Suite{Name: "workloads"}, Variants: vs, Count: 1, Measure: MeasureInstructions}
	if _, err := opt.check(); err == nil || !strings.Contains(err.Error(), "variant notrace runs under a wrapper") {
		t.Errorf("instruction mode with a wrapped variant: error = %v", err)
	}
}

// TestWrappedVariantsShareGOMAXPROCS: where a variant runs under a
// wrapper and no -cpu is given, every variant runs at the CPU count the
// harness sees, so that numactl --cpunodebind cannot give the wrapped
// one fewer Ps (and benchmark names of another suffix) than the others.
func TestWrappedVariantsShareGOMAXPROCS(t *testing.T) {
	vs, err := ParseVariants([]string{"stock", "oracle=stock"})
	if err != nil {
		t.Fatal(err)
	}
	opt := Options{Suite: &Suite{Name: "workloads"}, Variants: vs, Count: 1}
	if _, err := opt.check(); err != nil || opt.CPU != "" {
		t.Errorf("without a wrapper: CPU %q (error %v), want none", opt.CPU, err)
	}
	if err := ApplyWrappers(vs, []string{"oracle=env"}); err != nil {
		t.Fatal(err)
	}
	opt = Options{Suite: &Suite{Name: "workloads"}, Variants: vs, Count: 1}
	if _, err := opt.check(); err != nil || opt.CPU != strconv.Itoa(runtime.NumCPU()) {
		t.Errorf("with a wrapper: CPU %q (error %v), want %d", opt.CPU, err, runtime.NumCPU())
	}
	opt = Options{Suite: &Suite{Name: "workloads"}, Variants: vs, Count: 1, CPU: "8"}
	if _, err := opt.check(); err != nil || opt.CPU != "8" {
		t.Errorf("with a wrapper and -cpu 8: CPU %q (error %v), want 8", opt.CPU, err)
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

func TestLoadSuite(t *testing.T) {
	root, _ := toolchain.FindRoot(".")
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

func TestBenchCPUName(t *testing.T) {
	raw := "goos: linux\ngoarch: amd64\ncpu: AMD EPYC 9654 96-Core Processor   \nBenchmarkX-2\t1\t1 ns/op\ncpu: other\n"
	if got := benchCPUName([]byte(raw)); got != "AMD EPYC 9654 96-Core Processor" {
		t.Errorf("benchCPUName = %q", got)
	}
	if got := benchCPUName([]byte("BenchmarkX-2\t1\t1 ns/op\n")); got != "" {
		t.Errorf("benchCPUName without a cpu line = %q, want empty", got)
	}
}
