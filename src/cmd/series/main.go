// Command series maintains schedlab's patch series: it is what the
// Makefile's apply, extract, check, rebase, toolchain and verify-repro
// targets run.
//
// Usage:
//
//	series apply [-force]       reset toolchain/goroot to upstream and apply patches/
//	series extract              regenerate patches/ from toolchain/goroot
//	series check                the fast series gate (fresh apply, no-op extract, rules, prefixes compile)
//	series rebase <version>     move the series onto another upstream release
//	series check-rebase <version>  apply and compile the series on another release in a scratch repo (pin untouched)
//	series toolchain [-force]   apply if needed, stamp the version, make.bash
//	series verify-repro         build upstream unpatched, compare with the official binaries
//	series stock                print the verified stock GOROOT
//	series version              print the version the patched toolchain is stamped with
//	series hash                 print the short hash of patches/
//	series pin <version>        print a pin file for a release (checksum computed)
//	series mutants [-run re] [-o dir]  disable each listed mechanism in turn; its tests must fail
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/schedlab/schedlab/src/internal/series"
)

func main() {
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: series apply|extract|check|check-rebase|rebase|toolchain|verify-repro|stock|version|hash|runtime-hash|pin|mutants [flags] [args]")
		os.Exit(2)
	}
	flag.Parse()
	if flag.NArg() < 1 {
		flag.Usage()
	}
	root, err := repoRoot()
	if err != nil && flag.Arg(0) != "pin" {
		fatal(err)
	}
	s := series.New(root)
	cmd, args := flag.Arg(0), flag.Args()[1:]
	fs := flag.NewFlagSet(cmd, flag.ExitOnError)
	force := fs.Bool("force", os.Getenv("FORCE") == "1", "discard (after saving) unextracted work in toolchain/goroot; rebuild even if up to date")
	mutantsRun := fs.String("run", "", "mutants: only the mutants whose names match this regexp")
	mutantsOut := fs.String("o", filepath.Join(root, ".cache", "mutants"), "mutants: the folder for report.md and each mutant's test log")
	fs.Parse(args)
	switch cmd {
	case "apply":
		err = s.Apply(*force)
	case "extract":
		err = s.Extract()
	case "check":
		err = s.Check()
	case "rebase":
		if fs.NArg() != 1 {
			fatal(errors.New("usage: series rebase <version>, e.g. make rebase UPSTREAM=go1.26.8"))
		}
		err = s.Rebase(fs.Arg(0))
	case "check-rebase":
		if fs.NArg() != 1 {
			fatal(errors.New("usage: series check-rebase <version>, e.g. make check-rebase UPSTREAM=go1.26.11"))
		}
		err = s.CheckRebase(fs.Arg(0))
	case "toolchain":
		err = s.Build(*force)
	case "verify-repro":
		err = s.VerifyRepro(filepath.Join(root, "toolchain", "repro"))
	case "stock":
		var pin series.Pin
		if pin, err = s.ReadPin(); err == nil {
			var dir string
			if dir, err = s.Stock(pin); err == nil {
				fmt.Println(dir)
			}
		}
	case "version":
		var v string
		if v, err = s.Version(); err == nil {
			fmt.Println(v)
		}
	case "hash":
		var h string
		if h, err = s.SeriesHash(); err == nil {
			fmt.Println(h)
		}
	case "runtime-hash": // [patches dir]
		dir := s.Patches
		if fs.NArg() > 0 {
			dir = fs.Arg(0)
		}
		var h string
		if h, err = series.RuntimeFingerprint(dir); err == nil {
			fmt.Println(h)
		}
	case "pin":
		if fs.NArg() != 1 {
			fatal(errors.New("usage: series pin <version>"))
		}
		var dir, sum string
		if dir, err = series.StockGOROOT(fs.Arg(0)); err == nil {
			if sum, err = series.ChecksumDir(dir); err == nil {
				os.Stdout.Write(series.Pin{Version: fs.Arg(0), Checksum: sum}.Format())
			}
		}
	case "mutants":
		err = runMutants(root, *mutantsRun, *mutantsOut)
	default:
		flag.Usage()
	}
	if err != nil {
		fatal(err)
	}
}

func fatal(err error) {
	fmt.Fprintf(os.Stderr, "series: %v\n", err)
	os.Exit(1)
}

// repoRoot walks up from the working directory to the directory holding
// toolchain/UPSTREAM.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "toolchain", "UPSTREAM")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("not inside a schedlab checkout (no toolchain/UPSTREAM above the working directory)")
		}
		dir = parent
	}
}
