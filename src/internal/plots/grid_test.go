package plots

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/recorder"

	"github.com/schedlab/schedlab/src/internal/results"
	"github.com/schedlab/schedlab/src/internal/stats"
)

// studyBenchmarks are the rows of the workloads suite, whose longest
// name takes the most room left of a plot.
var studyBenchmarks = []string{
	"ForkJoinTree-8", "BurstyProducer-8", "ChanPipeline-8", "TimerStorm-8",
	"BlockingSyscall-8", "ParallelAlloc-8", "LatencyProbe-8", "HTTPLoopback-8",
	"FanOutSharedData-8", "PointerChase-8", "GCHeavy-8", "RequestResponse-8",
	"MutexContention/goroutines=10-8", "MutexContention/goroutines=100-8",
}

// writeStudy writes a results folder of the base and nvar variants, six
// rounds of benchmarks, each variant v slower than the base by v% (so
// that some changes are significant and some not) and with a local
// steal share; only the variants in counted also report steals/op (a
// counter the others lack). It returns the folder and the comparison
// against the base.
func writeStudy(t *testing.T, nvar int, benchmarks []string, counted map[int]bool) (string, *stats.Comparison, *results.Metadata) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "2026-12-06-vm-numa")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	meta := &results.Metadata{Suite: "workloads", Count: 6, Complete: true, Series: "b68a029308eb"}
	names := []string{"stock"}
	for v := 1; v <= nvar; v++ {
		names = append(names, fmt.Sprintf("variant-%d", v))
	}
	for _, name := range names {
		meta.Variants = append(meta.Variants, results.VariantMeta{Name: name})
	}
	var b strings.Builder
	b.WriteString("Unit local-steal-share better=higher\n\n")
	for round := range 6 {
		for v, name := range names {
			fmt.Fprintf(&b, "variant: %s\npkg: w\n", name)
			for i, bench := range benchmarks {
				ns := 1000 * (1 + float64(v*(i%3))/100) * (1 + float64(round)/500)
				share := 0.4 + 0.5*float64(v)/float64(nvar+1) + float64(round)/200
				fmt.Fprintf(&b, "Benchmark%s\t400\t%.1f ns/op\t%.4f local-steal-share", bench, ns, share)
				if v == 0 || counted[v] {
					fmt.Fprintf(&b, "\t%d steals/op", 10+v+round)
				}
				b.WriteString("\n")
			}
			b.WriteString("\n")
		}
	}
	if err := os.WriteFile(filepath.Join(dir, results.RawFile), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := stats.CompareAgainst(filepath.Join(dir, results.RawFile), "stock")
	if err != nil {
		t.Fatal(err)
	}
	return dir, c, meta
}

// checkToldApart fails when two variants of f share a colour, except
// where each is alone in a panel whose title names it (small multiples,
// whose panels all take one colour).
func checkToldApart(t *testing.T, what string, f *rowFigure) {
	t.Helper()
	type rgba [4]uint32
	owners := map[rgba][]string{}
	alone := map[string]bool{}
	seen := map[string]int{}
	for i, p := range f.figure.Panels {
		ms := f.marks[i]
		for _, m := range ms {
			r, g, b, a := m.color.RGBA()
			owners[rgba{r, g, b, a}] = append(owners[rgba{r, g, b, a}], m.name)
			seen[m.name]++
		}
		if len(ms) == 1 && strings.ReplaceAll(p.Title.Text, "\n", "") == ms[0].name {
			alone[ms[0].name] = true
		}
	}
	for c, names := range owners {
		if len(names) < 2 {
			continue
		}
		for _, n := range names {
			if !alone[n] {
				t.Errorf("%s: variants %q share colour %v in one figure", what, names, c)
				break
			}
		}
	}
	for n, k := range seen {
		if k != 1 {
			t.Errorf("%s: variant %s drawn %d times", what, n, k)
		}
	}
}

// TestVariantsToldApart checks that no figure of a report draws two
// variants in one colour: not with more variants than the palette has
// colours, not where a figure draws a few columns of many (a counter only
// some variants report, whose column numbers are a palette apart).
func TestVariantsToldApart(t *testing.T) {
	for _, tc := range []struct {
		nvar    int
		counted map[int]bool
	}{
		{2, nil},
		{8, nil},
		{9, nil},
		{12, nil},
		{18, nil},
		// Columns 1 and 13 (and 2 and 14): palette[i%12] alike.
		{14, map[int]bool{1: true, 13: true}},
		{14, map[int]bool{1: true, 2: true, 13: true, 14: true}},
	} {
		_, c, _ := writeStudy(t, tc.nvar, studyBenchmarks[:4], tc.counted)
		for _, unit := range []string{"sec/op", "steals/op"} {
			tab := c.Table(unit)
			if tab == nil || unit == "steals/op" && tc.counted == nil {
				continue
			}
			what := fmt.Sprintf("%d variants, change in %s", tc.nvar, unit)
			ch := deltaChart(c, tab, "caption")
			checkToldApart(t, what, ch.layout())
		}
		tab := c.Table("local-steal-share")
		what := fmt.Sprintf("%d variants, local-steal-share levels", tc.nvar)
		checkToldApart(t, what, levelChart(c, tab, "caption").layout())
	}
}

