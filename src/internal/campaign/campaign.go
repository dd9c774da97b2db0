// Package campaign runs one study on several machines through Slurm and
// merges their folders into one report. It writes two batch scripts
// into a campaign folder on a file system the nodes share: a task script
// that runs `scripts/study.sh STUDY` with a node to itself and records
// how it ended, and a merge script that runs after every task has ended
// and calls package merge over the folders that came back, naming in the
// README the tasks that sent none.
//
// The merge job depends on the tasks with afterany, not afterok: with
// afterok a task that Slurm kills (time limit, node failure) would leave
// the merge pending for ever, and every host's results unreported. A
// task whose study fails ends normally after recording its exit status,
// so both cases reach the report.
package campaign

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/schedlab/schedlab/src/internal/results"
)

// Files of a campaign folder.
const (
	ConfigFile  = "campaign.json" // the Config, with the command that wrote it
	TaskScript  = "task.sbatch"   // one study on one node
	MergeScript = "merge.sbatch"  // schedlab campaign -merge, after the tasks
	SubmitFile  = "submit.txt"    // the sbatch command lines run and the job IDs
	TasksDir    = "tasks"         // <task>.status: how each task ended
	HostsDir    = "hosts"         // task<task>/: the results folders of each task
	LogsDir     = "logs"          // Slurm's output of every job
	MergedDir   = "merged"        // the merged report (merged-<study folder> for several)
)

// Build says where a campaign's toolchain comes from.
const (
	// BuildShared: built once, before submitting, in the checkout, which
	// every node reads at the same path. The nodes must run the submit
	// host's architecture and OS.
	BuildShared = "shared"
	// BuildNode: every task clones the checkout into node-local
	// scratch ($TMPDIR) and builds there, for nodes of several types.
	BuildNode = "node"
)

// Config is a campaign: which study, where, on how many nodes.
type Config struct {
	Study     string   `json:"study"`              // a scripts/study.sh study
	Dir       string   `json:"dir"`                // the campaign folder (absolute; shared with the nodes)
	Checkout  string   `json:"checkout"`           // the schedlab checkout (absolute; shared with the nodes)
	Tasks     int      `json:"tasks"`              // array tasks, one study each; len(Nodelist) with a node list
	Nodelist  []string `json:"nodelist,omitempty"` // one job per node, pinned to it (--nodelist)
	Partition string   `json:"partition,omitempty"`
	Time      string   `json:"time"`                // --time of each task
	Build     string   `json:"build"`               // BuildShared or BuildNode
	Count     string   `json:"count,omitempty"`     // COUNT for study.sh
	Benchtime string   `json:"benchtime,omitempty"` // BENCHTIME
	Bench     string   `json:"bench,omitempty"`     // BENCH: narrows a study of the whole suite
	Sbatch    []string `json:"sbatch,omitempty"`    // extra sbatch options for every job (--account=…, --constraint=…)
	Command   string   `json:"command"`             // the schedlab campaign command line that wrote it
}

// studyName is what scripts/study.sh accepts as a study name; the name
// is also part of file names and of the jobs' names.
var studyName = regexp.MustCompile(`^[a-z][a-z0-9-]*$`)

// slurmTime is sbatch's --time: minutes, MM:SS, HH:MM:SS, D-HH, D-HH:MM,
// D-HH:MM:SS.
var slurmTime = regexp.MustCompile(`^(\d+-)?\d+(:\d+){0,2}$`)

