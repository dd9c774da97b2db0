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
	ws, gated, err := selectWorkloads("ring,syscall,forkjoin", 0.002)
	if err != nil || len(ws) != 3 || ws[0].Name != "ring" || ws[1].Name != "forkjoin" || ws[2].Name != "syscall" {
		t.Fatalf("selectWorkloads(ring,syscall,forkjoin) = %v, %v; want ring, forkjoin, syscall", ws, err)
	}
	if gated["ring"] != 0.002 || gated["forkjoin"] != 0.01 || gated["syscall"] != 0 {
		t.Errorf("gated = %v; want ring at the -threshold, forkjoin at 1%%, syscall not gated", gated)
	}
	if ws, _, err := selectWorkloads("", 0.002); err != nil || len(ws) < 5 {
		t.Errorf("selectWorkloads(\"\") = %d workloads, %v; want all", len(ws), err)
	}
	if _, _, err := selectWorkloads("ring,nosuch", 0.002); err == nil {
		t.Errorf("selectWorkloads(ring,nosuch): no error")
	}
}
