package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/schedlab/schedlab/src/internal/campaign"
	"github.com/schedlab/schedlab/src/internal/results"
	"github.com/schedlab/schedlab/src/internal/toolchain"
)

func cmdCampaign(args []string) error {
	fs := flag.NewFlagSet("campaign", flag.ExitOnError)
	c := &campaign.Config{}
	fs.StringVar(&c.Study, "study", "", "the study every task runs (a make study STUDY= name; required)")
	dir := fs.String("dir", "", "the campaign folder, on a file system the nodes share (required)")
	fs.IntVar(&c.Tasks, "tasks", 0, "array tasks, one study each, each on a node of its own (default 1; with -nodelist, one per node)")
	nodelist := fs.String("nodelist", "", "comma-separated nodes: one task pinned to each, instead of an array")
	fs.StringVar(&c.Partition, "partition", "", "the Slurm partition (default: the cluster's default)")
	fs.StringVar(&c.Time, "time", "4:00:00", "time limit of each task (sbatch --time)")
	fs.StringVar(&c.Build, "build", campaign.BuildShared, "where the toolchain is built: shared (once, here, in this checkout, which the nodes read at the same path) or node (every task in a node-local clone)")
	fs.StringVar(&c.Count, "count", "", "COUNT for the study (rounds; default the study's)")
	fs.StringVar(&c.Benchtime, "benchtime", "", "BENCHTIME for the study (default the study's)")
	fs.StringVar(&c.Bench, "bench", "", "BENCH for the study: a -bench regexp narrowing a study of the whole suite")
	var sbatch listFlag
	fs.Var(&sbatch, "sbatch", "an extra sbatch option for every job, e.g. --account=proj (repeatable)")
	submit := fs.Bool("submit", false, "build (with -build shared) and submit the jobs; without it, write the scripts and print the sbatch commands")
	mergeDir := fs.String("merge", "", "merge the campaign folder `dir` (what its merge job runs) and exit")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), `usage: schedlab campaign -study NAME -dir DIR [-tasks N | -nodelist a,b,...] [-partition P] [-time T] [-submit]
       schedlab campaign -merge DIR

Runs one study on several machines through Slurm: an array job (or one
job per listed node) runs scripts/study.sh NAME with each node to
itself, every task's folders under DIR/hosts/, and a job after all of
them (afterany) merges them into DIR/merged/, naming the tasks that
failed. docs/multi-socket.md has the whole procedure.

`)
		fs.PrintDefaults()
	}
	fs.Parse(args)
	if *mergeDir != "" {
		return campaignMerge(*mergeDir)
	}
	if c.Study == "" || *dir == "" {
		return fmt.Errorf("campaign: -study and -dir are required")
	}
	if *nodelist != "" {
		c.Nodelist = strings.Split(*nodelist, ",")
		if c.Tasks == 0 {
			c.Tasks = len(c.Nodelist)
		}
	}
	if c.Tasks == 0 {
		c.Tasks = 1
	}
	c.Sbatch = sbatch
	var err error
	if c.Dir, err = filepath.Abs(*dir); err != nil {
		return err
	}
	if strings.ContainsAny(c.Dir, " \t\n'\"") {
		return fmt.Errorf("campaign: %q: Slurm's #SBATCH lines cannot quote a path with spaces or quotes", c.Dir)
	}
	if c.Checkout, err = toolchain.FindRoot("."); err != nil {
		return err
	}
	q := []string{"schedlab", "campaign"}
	for _, a := range args {
		q = append(q, results.ShellQuote(a))
	}
	c.Command = strings.Join(q, " ")
	if err := campaign.Write(c); err != nil {
		return err
	}
	fmt.Printf("wrote %s: %s, %s, %s\n", c.Dir, campaign.ConfigFile, campaign.TaskScript, campaign.MergeScript)
	if !*submit {
		fmt.Printf("not submitted: rerun with -submit in another folder, or submit %s and then %s (with --dependency=afterany on the tasks) by hand\n",
			filepath.Join(c.Dir, campaign.TaskScript), filepath.Join(c.Dir, campaign.MergeScript))
		return nil
	}
	if c.Build == campaign.BuildShared {
		// Once, here: the tasks must not build in a checkout they share.
		make := exec.Command("make", "-C", c.Checkout, "toolchain", "harness")
		make.Stdout, make.Stderr = os.Stderr, os.Stderr
		if err := make.Run(); err != nil {
			return fmt.Errorf("campaign: make toolchain harness: %v", err)
		}
	}
	id, err := campaign.Submit(c, func(name string, args ...string) (string, error) {
		cmd := exec.Command(name, args...)
		cmd.Stderr = os.Stderr
		out, err := cmd.Output()
		return string(out), err
	})
	if err != nil {
		return err
	}
	fmt.Printf("submitted: the merge is job %s (%s); the report will be %s\n", id, filepath.Join(c.Dir, campaign.SubmitFile), filepath.Join(c.Dir, campaign.MergedDir))
	return nil
}

// campaignMerge merges a campaign folder from inside it, so that the
// merged folders record paths relative to it.
func campaignMerge(dir string) error {
	if err := os.Chdir(dir); err != nil {
		return err
	}
	outs, err := campaign.Merge(".")
	for _, o := range outs {
		fmt.Printf("merged: %s\n", filepath.Join(dir, o))
	}
	return err
}
