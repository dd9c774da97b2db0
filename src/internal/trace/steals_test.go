package trace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The fixture is go tool trace -d=steals of a fork-join program at
// GOMAXPROCS=8 with GODEBUG=tracesteal=1,numa=1,numafake=2: Ps 0-3 on
// node 0, 4-7 on node 1.
func readStealFixture(t *testing.T) *StealTrace {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "steals-forkjoin-numafake2.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, err := ReadStealCSV(f)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestReadStealCSV(t *testing.T) {
	s := readStealFixture(t)
	if s.Steals != 212 || s.LocalMoved != 1683 || s.RemoteMoved != 146 || s.Hops != 4 {
		t.Errorf("steals %d, local %d, remote %d, hops %d; want 212, 1683, 146, 4", s.Steals, s.LocalMoved, s.RemoteMoved, s.Hops)
	}
	if len(s.Procs) != 8 || s.Node[3] != 0 || s.Node[4] != 1 {
		t.Errorf("procs %v, nodes %v: want 8 Ps, 0-3 on node 0 and 4-7 on node 1", s.Procs, s.Node)
	}
	// The matrix's off-block cells are the steals across nodes that the
	// distance argument counts, each counted once.
	if off := s.OffNodeMoved(); off != s.RemoteMoved {
		t.Errorf("off-block cells sum to %d, remote-distance steals to %d", off, s.RemoteMoved)
	}
	var text strings.Builder
	s.WriteText(&text)
	for _, want := range []string{"212 steals and 0 timer steals moved 1829 goroutines", "(92.0% local)", "node 0 <- node 1:", "P"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, text.String())
		}
	}
	dir := t.TempDir()
	if err := plotStealMatrix(filepath.Join(dir, StealMatrixFile), s, "test"); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{StealMatrixFile, "steal-matrix.png"} {
		if fi, err := os.Stat(filepath.Join(dir, f)); err != nil || fi.Size() == 0 {
			t.Errorf("%s not written: %v", f, err)
		}
	}
}

func TestReadStealCSVBad(t *testing.T) {
	for _, in := range []string{"", "a,b\n1,2\n", "time_ns,event\n\"unterminated\n"} {
		if _, err := ReadStealCSV(strings.NewReader(in)); err == nil {
			t.Errorf("ReadStealCSV(%q): no error", in)
		}
	}
	// Unknown events and odd numbers are skipped, not fatal.
	s, err := ReadStealCSV(strings.NewReader("time_ns,event,thief,victim,goroutines\n1,Future,1,2,3\n2,WorkSteal,x,1,2\n"))
	if err != nil || s.Steals != 1 || s.LocalMoved != 2 {
		t.Errorf("lenient parse: %+v, %v", s, err)
	}
}

func TestReadStealCSVOverflow(t *testing.T) {
	s, err := ReadStealCSV(strings.NewReader("time_ns,event,thief,victim,goroutines,runnext,distance,from,to,node,thread,cpu,proc,goroutine,ran,global\n" +
		"10,RunqOverflow,,,129,,,,,,,,2,,,129\n20,RunqOverflow,,,129,,,,,,,,3,,,258\n"))
	if err != nil {
		t.Fatal(err)
	}
	if s.Overflows != 2 || s.OverflowMoved != 258 || s.MaxGlobal != 258 || len(s.Procs) != 0 {
		t.Errorf("overflows %d moved %d max global %d procs %v; want 2, 258, 258, none", s.Overflows, s.OverflowMoved, s.MaxGlobal, s.Procs)
	}
	var text strings.Builder
	s.WriteText(&text)
	if !strings.Contains(text.String(), "2 local run queue overflows moved 258 goroutines") {
		t.Errorf("summary:\n%s", text.String())
	}
}
