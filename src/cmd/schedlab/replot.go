package main

import (
	"errors"
	"flag"
	"fmt"
	"html"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/schedlab/schedlab/src/internal/plots"
	"github.com/schedlab/schedlab/src/internal/report"
	"github.com/schedlab/schedlab/src/internal/results"
	"github.com/schedlab/schedlab/src/internal/trace"
	"github.com/schedlab/schedlab/src/internal/tune"
)

// cmdReplot redraws the figures of results folders from the data they
// keep, in the current figure style: a report's plots from bench.txt, a
// tune folder's frontier from its state, a steal matrix from its
// steals.csv. It names the figures it cannot redraw (their input, a
// trace, is not kept).
func cmdReplot(args []string) error {
	fset := flag.NewFlagSet("replot", flag.ExitOnError)
	fset.Usage = func() {
		fmt.Fprintf(fset.Output(), "usage: schedlab replot folder...\n\nRedraws every figure under each folder that the data kept there can redraw,\nand names the others.\n")
	}
	fset.Parse(args)
	if fset.NArg() == 0 {
		fset.Usage()
		return fmt.Errorf("replot: give at least one results folder")
	}
	var failed bool
	for _, dir := range fset.Args() {
		if err := replotTree(dir); err != nil {
			fmt.Fprintf(os.Stderr, "replot: %v\n", err)
			failed = true
		}
	}
	if failed {
		return exitError{1}
	}
	return nil
}

// replotTree redraws the figures of root and of the folders under it.
func replotTree(root string) error {
	redrawn := map[string]bool{}
	err := filepath.WalkDir(root, func(dir string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		has := func(name string) bool { _, err := os.Stat(filepath.Join(dir, name)); return err == nil }
		if has(results.RawFile) && has(results.MetadataFile) && has(results.PlotsDir) {
			wrote, removed, err := report.Replot(dir)
			if err != nil {
				return fmt.Errorf("%s: %v", dir, err)
			}
			for _, w := range wrote {
				redrawn[filepath.Join(dir, w)] = true
			}
			fmt.Printf("%s: %d plots redrawn, %d of an older style removed\n", dir, len(wrote), len(removed))
		}
		if has(tune.StateFile) && has(tune.FrontierFile) {
			st, err := tune.Load(filepath.Join(dir, tune.StateFile))
			if err != nil {
				return fmt.Errorf("%s: %v", dir, err)
			}
			yUnit, limit := frontierUnit(st)
			series := ""
			if meta, err := results.ReadMetadata(dir); err == nil {
				series = meta.Series
			}
			if _, err := tune.PlotFrontier(dir, plots.Caption(dir, series), st, yUnit, limit); err != nil {
				return fmt.Errorf("%s: %v", dir, err)
			}
			redrawn[filepath.Join(dir, tune.FrontierFile)] = true
			fmt.Printf("%s: %s redrawn\n", dir, tune.FrontierFile)
		}
		if has(trace.StealsCSVFile) && has(trace.StealMatrixFile) {
			title, err := firstTitleLine(filepath.Join(dir, trace.StealMatrixFile))
			if err != nil {
				return err
			}
			if err := trace.ReplotStealMatrix(dir, title); err != nil {
				return err
			}
			redrawn[filepath.Join(dir, trace.StealMatrixFile)] = true
			fmt.Printf("%s: %s redrawn\n", dir, trace.StealMatrixFile)
		}
		return nil
	})
	if err != nil {
		return err
	}
	// What is left in an older style: figures whose inputs are not kept.
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".svg") || redrawn[path] {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if _, ok, _ := plots.SVGDesc(data); !ok {
			fmt.Printf("%s: not redrawn (its inputs are not kept in the folder)\n", path)
		}
		return nil
	})
}

var svgTextRE = regexp.MustCompile(`<text[^>]*>([^<]*)</text>`)

// firstTitleLine returns the first line of text an SVG figure draws: the
// first line of its title.
func firstTitleLine(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	m := svgTextRE.FindSubmatch(data)
	if m == nil {
		return "", errors.New(path + ": no text")
	}
	return html.UnescapeString(string(m[1])), nil
}
