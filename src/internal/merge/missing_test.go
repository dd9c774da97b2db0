package merge

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/src/internal/results"
	"github.com/schedlab/schedlab/src/internal/resultstest"
)

// TestMergeMissing: machines that sent no folder are named in the README
// and merge.json, with the reason, next to the hosts that did; with no
// folder at all the merge still writes the README that says so.
func TestMergeMissing(t *testing.T) {
	tmp := t.TempDir()
	a := filepath.Join(tmp, "a")
	resultstest.WriteFolder(t, a, resultstest.Host{Name: "alpha"})
	gone := []Missing{{Label: "task 1 (beta)", Reason: "study exited 2; log logs/task-7_1.out"}}
	out := filepath.Join(tmp, "merged")
	res, err := Folders(out, []string{a}, gone)
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(out, results.ReadmeFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## Machines that sent no results", "1 of the 2 machines asked", "| task 1 (beta) | study exited 2; log logs/task-7_1.out |", "## Hosts", "| alpha |"} {
		if !strings.Contains(string(readme), want) {
			t.Errorf("README lacks %q", want)
		}
	}
	if !strings.Contains(res.Command, "-missing 'task 1 (beta): study exited 2; log logs/task-7_1.out'") {
		t.Errorf("command %q does not redo the missing line", res.Command)
	}
	var rec Result
	data, err := os.ReadFile(filepath.Join(out, RecordFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatal(err)
	}
	if len(rec.Missing) != 1 || rec.Missing[0] != gone[0] {
		t.Errorf("merge.json missing = %+v, want %+v", rec.Missing, gone)
	}

	// Every machine failed: a README and merge.json, no bench.txt.
	none := filepath.Join(tmp, "none")
	if _, err := Folders(none, nil, append(gone, Missing{Label: "task 0 (alpha)", Reason: "no status: killed by Slurm"})); err != nil {
		t.Fatal(err)
	}
	readme, err = os.ReadFile(filepath.Join(none, results.ReadmeFile))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "2 of the 2 machines asked") || !strings.Contains(string(readme), "No machine sent results") {
		t.Errorf("README with no folders:\n%s", readme)
	}
	if _, err := os.Stat(filepath.Join(none, results.RawFile)); err == nil {
		t.Errorf("%s written with no folders", results.RawFile)
	}
}
