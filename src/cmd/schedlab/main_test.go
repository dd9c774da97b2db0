package main

import "testing"

func TestCommandLine(t *testing.T) {
	got := commandLine([]string{"/x/schedlab", "bench", "-variant", "stock", "-wrap", "oracle=numactl --membind=0", "-bench", "Fork|Join", "it's"})
	want := `schedlab bench -variant stock -wrap 'oracle=numactl --membind=0' -bench 'Fork|Join' 'it'\''s'`
	if got != want {
		t.Errorf("commandLine = %s\nwant          %s", got, want)
	}
}

func TestSelectWorkloads(t *testing.T) {
	ws, gated, err := selectWorkloads("ring,syscall")
	if err != nil || len(ws) != 2 || ws[0].Name != "ring" || ws[1].Name != "syscall" {
		t.Fatalf("selectWorkloads(ring,syscall) = %v, %v; want ring and syscall only", ws, err)
	}
	if !gated["ring"] || gated["syscall"] {
		t.Errorf("gated = %v; want ring gated, syscall not", gated)
	}
	if ws, _, err := selectWorkloads(""); err != nil || len(ws) < 5 {
		t.Errorf("selectWorkloads(\"\") = %d workloads, %v; want all", len(ws), err)
	}
	if _, _, err := selectWorkloads("ring,nosuch"); err == nil {
		t.Errorf("selectWorkloads(ring,nosuch): no error")
	}
}