// Check reports the first thing wrong with c, or nil.
func (c *Config) Check() error {
	switch {
	case !studyName.MatchString(c.Study):
		return fmt.Errorf("campaign: study %q: want a scripts/study.sh study name (numa, cost, …)", c.Study)
	case !filepath.IsAbs(c.Dir) || !filepath.IsAbs(c.Checkout):
		return fmt.Errorf("campaign: the campaign folder and the checkout must be absolute paths (got %q, %q)", c.Dir, c.Checkout)
	case len(c.Nodelist) > 0 && c.Tasks != len(c.Nodelist):
		return fmt.Errorf("campaign: %d tasks for %d nodes: with a node list there is one task per node", c.Tasks, len(c.Nodelist))
	case c.Tasks < 1:
		return fmt.Errorf("campaign: %d tasks: want at least one", c.Tasks)
	case !slurmTime.MatchString(c.Time):
		return fmt.Errorf("campaign: time %q: want sbatch's --time form (minutes, HH:MM:SS, D-HH:MM)", c.Time)
	case c.Build != BuildShared && c.Build != BuildNode:
		return fmt.Errorf("campaign: build %q: want %s or %s", c.Build, BuildShared, BuildNode)
	}
	for _, n := range c.Nodelist {
		if n == "" || strings.ContainsAny(n, ", \t\n'\"") {
			return fmt.Errorf("campaign: node name %q", n)
		}
	}
	for _, o := range c.Sbatch {
		if !strings.HasPrefix(o, "--") || strings.ContainsAny(o, "\n") {
			return fmt.Errorf("campaign: sbatch option %q: want one --name=value", o)
		}
	}
	return nil
}

// Write checks c, creates its campaign folder and writes the config and
// both scripts into it. It refuses a folder that holds a campaign
// already: a rerun gets a folder of its own.
func Write(c *Config) error {
	if err := c.Check(); err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(c.Dir, ConfigFile)); err == nil {
		return fmt.Errorf("campaign: %s holds a campaign already; choose another folder", c.Dir)
	}
	for _, d := range []string{TasksDir, HostsDir, LogsDir} {
		if err := os.MkdirAll(filepath.Join(c.Dir, d), 0o755); err != nil {
			return err
		}
	}
	data, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(c.Dir, ConfigFile), append(data, '\n'), 0o644); err != nil {
		return err
	}
	for name, content := range map[string]string{TaskScript: c.taskScript(), MergeScript: c.mergeScript()} {
		if err := os.WriteFile(filepath.Join(c.Dir, name), []byte(content), 0o755); err != nil {
			return err
		}
	}
	return nil
}

// Read reads the config of the campaign folder dir.
func Read(dir string) (*Config, error) {
	data, err := os.ReadFile(filepath.Join(dir, ConfigFile))
	if err != nil {
		return nil, err
	}
	c := new(Config)
	if err := json.Unmarshal(data, c); err != nil {
		return nil, fmt.Errorf("%s: %v", filepath.Join(dir, ConfigFile), err)
	}
	return c, nil
}

// sh quotes s for a POSIX shell.
func sh(s string) string { return results.ShellQuote(s) }

// directives are the #SBATCH lines every job of the campaign carries.
func (c *Config) directives(name, output, time string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "#SBATCH --job-name=%s\n", name)
	fmt.Fprintf(&b, "#SBATCH --output=%s\n", filepath.Join(c.Dir, LogsDir, output))
	fmt.Fprintf(&b, "#SBATCH --nodes=1\n#SBATCH --ntasks=1\n")
	fmt.Fprintf(&b, "#SBATCH --time=%s\n", time)
	if c.Partition != "" {
		fmt.Fprintf(&b, "#SBATCH --partition=%s\n", c.Partition)
	}
	for _, o := range c.Sbatch {
		fmt.Fprintf(&b, "#SBATCH %s\n", o)
	}
	return b.String()
}

