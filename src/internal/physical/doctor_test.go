package physical

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestDoctorFixture runs the doctor on a fake root: a two-node machine
// with SMT, NUMA balancing on and a powersave governor, which must all
// be reported, and missing files, which must say so.
func TestDoctorFixture(t *testing.T) {
	root := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("sys/devices/system/node/node0/cpulist", "0-3,8-11\n")
	write("sys/devices/system/node/node0/distance", "10 21\n")
	write("sys/devices/system/node/node1/cpulist", "4-7,12-15\n")
	write("sys/devices/system/node/node1/distance", "21 10\n")
	write("sys/devices/system/cpu/online", "0-15\n")
	write("sys/devices/system/cpu/smt/active", "1\n")
	write("sys/devices/system/cpu/cpu0/topology/thread_siblings_list", "0,8\n")
	write("sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", "powersave\n")
	write("proc/sys/kernel/numa_balancing", "1\n")
	write("proc/self/status", "Name:\tx\nCpus_allowed_list:\t0-15\n")
	write("proc/cpuinfo", "processor\t: 0\nflags\t\t: fpu\n")
	write("proc/loadavg", "0.50 0.40 0.30 1/100 12345\n")

	d := RunDoctor(DoctorOptions{Root: root})
	if len(d.Nodes) != 2 || d.Nodes[1].CPUs != "4-7,12-15" || d.Nodes[0].Distances != "10 21" {
		t.Errorf("nodes = %+v", d.Nodes)
	}
	if d.CPUsAllowed != "0-15" || d.ThreadsPerCore != 2 || d.NUMABalancing != "1" {
		t.Errorf("allowed %q, threads per core %d, numa_balancing %q", d.CPUsAllowed, d.ThreadsPerCore, d.NUMABalancing)
	}
	if !strings.HasPrefix(d.PerfParanoid, "not available: ") || !strings.HasPrefix(d.Boost, "not available: ") {
		t.Errorf("missing files: perf_event_paranoid %q, boost %q; want not available", d.PerfParanoid, d.Boost)
	}
	for _, want := range []string{"numa_balancing=1", "governor powersave", "SMT: 2 threads"} {
		found := false
		for _, w := range d.Warnings {
			found = found || strings.Contains(w, want)
		}
		if !found {
			t.Errorf("no warning mentions %q: %q", want, d.Warnings)
		}
	}
	for _, w := range d.Warnings {
		if strings.Contains(w, "NUMA node(s)") {
			t.Errorf("warned about one node on a two-node machine: %q", w)
		}
	}

	var text, js bytes.Buffer
	d.WriteText(&text)
	if !strings.Contains(text.String(), "node 1: cpus 4-7,12-15, distances 21 10") {
		t.Errorf("text report:\n%s", text.String())
	}
	if err := d.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var back Doctor
	if err := json.Unmarshal(js.Bytes(), &back); err != nil || len(back.Nodes) != 2 {
		t.Errorf("JSON round trip: %v, %+v", err, back.Nodes)
	}
}

// TestDoctorOneNode checks the warning a one-node machine gets.
func TestDoctorOneNode(t *testing.T) {
	d := RunDoctor(DoctorOptions{Root: t.TempDir()})
	if len(d.Nodes) != 0 || len(d.Warnings) == 0 || !strings.Contains(d.Warnings[0], "0 NUMA node(s)") {
		t.Errorf("empty root: nodes %v, warnings %q", d.Nodes, d.Warnings)
	}
}

func TestPerfWhy(t *testing.T) {
	for err, want := range map[error]string{
		unix.ENOENT: "no such event",
		unix.EACCES: "perf_event_paranoid",
		unix.EINVAL: "invalid argument",
	} {
		if got := perfWhy(fmt.Errorf("open: %w", err)); !strings.Contains(got, want) {
			t.Errorf("perfWhy(%v) = %q, want it to mention %q", err, got, want)
		}
	}
}
