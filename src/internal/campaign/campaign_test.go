package campaign

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/src/internal/merge"
	"github.com/schedlab/schedlab/src/internal/resultstest"
)

func testConfig(t *testing.T) *Config {
	return &Config{Study: "numa", Dir: filepath.Join(t.TempDir(), "camp"), Checkout: "/src/schedlab", Tasks: 2,
		Partition: "big", Time: "2:00:00", Build: BuildShared, Count: "10", Bench: "GCHeavy|Fan Out",
		Sbatch: []string{"--account=proj"}, Command: "schedlab campaign -study numa"}
}

func TestCheck(t *testing.T) {
	for _, bad := range []func(c *Config){
		func(c *Config) { c.Study = "numa;rm" },
		func(c *Config) { c.Dir = "rel/dir" },
		func(c *Config) { c.Tasks = 0 },
		func(c *Config) { c.Nodelist = []string{"a"} }, // 2 tasks, 1 node
		func(c *Config) { c.Time = "two hours" },
		func(c *Config) { c.Build = "cloud" },
		func(c *Config) { c.Nodelist, c.Tasks = []string{"a", "b,c"}, 2 },
		func(c *Config) { c.Sbatch = []string{"-A proj"} },
	} {
		c := testConfig(t)
		bad(c)
		if err := c.Check(); err == nil {
			t.Errorf("Check(%+v) = nil, want an error", c)
		}
	}
	if err := testConfig(t).Check(); err != nil {
		t.Errorf("Check of a good config: %v", err)
	}
}

// TestScripts: the task script gives each task a node of its own and
// its own folder, passes the study's options, and records a failed
// study instead of failing the job; the merge script merges.
func TestScripts(t *testing.T) {
	c := testConfig(t)
	task := c.taskScript()
	for _, want := range []string{
		"#SBATCH --exclusive\n", "#SBATCH --nodes=1\n", "#SBATCH --time=2:00:00\n", "#SBATCH --partition=big\n",
		"#SBATCH --account=proj\n", "#SBATCH --output=" + c.Dir + "/logs/task-%A_%a.out\n",
		"task=${CAMPAIGN_TASK:-${SLURM_ARRAY_TASK_ID:-0}}", "out=$dir/hosts/task$task",
		`env RESULTS="$out" COUNT=10 BENCH='GCHeavy|Fan Out' scripts/study.sh numa >>"$log" 2>&1`,
		`record "$rc" "the study exited $rc`, "exit 0\n",
	} {
		if !strings.Contains(task, want) {
			t.Errorf("task script lacks %q:\n%s", want, task)
		}
	}
	if strings.Contains(task, "make toolchain") {
		t.Errorf("shared build: the task script builds")
	}
	c.Build = BuildNode
	if task := c.taskScript(); !strings.Contains(task, "make toolchain harness") || !strings.Contains(task, "git clone -q") {
		t.Errorf("node build: the task script does not build in a clone:\n%s", task)
	}
	m := c.mergeScript()
	for _, want := range []string{"#SBATCH --time=30:00\n", "#SBATCH --partition=big\n", `campaign -merge ` + c.Dir + "\n"} {
		if !strings.Contains(m, want) {
			t.Errorf("merge script lacks %q:\n%s", want, m)
		}
	}
	if strings.Contains(m, "--exclusive") {
		t.Errorf("the merge job takes a node to itself")
	}
}

