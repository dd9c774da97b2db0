package main

import (
	"flag"
	"fmt"
	"path/filepath"
	"time"

	"github.com/schedlab/schedlab/src/internal/results"
	"github.com/schedlab/schedlab/src/internal/toolchain"
)

// cmdMetadata writes metadata.json for a results folder that schedlab
// bench did not make: a test log, a study script's output, a CI run.
func cmdMetadata(args []string) error {
	fs := flag.NewFlagSet("metadata", flag.ExitOnError)
	out := fs.String("out", "", "the results folder (required)")
	command := fs.String("command", "", "the command that made the folder, as it can be pasted to redo it (required)")
	seriesFlag := fs.String("series", "", "the series it measured (default: the checkout's patches/, unless -backfill)")
	started := fs.String("started", "", "when the run started (RFC 3339)")
	finished := fs.String("finished", "", "when the run finished (RFC 3339; default: now, unless -backfill)")
	incomplete := fs.Bool("incomplete", false, "the command did not run to its end")
	backfill := fs.String("backfill", "", "write the metadata afterwards, from these files of the folder (e.g. README.md): the machine and harness tree are not probed")
	force := fs.Bool("force", false, "replace an existing metadata.json")
	var notes listFlag
	fs.Var(&notes, "note", "a note (repeatable)")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: schedlab metadata -out DIR -command CMD [flags]\n\n"+
			"Writes DIR/%s for a folder made by another command than schedlab bench, so that\n"+
			"every results folder says what made it. A run recorded now gets the machine and the\n"+
			"checkout's commit and dirty flag; -backfill records what the folder's own files say\n"+
			"and the commit that added the folder, and leaves the rest empty.\n\n", results.MetadataFile)
		fs.PrintDefaults()
	}
	fs.Parse(args)
	if *out == "" || *command == "" || fs.NArg() > 0 {
		fs.Usage()
		return exitError{2}
	}
	r, err := root()
	if err != nil {
		return err
	}
	h := results.HandRun{Command: *command, Series: *seriesFlag, Complete: !*incomplete, Notes: notes}
	if h.Upstream, err = toolchain.ReadUpstream(filepath.Join(r, "toolchain", "UPSTREAM")); err != nil {
		return err
	}
	parse := func(s string) (time.Time, error) {
		if s == "" {
			return time.Time{}, nil
		}
		return time.Parse(time.RFC3339, s)
	}
	if h.Started, err = parse(*started); err != nil {
		return fmt.Errorf("-started: %v", err)
	}
	if h.Finished, err = parse(*finished); err != nil {
		return fmt.Errorf("-finished: %v", err)
	}
	if *backfill != "" {
		abs, err := filepath.Abs(*out)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(r, abs)
		if err != nil {
			return err
		}
		h.Backfill = &results.Backfill{
			Written:     time.Now().UTC().Format(time.RFC3339),
			From:        *backfill,
			CommittedIn: results.FolderAddedIn(r, rel),
		}
	} else {
		if h.Series == "" {
			if h.Series, err = toolchain.SeriesHash(filepath.Join(r, "patches")); err != nil {
				return err
			}
		}
		if h.Finished.IsZero() {
			h.Finished = time.Now().UTC().Truncate(time.Second)
		}
	}
	if _, err := results.WriteHandRun(r, *out, h, *force); err != nil {
		return err
	}
	fmt.Printf("wrote %s\n", filepath.Join(*out, results.MetadataFile))
	return nil
}