// TestSmallMultiples: a study of 18 variants (the NUMA study's) draws
// its change plots as small multiples, a panel per variant, that keep the
// figure style: its description (SVG and PNG) passes the checks the
// committed figures pass, the benchmarks are named left of the first
// column only, every panel has the same x range, the x ticks are
// labelled under the last panel of each column, the panels' data line
// up, and the figure is no larger than a page, nor taller than one panel
// of them all would be.
func TestSmallMultiples(t *testing.T) {
	const nvar = 18
	dir, c, meta := writeStudy(t, nvar, studyBenchmarks, nil)
	plots, err := Write(dir, c, meta)
	if err != nil {
		t.Fatal(err)
	}
	for rel, panels := range map[string]int{
		filepath.Join(results.PlotsDir, "delta-sec-per-op.svg"):         nvar,     // against the base
		filepath.Join(results.PlotsDir, "levels-local-steal-share.svg"): nvar + 1, // and the base's
	} {
		if !slices.Contains(plots, rel) {
			t.Fatalf("plots %q: no %s", plots, rel)
		}
		svg, err := os.ReadFile(filepath.Join(dir, rel))
		if err != nil {
			t.Fatal(err)
		}
		checkCommittedSVG(t, rel, svg)
		png := strings.TrimSuffix(rel, ".svg") + ".png"
		data, err := os.ReadFile(filepath.Join(dir, png))
		if err != nil {
			t.Fatal(err)
		}
		checkCommittedPNG(t, filepath.Join(dir, png), png, data)
		d, _, _ := SVGDesc(svg)
		if len(d.Titles) != panels+1 || !strings.Contains(d.Titles[0], "series b68a029308eb, results/2026-12-06-vm-numa") {
			t.Errorf("%s: titles %q, want the figure's, naming series and folder, and %d, one per panel", rel, d.Titles, panels)
		}
		units := 0
		for _, a := range d.Axes {
			if a.Numeric && namesUnit(a.Label) {
				units++
			}
		}
		if units != 1 {
			t.Errorf("%s: %d labelled numeric axes, want the one under the grid: %+v", rel, units, d.Axes)
		}
	}

	_, single := rowPlot(studyBenchmarks, nvar, nvar+1)
	for _, ch := range []*rowChart{
		deltaChart(c, c.Table("sec/op"), "caption"),
		levelChart(c, c.Table("local-steal-share"), "caption"),
	} {
		f := ch.layout()
		if f.grid == nil || len(f.figure.Panels) != len(ch.marks) {
			t.Fatalf("%s: %d variants in %d panels, want small multiples", ch.title, len(ch.marks), len(f.figure.Panels))
		}
		if f.w > MaxFigureWidth || f.h > single || f.h > MaxFigureHeight {
			t.Errorf("%s: %.2f×%.2f in; a page takes %.2f×%.2f, one panel would take %.2f in", ch.title,
				inches(f.w), inches(f.h), inches(MaxFigureWidth), inches(MaxFigureHeight), inches(single))
		}
		ncols := len(f.grid[0])
		cv := draw.NewCanvas(&recorder.Canvas{}, f.w, f.h)
		sp := measureGrid(f.grid, f.w)
		data := sp.place(cv, vg.Points(8), vg.Points(6))
		x0, x1 := f.grid[0][0].X.Min, f.grid[0][0].X.Max
		for j, row := range f.grid {
			for i, p := range row {
				if p == nil {
					continue
				}
				k := j*ncols + i
				if p.Title.Text != ch.marks[k].name {
					t.Errorf("%s: panel %d,%d titled %q, want %q", ch.title, j, i, p.Title.Text, ch.marks[k].name)
				}
				y, yDrawn := describeAxis(&p.Y)
				if left := i == 0; left != yDrawn || left && !slices.Equal(y.Ticks, bottomUp(studyBenchmarks)) {
					t.Errorf("%s: panel %d,%d: benchmarks named %v (%q), want only in the first column", ch.title, j, i, yDrawn, y.Ticks)
				}
				x, xDrawn := describeAxis(&p.X)
				if bottom := k+ncols >= len(ch.marks); bottom != xDrawn || x.Label != "" {
					t.Errorf("%s: panel %d,%d: x axis drawn %v, labelled %q; want ticks under the last panel of a column", ch.title, j, i, xDrawn, x.Label)
				}
				if p.X.Min != x0 || p.X.Max != x1 {
					t.Errorf("%s: panel %d,%d: x range [%g, %g], panel 0,0's [%g, %g]", ch.title, j, i, p.X.Min, p.X.Max, x0, x1)
				}
				got := p.DataCanvas(fitData(p, cv, data[j][i])).Rectangle
				want := data[j][i]
				if d := math.Max(math.Max(math.Abs(float64(got.Min.X-want.Min.X)), math.Abs(float64(got.Max.X-want.Max.X))),
					math.Max(math.Abs(float64(got.Min.Y-want.Min.Y)), math.Abs(float64(got.Max.Y-want.Max.Y)))); d > 0.1 || math.IsNaN(d) {
					t.Errorf("%s: panel %d,%d draws its data at %v, want %v", ch.title, j, i, got, want)
				}
			}
		}
	}
}

// TestPanelTitles: a variant's name wider than its panel is set smaller,
// and broken after its commas where it still does not fit.
func TestPanelTitles(t *testing.T) {
	short := []string{"bind1", "confine-mem2"}
	if got, size := panelTitles(short, 100); !slices.Equal(got, short) || size != vg.Points(gridTitleSize) {
		t.Errorf("panelTitles(%q) = %q at %v", short, got, size)
	}
	long := []string{"bind1", "numa=1,numasteal=2,numawake=1,numamem=2"}
	got, size := panelTitles(long, 80)
	if size != vg.Points(gridMinTitleSize) || !strings.Contains(got[1], ",\n") || strings.ReplaceAll(got[1], "\n", "") != long[1] {
		t.Errorf("panelTitles(%q) = %q at %v", long, got, size)
	}
}
