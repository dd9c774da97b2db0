package campaign

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/schedlab/schedlab/src/internal/results"
)

// Runner runs a command and returns its standard output; Submit takes
// one so that its command lines can be tested without Slurm.
type Runner func(name string, args ...string) (string, error)

// Submit submits the campaign written into c.Dir: the tasks (one array
// job, or one job per node of the node list, pinned to it), then the
// merge job, after all of them (afterany). It records every sbatch
// command line and the job ID it got in submit.txt, and returns the
// merge job's ID.
func Submit(c *Config, run Runner) (string, error) {
	task, merge := filepath.Join(c.Dir, TaskScript), filepath.Join(c.Dir, MergeScript)
	var cmds [][]string
	if len(c.Nodelist) == 0 {
		cmds = append(cmds, []string{"sbatch", "--parsable", fmt.Sprintf("--array=0-%d", c.Tasks-1), task})
	} else {
		for i, node := range c.Nodelist {
			cmds = append(cmds, []string{"sbatch", "--parsable", "--nodelist=" + node,
				"--export=ALL,CAMPAIGN_TASK=" + strconv.Itoa(i),
				"--output=" + filepath.Join(c.Dir, LogsDir, fmt.Sprintf("task-%%j_%d.out", i)), task})
		}
	}
	var log strings.Builder
	var ids []string
	submit := func(cmd []string) (string, error) {
		out, err := run(cmd[0], cmd[1:]...)
		if err != nil {
			return "", fmt.Errorf("%s: %v", strings.Join(cmd, " "), err)
		}
		// --parsable prints "jobid" or "jobid;cluster".
		id, _, _ := strings.Cut(strings.TrimSpace(out), ";")
		if _, err := strconv.Atoi(id); err != nil {
			return "", fmt.Errorf("%s printed %q, not a job ID", strings.Join(cmd, " "), out)
		}
		q := make([]string, len(cmd))
		for i, a := range cmd {
			q[i] = results.ShellQuote(a)
		}
		fmt.Fprintf(&log, "%s\n# job %s\n", strings.Join(q, " "), id)
		return id, nil
	}
	id, err := func() (string, error) {
		for _, cmd := range cmds {
			id, err := submit(cmd)
			if err != nil {
				return "", err
			}
			ids = append(ids, id)
		}
		return submit([]string{"sbatch", "--parsable", "--dependency=afterany:" + strings.Join(ids, ":"), merge})
	}()
	// Also after a failure: the jobs already submitted are running.
	if werr := os.WriteFile(filepath.Join(c.Dir, SubmitFile), []byte(log.String()), 0o644); err == nil {
		err = werr
	}
	return id, err
}