// TestSubmit: an array job, or one pinned job per listed node, then the
// merge after all of them with afterany; submit.txt records it.
func TestSubmit(t *testing.T) {
	for _, nodes := range [][]string{nil, {"n1", "n2"}} {
		c := testConfig(t)
		c.Nodelist = nodes
		if err := Write(c); err != nil {
			t.Fatal(err)
		}
		var got [][]string
		next := 100
		id, err := Submit(c, func(name string, args ...string) (string, error) {
			got = append(got, append([]string{name}, args...))
			next++
			return strconv.Itoa(next) + ";cluster\n", nil
		})
		if err != nil {
			t.Fatal(err)
		}
		task, mergeS := filepath.Join(c.Dir, TaskScript), filepath.Join(c.Dir, MergeScript)
		want := [][]string{{"sbatch", "--parsable", "--array=0-1", task}, {"sbatch", "--parsable", "--dependency=afterany:101", mergeS}}
		if nodes != nil {
			want = [][]string{
				{"sbatch", "--parsable", "--nodelist=n1", "--export=ALL,CAMPAIGN_TASK=0", "--output=" + c.Dir + "/logs/task-%j_0.out", task},
				{"sbatch", "--parsable", "--nodelist=n2", "--export=ALL,CAMPAIGN_TASK=1", "--output=" + c.Dir + "/logs/task-%j_1.out", task},
				{"sbatch", "--parsable", "--dependency=afterany:101:102", mergeS},
			}
		}
		if !slices.EqualFunc(got, want, slices.Equal) {
			t.Errorf("nodes %v: sbatch calls\n%q\nwant\n%q", nodes, got, want)
		}
		if id != strconv.Itoa(100+len(want)) {
			t.Errorf("merge job %q", id)
		}
		log, err := os.ReadFile(filepath.Join(c.Dir, SubmitFile))
		if err != nil || !strings.Contains(string(log), "--dependency=afterany:") || strings.Count(string(log), "# job ") != len(want) {
			t.Errorf("submit.txt: %v\n%s", err, log)
		}
	}
}

// TestMerge: tasks that sent folders are merged; one whose study
// failed, one killed mid-run and one that never started are named in
// the README with why.
func TestMerge(t *testing.T) {
	c := testConfig(t)
	c.Tasks = 5
	if err := Write(c); err != nil {
		t.Fatal(err)
	}
	status := func(n int, body string) {
		if err := os.WriteFile(filepath.Join(c.Dir, TasksDir, strconv.Itoa(n)+".status"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for n, host := range map[int]string{0: "alpha", 1: "beta"} {
		f := filepath.Join(c.Dir, HostsDir, "task"+strconv.Itoa(n), "2026-12-02-"+host+"-numa")
		resultstest.WriteFolder(t, f, resultstest.Host{Name: host})
		status(n, "task="+strconv.Itoa(n)+"\nhost="+host+"\njob=7\nexit=0\nsummary=ok\nlog=l\nfolder="+f+"\n")
	}
	status(2, "task=2\nhost=gamma\njob=7\nexit=2\nsummary=the study exited 2: schedlab: no toolchain\nlog="+filepath.Join(c.Dir, "hosts/task2/study.log")+"\n")
	status(3, "task=3\nhost=delta\njob=7\nstarted=x\nrunning=yes\n")
	outs, err := Merge(c.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{filepath.Join(c.Dir, MergedDir)}; !slices.Equal(outs, want) {
		t.Fatalf("merged into %q, want %q", outs, want)
	}
	var rec merge.Result
	data, err := os.ReadFile(filepath.Join(outs[0], merge.RecordFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatal(err)
	}
	var hosts, missing []string
	for _, s := range rec.Sources {
		hosts = append(hosts, s.Host)
	}
	for _, m := range rec.Missing {
		missing = append(missing, m.Label)
	}
	if !slices.Equal(hosts, []string{"alpha", "beta"}) || !slices.Equal(missing, []string{"task 2 (gamma)", "task 3 (delta)", "task 4"}) {
		t.Errorf("sources %q, missing %q", hosts, missing)
	}
	for i, want := range []string{"the study exited 2: schedlab: no toolchain (log " + filepath.Join(c.Dir, "hosts/task2/study.log") + ")", "killed by Slurm (time limit 2:00:00", "never started"} {
		if !strings.Contains(rec.Missing[i].Reason, want) {
			t.Errorf("missing %d: %q lacks %q", i, rec.Missing[i].Reason, want)
		}
	}
}

func TestKind(t *testing.T) {
	for f, want := range map[string]string{
		"/x/2026-12-02-node07-numa":             "numa",
		"2026-12-02-node07-numa-2":              "numa",
		"2026-12-02-vm-cost-quick-instructions": "cost-quick-instructions",
		"2026-12-02-vm-sysmonmaxtick":           "sysmonmaxtick",
		"hand-made":                             "hand-made",
	} {
		if got := kind(f); got != want {
			t.Errorf("kind(%q) = %q, want %q", f, got, want)
		}
	}
}
