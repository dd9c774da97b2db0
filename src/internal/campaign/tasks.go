package campaign

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/schedlab/schedlab/src/internal/merge"
)

// A Task is how one task of a campaign ended, from tasks/<N>.status.
type Task struct {
	N        int
	Host     string
	Job      string
	Exit     int  // the study's exit status; -1 if the task never finished
	Running  bool // started and never recorded an end (killed by Slurm)
	Summary  string
	Log      string
	Folders  []string // results folders the study printed
	Recorded bool     // a status file exists
}

// ReadTask reads the status of task n of the campaign folder dir. A task
// with no status file never started.
func ReadTask(dir string, n int) (*Task, error) {
	t := &Task{N: n, Exit: -1}
	f, err := os.Open(filepath.Join(dir, TasksDir, strconv.Itoa(n)+".status"))
	if os.IsNotExist(err) {
		return t, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	t.Recorded = true
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), "=")
		switch k {
		case "host":
			t.Host = v
		case "job":
			t.Job = v
		case "running":
			t.Running = v == "yes"
		case "exit":
			t.Running = false
			if t.Exit, err = strconv.Atoi(v); err != nil {
				return nil, fmt.Errorf("task %d: exit %q", n, v)
			}
		case "summary":
			t.Summary = v
		case "log":
			t.Log = v
		case "folder":
			t.Folders = append(t.Folders, v)
		}
	}
	return t, sc.Err()
}

// label names a task in the merged report.
func (t *Task) label() string {
	if t.Host == "" {
		return fmt.Sprintf("task %d", t.N)
	}
	return fmt.Sprintf("task %d (%s)", t.N, t.Host)
}

// failure says why a task sent no results, or "" if it did.
func (t *Task) failure(dir string, c *Config) string {
	logs := filepath.Join(dir, LogsDir)
	log := t.Log
	if log != "" {
		log = c.local(dir, log)
	}
	switch {
	case !t.Recorded:
		return fmt.Sprintf("no status: the task never started (cancelled, or its node never came up); Slurm's logs are in %s", logs)
	case t.Running:
		return fmt.Sprintf("started at job %s and recorded no end: killed by Slurm (time limit %s, node failure or scancel); see %s and %s", t.Job, c.Time, log, logs)
	case t.Exit != 0:
		return fmt.Sprintf("%s (log %s)", t.Summary, log)
	case len(t.Folders) == 0:
		return fmt.Sprintf("the study exited 0 but printed no results folder (log %s)", log)
	}
	return ""
}

// stampedFolder is a study folder's name: <date>-<host>-<study folder>,
// with -2, -3 … from fresh_dir where a name was taken.
var stampedFolder = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}-[^-]+-(.+?)(-\d+)?$`)

// kind is the part of a results folder's name that says which of a
// study's folders it is (numa, sysmontick, cost-quick …), the same on
// every host.
func kind(folder string) string {
	m := stampedFolder.FindStringSubmatch(filepath.Base(folder))
	if m == nil {
		return filepath.Base(folder)
	}
	return m[1]
}

// local returns the path by which folder f, as a task printed it, is
// reached from dir, the campaign folder as the caller names it: under
// the campaign folder (where the tasks write) relative to it, so that a
// merge run from the campaign folder records paths that still hold
// when the folder is moved; a relative f is the checkout's.
func (c *Config) local(dir, f string) string {
	if !filepath.IsAbs(f) {
		f = filepath.Join(c.Checkout, f)
	}
	if rel, err := filepath.Rel(c.Dir, f); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
		return filepath.Join(dir, rel)
	}
	return f
}

// Merge merges the campaign folder dir: each kind of results folder the
// tasks wrote into merged/ (merged-<kind>/ where a study writes several
// kinds), every task that sent none listed in each README with why.
// It returns the merged folders written.
func Merge(dir string) ([]string, error) {
	c, err := Read(dir)
	if err != nil {
		return nil, err
	}
	var missing []merge.Missing
	byKind := map[string][]string{}
	for n := 0; n < c.Tasks; n++ {
		t, err := ReadTask(dir, n)
		if err != nil {
			return nil, err
		}
		if why := t.failure(dir, c); why != "" {
			missing = append(missing, merge.Missing{Label: t.label(), Reason: why})
			continue
		}
		for _, f := range t.Folders {
			byKind[kind(f)] = append(byKind[kind(f)], c.local(dir, f))
		}
	}
	kinds := make([]string, 0, len(byKind))
	for k := range byKind {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	outs := map[string]string{}
	switch len(kinds) {
	case 0:
		outs[""] = filepath.Join(dir, MergedDir)
	case 1:
		outs[kinds[0]] = filepath.Join(dir, MergedDir)
	default:
		for _, k := range kinds {
			outs[k] = filepath.Join(dir, MergedDir+"-"+k)
		}
	}
	var written []string
	for _, k := range append(kinds, "") {
		out, ok := outs[k]
		if !ok {
			continue
		}
		if _, err := merge.Folders(out, byKind[k], missing); err != nil {
			return written, err
		}
		written = append(written, out)
	}
	return written, nil
}
