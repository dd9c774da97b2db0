package results

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/schedlab/schedlab/src/internal/physical"
)

// Backfill marks a metadata.json written after the run, from what the
// folder itself records (its README or log): the machine and the
// harness tree of the run were not recorded then and are left empty,
// not guessed.
type Backfill struct {
	Written string `json:"written"` // when this metadata was written (RFC 3339)
	From    string `json:"from"`    // the folder's files the fields were taken from
	// CommittedIn is the schedlab commit that added the folder: the
	// run's harness was that tree or an earlier one.
	CommittedIn string `json:"committed_in,omitempty"`
}

// HandRun describes a results folder made by a command other than
// schedlab bench (a test log, a study script, a CI run), for
// HandRunMetadata.
type HandRun struct {
	Command  string    // the command line, as it can be pasted to redo the run
	Series   string    // the series it measured; "" for none or not known
	Upstream string    // the upstream release it ran on
	Started  time.Time // zero if not known
	Finished time.Time // zero if not known
	Complete bool      // the command ran to its end
	Notes    []string
	Backfill *Backfill // non-nil: written afterwards, from the folder's files
}

// HandRunMetadata returns the metadata of a hand-run folder. For a run
// recorded now it probes the machine and the checkout at root (commit,
// dirty flag); for a backfilled one it records neither.
func HandRunMetadata(root string, h HandRun) *Metadata {
	m := &Metadata{
		Command:  h.Command,
		Suite:    "none (not schedlab bench)",
		Started:  h.Started,
		Finished: h.Finished,
		Complete: h.Complete,
		Upstream: h.Upstream,
		Series:   h.Series,
		Notes:    h.Notes,
	}
	if h.Backfill == nil {
		m.Machine = physical.ProbeMachine()
		m.Project = ProbeProvenance(root)
		return m
	}
	m.Backfilled = h.Backfill
	return m
}

// FolderAddedIn returns the commit of the checkout at root that first
// added results folder dir (relative to root), or "" if git does not
// know it.
func FolderAddedIn(root, dir string) string {
	out, err := exec.Command("git", "-C", root, "log", "--diff-filter=A", "--format=%H", "--", dir).Output()
	if err != nil {
		return ""
	}
	f := strings.Fields(string(out))
	if len(f) == 0 {
		return ""
	}
	return f[len(f)-1] // git log lists the newest first
}

// WriteHandRun writes h's metadata into dir, refusing to replace a
// metadata.json that is there unless force is set: a run's own
// metadata is the record, and a backfill must not overwrite it.
func WriteHandRun(root, dir string, h HandRun, force bool) (*Metadata, error) {
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("%s is not a folder", dir)
	}
	if _, err := os.Stat(filepath.Join(dir, MetadataFile)); err == nil && !force {
		return nil, fmt.Errorf("%s already exists (-force replaces it)", filepath.Join(dir, MetadataFile))
	}
	m := HandRunMetadata(root, h)
	return m, m.Write(dir)
}
