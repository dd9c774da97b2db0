package main

import "testing"

func TestCommandLine(t *testing.T) {
	got := commandLine([]string{"/x/schedlab", "bench", "-variant", "stock", "-wrap", "oracle=numactl --membind=0", "-bench", "Fork|Join", "it's"})
	want := `schedlab bench -variant stock -wrap 'oracle=numactl --membind=0' -bench 'Fork|Join' 'it'\''s'`
	if got != want {
		t.Errorf("commandLine = %s\nwant          %s", got, want)
	}
}
