package plots

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

func TestLog10Ticks(t *testing.T) {
	labels := func(lo, hi float64) (all []string) {
		for _, tk := range Log10Ticks.Ticks(lo, hi) {
			if tk.Value < lo-1e-9 || tk.Value > hi+1e-9 {
				t.Errorf("[%v, %v]: tick %v outside", lo, hi, tk.Value)
			}
			if tk.Label != "" {
				all = append(all, tk.Label)
			}
		}
		return all
	}
	// Six decades, 0.1 µs to 100 ms: the powers of ten only.
	if got := labels(-1, 5); len(got) != 7 || got[0] != "0.1" || got[4] != "1000" || got[5] != "10⁴" {
		t.Errorf("ticks of [-1, 5]: %q", got)
	}
	// Under three decades: 1, 2 and 5 times them too.
	if got := labels(0, 1.2); len(got) != 4 || got[1] != "2" || got[3] != "10" {
		t.Errorf("ticks of [0, 1.2]: %q", got)
	}
	if ts := Log10Ticks.Ticks(1, 1); ts != nil {
		t.Errorf("empty range: %v", ts)
	}
	if s := PowLabel(2e5); s != "2×10⁵" {
		t.Errorf("PowLabel(2e5) = %q", s)
	}
}

func TestLogCountScale(t *testing.T) {
	s := NewLogCountScale(1)
	if s.Max != 1 {
		t.Errorf("scale of ones spans %v decades, want 1", s.Max)
	}
	s = NewLogCountScale(5000)
	if !math.IsNaN(s.Z(0)) || s.Z(1) != 0 || math.Abs(s.Z(1000)-3) > 1e-12 || s.Z(1e9) != s.Max {
		t.Errorf("Z: 0→%v 1→%v 1000→%v 1e9→%v (max %v)", s.Z(0), s.Z(1), s.Z(1000), s.Z(1e9), s.Max)
	}
	// The key's cells are the heat map's colours: its axis spans them.
	lo, hi := s.keyRange()
	if lo >= 0 || hi <= s.Max {
		t.Errorf("key spans [%v, %v], want beyond [0, %v]", lo, hi, s.Max)
	}
	k := s.Key("runs per cell (count)")
	if k.X.Label.Text != "runs per cell (count, log scale)" {
		t.Errorf("key label %q", k.X.Label.Text)
	}
	path := filepath.Join(t.TempDir(), "key.svg")
	if err := SaveDrawing(4*vg.Inch, vg.Inch, path, func(c draw.Canvas) { k.Draw(c) }, Figure{Panels: []*plot.Plot{k}}); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{path, path[:len(path)-4] + ".png"} {
		if fi, err := os.Stat(f); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
}
