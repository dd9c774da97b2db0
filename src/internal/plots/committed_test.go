package plots

import (
	"bufio"
	"html"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// UnredrawnFile lists, relative to the repository root, the committed
// figures that keep an older style because what they were drawn from is
// not committed (a trace), each with the reason: path, tab, reason.
const UnredrawnFile = "results/FIGURES-UNREDRAWN.tsv"

const repoRoot = "../../.."

var (
	svgSizeRE = regexp.MustCompile(`<svg width="([0-9.]+)pt" height="([0-9.]+)pt"`)
	svgTextRE = regexp.MustCompile(`<text[^>]*>([^<]*)</text>`)
	// A text that is a number in computer notation: a tick gonum
	// labelled itself.
	computerNumberRE = regexp.MustCompile(`^[−-]?[0-9.]+[eE][+-]?[0-9]+$`)
)

// TestCommittedFigures checks every figure committed under results/ and
// docs/ against the figure style (FigureDesc.Check): every SVG carries
// its description, which must pass the check and agree with what the SVG
// draws (its size, its axis labels, no tick in computer notation); every
// PNG is the raster of an SVG beside it, carries the same description
// and is at most a page in size at 200 dpi. Figures that cannot be
// redrawn are listed, with the reason, in UnredrawnFile.
func TestCommittedFigures(t *testing.T) {
	unredrawn := readUnredrawn(t)
	seen := map[string]bool{}
	var svgs, pngs int
	for _, top := range []string{"results", "docs"} {
		err := filepath.WalkDir(filepath.Join(repoRoot, top), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(repoRoot, path)
			switch filepath.Ext(path) {
			case ".svg":
				svgs++
			case ".png":
				pngs++
			default:
				return nil
			}
			if _, ok := unredrawn[rel]; ok {
				seen[rel] = true
				checkUnredrawn(t, path, rel)
				return nil
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			if filepath.Ext(path) == ".svg" {
				checkCommittedSVG(t, rel, data)
			} else {
				checkCommittedPNG(t, path, rel, data)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for rel := range unredrawn {
		if !seen[rel] {
			t.Errorf("%s: %s lists it, but there is no such figure", UnredrawnFile, rel)
		}
	}
	if svgs < 100 {
		t.Fatalf("only %d SVG figures under results/ and docs/: wrong root?", svgs)
	}
	t.Logf("%d SVG and %d PNG figures checked, %d listed as not redrawn", svgs, pngs, len(unredrawn))
}

func checkCommittedSVG(t *testing.T, rel string, data []byte) {
	t.Helper()
	d, ok, err := SVGDesc(data)
	if err != nil {
		t.Errorf("%s: its description: %v", rel, err)
		return
	}
	if !ok {
		t.Errorf("%s: no figure description: not drawn in the current style (redraw it with `schedlab replot`, or list it in %s with the reason)", rel, UnredrawnFile)
		return
	}
	for _, bad := range d.Check() {
		t.Errorf("%s: %s", rel, bad)
	}
	m := svgSizeRE.FindSubmatch(data)
	if m == nil {
		t.Errorf("%s: no size in points", rel)
		return
	}
	w, _ := strconv.ParseFloat(string(m[1]), 64)
	h, _ := strconv.ParseFloat(string(m[2]), 64)
	if w > MaxFigureWidth.Points()+0.5 || h > MaxFigureHeight.Points()+0.5 {
		t.Errorf("%s: %gpt × %gpt, larger than a page takes", rel, w, h)
	}
	texts := map[string]bool{}
	for _, m := range svgTextRE.FindAllSubmatch(data, -1) {
		s := html.UnescapeString(string(m[1]))
		texts[s] = true
		if computerNumberRE.MatchString(s) {
			t.Errorf("%s: draws %q, a number in computer notation", rel, s)
		}
	}
	axes := d.Axes
	if d.ColorBar != nil {
		axes = append(axes, *d.ColorBar)
	}
	for _, a := range axes {
		for _, line := range strings.Split(a.Label, "\n") {
			if line != "" && !texts[line] {
				t.Errorf("%s: its description names axis %q, which it does not draw", rel, line)
			}
		}
	}
}

func checkCommittedPNG(t *testing.T, path, rel string, data []byte) {
	t.Helper()
	svg, err := os.ReadFile(strings.TrimSuffix(path, ".png") + ".svg")
	if err != nil {
		// A PNG that is not a figure's raster (a screenshot) is not
		// schedlab's to check, but every one committed is a figure's.
		t.Errorf("%s: no SVG beside it: %v", rel, err)
		return
	}
	d, wpx, hpx, ok, err := PNGDesc(data)
	if err != nil || !ok {
		t.Errorf("%s: no figure description (%v): redraw it with its SVG", rel, err)
		return
	}
	sd, _, _ := SVGDesc(svg)
	if d.WidthIn != sd.WidthIn || d.HeightIn != sd.HeightIn || len(d.Axes) != len(sd.Axes) {
		t.Errorf("%s: its description differs from its SVG's: not drawn with it", rel)
	}
	const dpi = 200
	if float64(wpx) > MaxFigureWidth.Points()/72*dpi+1 || float64(hpx) > MaxFigureHeight.Points()/72*dpi+1 {
		t.Errorf("%s: %d × %d pixels, larger than a page at %d dpi", rel, wpx, hpx, dpi)
	}
}

// checkUnredrawn checks that a figure listed as not redrawn is still in
// the older style: one redrawn since comes off the list.
func checkUnredrawn(t *testing.T, path, rel string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Error(err)
		return
	}
	var ok bool
	if filepath.Ext(path) == ".svg" {
		_, ok, _ = SVGDesc(data)
	} else {
		_, _, _, ok, _ = PNGDesc(data)
	}
	if ok {
		t.Errorf("%s: listed in %s, but it is drawn in the current style: take it off the list", rel, UnredrawnFile)
	}
}

func readUnredrawn(t *testing.T) map[string]string {
	t.Helper()
	f, err := os.Open(filepath.Join(repoRoot, UnredrawnFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m := map[string]string{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		path, reason, ok := strings.Cut(line, "\t")
		if !ok || strings.TrimSpace(reason) == "" {
			t.Errorf("%s:%d: want path, tab, reason", UnredrawnFile, n)
			continue
		}
		m[path] = reason
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return m
}
