package physical

import (
	"os"
	"path/filepath"
	"testing"
)

func TestMachineProbes(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for list, want := range map[string]int{"0\n": 1, "0,64\n": 2, "0-1\n": 2, "0-3,8-11\n": 8, "x\n": 0} {
		if got := threadsPerCore(write("siblings", list)); got != want {
			t.Errorf("threadsPerCore(%q) = %d, want %d", list, got, want)
		}
	}
	if got := threadsPerCore(filepath.Join(dir, "missing")); got != 0 {
		t.Errorf("threadsPerCore(missing) = %d, want 0", got)
	}
	mem := write("meminfo", "MemFree:  100 kB\nMemTotal:       24576000 kB\n")
	if got := memTotalMiB(mem); got != 24000 {
		t.Errorf("memTotalMiB = %d, want 24000", got)
	}
	kvm := write("cpuinfo-kvm", "processor\t: 0\nflags\t\t: fpu vme hypervisor lahf_lm\n")
	metal := write("cpuinfo-metal", "processor\t: 0\nflags\t\t: fpu vme lahf_lm\n")
	xen := write("hypervisor-type", "xen\n")
	missing := filepath.Join(dir, "missing")
	for _, tc := range []struct{ typ, cpuinfo, want string }{
		{missing, kvm, "yes (cpuinfo hypervisor flag)"},
		{missing, metal, "none seen"},
		{xen, metal, "xen"},
		{missing, missing, "unknown"},
	} {
		if got := virtualization(tc.typ, tc.cpuinfo); got != tc.want {
			t.Errorf("virtualization(%s, %s) = %q, want %q", tc.typ, tc.cpuinfo, got, tc.want)
		}
	}
}