// taskScript is the batch script of one task: the study on a node of
// its own, its folders under hosts/task<N>/, its end in tasks/<N>.status.
// It exits 0 once the status is written, whatever the study did, so
// that a failed study is a recorded result and not a lost job.
func (c *Config) taskScript() string {
	var b strings.Builder
	b.WriteString("#!/usr/bin/env bash\n")
	b.WriteString(c.directives("schedlab-"+c.Study, "task-%A_%a.out", c.Time))
	b.WriteString("#SBATCH --exclusive\n")
	fmt.Fprintf(&b, `# One task of a schedlab campaign: scripts/study.sh %[1]s on this node,
# alone on it (--exclusive). Written by: %[2]s
# The task number is the array index, or CAMPAIGN_TASK for a job pinned
# to one node of a node list.
set -uo pipefail
dir=%[3]s
checkout=%[4]s
task=${CAMPAIGN_TASK:-${SLURM_ARRAY_TASK_ID:-0}}
job=${SLURM_ARRAY_JOB_ID:-${SLURM_JOB_ID:-none}}
out=$dir/hosts/task$task
status=$dir/tasks/$task.status
log=$out/study.log
mkdir -p "$out"
started=$(date -u +%%Y-%%m-%%dT%%H:%%M:%%SZ)
record() { # record <exit status> <what happened>
	{
		printf 'task=%%s\nhost=%%s\njob=%%s\nstarted=%%s\nfinished=%%s\nexit=%%s\nlog=%%s\nsummary=%%s\n' \
			"$task" "$(hostname -s)" "$job" "$started" "$(date -u +%%Y-%%m-%%dT%%H:%%M:%%SZ)" "$1" "$log" "$2"
		sed -n 's/^results folder: /folder=/p' "$log" 2>/dev/null
	} >"$status.tmp" && mv "$status.tmp" "$status"
}
printf 'task=%%s\nhost=%%s\njob=%%s\nstarted=%%s\nrunning=yes\n' "$task" "$(hostname -s)" "$job" "$started" >"$status"
`, c.Study, c.Command, sh(c.Dir), sh(c.Checkout))
	switch c.Build {
	case BuildShared:
		b.WriteString(`# The toolchain and harness were built in the shared checkout before
# submitting (schedlab campaign -submit).
cd "$checkout" || { record 1 "cannot enter the checkout $checkout"; exit 0; }
`)
	case BuildNode:
		b.WriteString(`# A node-local clone, built here, so that nodes of another type than
# the submit host's build for their own.
work=$(mktemp -d "${TMPDIR:-/tmp}/schedlab-campaign.XXXXXX")
trap 'rm -rf "$work"' EXIT
if ! { git clone -q "$checkout" "$work/schedlab" && cd "$work/schedlab" && make toolchain harness; } >"$log" 2>&1; then
	record 1 "building the toolchain failed (see the log)"
	exit 0
fi
`)
	}
	var env []string
	for _, kv := range [][2]string{{"COUNT", c.Count}, {"BENCHTIME", c.Benchtime}, {"BENCH", c.Bench}} {
		if kv[1] != "" {
			env = append(env, kv[0]+"="+sh(kv[1]))
		}
	}
	fmt.Fprintf(&b, `env RESULTS="$out" %sscripts/study.sh %s >>"$log" 2>&1
rc=$?
if [ "$rc" = 0 ]; then
	record 0 "ok"
else
	record "$rc" "the study exited $rc: $(tail -n 1 "$log" | tr -d '\r' | cut -c1-200)"
fi
exit 0
`, strings.Join(append(env, ""), " "), c.Study)
	return b.String()
}

// mergeScript is the batch script of the job that runs after every
// task: it builds schedlab for the node it lands on and merges.
func (c *Config) mergeScript() string {
	var b strings.Builder
	b.WriteString("#!/usr/bin/env bash\n")
	b.WriteString(c.directives("schedlab-"+c.Study+"-merge", "merge-%j.out", "30:00"))
	fmt.Fprintf(&b, `# The merge of a schedlab campaign, after every task ended (afterany).
# Written by: %[1]s
set -euo pipefail
cd %[2]s
bin=$(mktemp -d "${TMPDIR:-/tmp}/schedlab-merge.XXXXXX")
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/schedlab" ./src/cmd/schedlab
"$bin/schedlab" campaign -merge %[3]s
`, c.Command, sh(c.Checkout), sh(c.Dir))
	return b.String()
}
