package results

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The hand-written scripts behind single results folders live in
// scripts/studies/<results folder>/, not in the results folders, which
// keep only data and the command that made them.
const studiesDir = "scripts/studies"

// studyScripts returns the shell and Python scripts under
// scripts/studies, relative to root, slash-separated.
func studyScripts(t *testing.T, root string) []string {
	t.Helper()
	files := filesUnder(t, root, studiesDir, ".sh", ".py")
	if len(files) == 0 {
		t.Fatalf("no scripts under %s", studiesDir)
	}
	return files
}

// TestNoScriptsInResults checks that no results folder holds a script:
// they belong in scripts/studies.
func TestNoScriptsInResults(t *testing.T) {
	root := repoRoot(t)
	found := filesUnder(t, root, "results", ".sh", ".py")
	if len(found) > 0 {
		t.Errorf("scripts in results/ (move them to %s/<folder>/):\n%s", studiesDir, strings.Join(found, "\n"))
	}
}

// TestStudyScriptsParse checks that every shell script under
// scripts/studies passes bash -n and every Python script compiles.
func TestStudyScriptsParse(t *testing.T) {
	root := repoRoot(t)
	bash, bashErr := exec.LookPath("bash")
	python, pythonErr := exec.LookPath("python3")
	// py_compile writes the bytecode beside the script unless told
	// otherwise: keep it out of the tree.
	pycache := t.TempDir()
	for _, rel := range studyScripts(t, root) {
		t.Run(strings.TrimPrefix(rel, studiesDir+"/"), func(t *testing.T) {
			var cmd *exec.Cmd
			switch {
			case strings.HasSuffix(rel, ".sh"):
				if bashErr != nil {
					t.Skipf("no bash: %v", bashErr)
				}
				cmd = exec.Command(bash, "-n", rel)
			default:
				if pythonErr != nil {
					t.Skipf("no python3: %v", pythonErr)
				}
				cmd = exec.Command(python, "-m", "py_compile", rel)
				cmd.Env = append(os.Environ(), "PYTHONPYCACHEPREFIX="+pycache)
			}
			cmd.Dir = root
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, out)
			}
		})
	}
}

// TestStudiesREADMEListsEveryScript checks that scripts/studies/README.md
// names every script there by its path from the repository root.
func TestStudiesREADMEListsEveryScript(t *testing.T) {
	root := repoRoot(t)
	readme, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(studiesDir), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, rel := range studyScripts(t, root) {
		if !bytes.Contains(readme, []byte(rel)) {
			t.Errorf("%s/README.md does not give the command of %s", studiesDir, rel)
		}
	}
}

// TestStudyScriptsReproduceCommittedOutput runs the Python scripts that
// are pure computations over committed data (those that draw random
// numbers seed them), with no argument (their default results folder)
// or with the committed input they convert, from outside the tree, and compares what they print with the
// committed output byte for byte.
func TestStudyScriptsReproduceCommittedOutput(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skipf("no python3: %v", err)
	}
	root := repoRoot(t)
	for _, tc := range []struct {
		script string // relative to scripts/studies
		output string // the committed output, relative to results
		input  string // the script's argument, relative to results; "" for none
	}{
		{"2026-11-30-vm-gobuild-place/spread.py", "2026-11-30-vm-gobuild-place/spread.txt", ""},
		{"2026-11-30-vm-gotest/ratio_ci.py", "2026-11-30-vm-gotest/ratio_ci.txt", ""},
		{"2026-12-01-vm-guest-placement/tobench.py", "2026-12-01-vm-guest-placement/balancing-1/placement.txt", "2026-12-01-vm-guest-placement/balancing-1/placement.tsv"},
		{"2026-12-01-vm-guest-placement/tobench.py", "2026-12-01-vm-guest-placement/balancing-0/placement.txt", "2026-12-01-vm-guest-placement/balancing-0/placement.tsv"},
		{"2026-12-01-vm-guest-numamem-check/tobench.py", "2026-12-01-vm-guest-numamem-check/checks.bench.txt", "2026-12-01-vm-guest-numamem-check/checks.txt"},
		{"2026-12-02-vm-numamem-cost/estimate.py", "2026-12-02-vm-numamem-cost-movepages/estimate.txt", ""},
	} {
		t.Run(tc.output, func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join(root, "results", filepath.FromSlash(tc.output)))
			if os.IsNotExist(err) {
				t.Skipf("results/%s is not here", tc.output)
			}
			if err != nil {
				t.Fatal(err)
			}
			args := []string{filepath.Join(root, filepath.FromSlash(studiesDir), filepath.FromSlash(tc.script))}
			if tc.input != "" {
				args = append(args, filepath.Join(root, "results", filepath.FromSlash(tc.input)))
			}
			cmd := exec.Command(python, args...)
			cmd.Dir = t.TempDir()
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			got, err := cmd.Output()
			if err != nil {
				t.Fatalf("%s: %v\n%s", tc.script, err, stderr.Bytes())
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s printed:\n%s\nwant results/%s:\n%s", tc.script, got, tc.output, want)
			}
		})
	}
}
