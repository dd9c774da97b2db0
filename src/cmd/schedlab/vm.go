package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/schedlab/schedlab/src/internal/guest"
)

// exitError carries a program's exit status out of a subcommand.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

// passedEnv are the variables a guest run takes from schedlab's own
// environment when they are set, besides those given with -env.
var passedEnv = []string{"GODEBUG", "GOMAXPROCS", "GOGC", "GOTRACEBACK", "GONUMASYSFS"}

// cmdVM runs a static program in a NUMA guest (package guest) and exits
// with its status.
func cmdVM(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("vm", flag.ExitOnError)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: schedlab vm [flags] -- PROG [ARGS...]\n\nRuns PROG, a static binary built on this host (CGO_ENABLED=0), in a QEMU guest\nwith a real multi-node NUMA kernel, streams its output, copies what it writes\nunder $OUT into -out, and exits with its exit status. The guest is emulated:\nits topology, placement and kernel counters are real, its times are not.\n\n")
		fs.PrintDefaults()
	}
	o := guest.Options{}
	fs.IntVar(&o.Nodes, "nodes", 2, "NUMA nodes (1 to 8)")
	fs.IntVar(&o.CPUs, "cpus", 0, "vCPUs in all, a multiple of -nodes (default one per node)")
	fs.IntVar(&o.MemMiB, "mem", 0, "guest memory in MiB, split evenly over the nodes (default 256 per node)")
	fs.IntVar(&o.Balancing, "balancing", -1, "kernel.numa_balancing in the guest: 0 or 1 (default the kernel's, 1)")
	fs.DurationVar(&o.Timeout, "timeout", 10*time.Minute, "limit of the whole run, boot included")
	fs.StringVar(&o.OutDir, "out", "", "folder for what PROG writes under $OUT in the guest (default: dropped)")
	fs.StringVar(&o.InDir, "in", "", "a folder copied into the guest as $IN (e.g. test binaries from schedlab bench -build-only)")
	var env listFlag
	fs.Var(&env, "env", "NAME=VALUE for PROG's environment (repeatable); "+fmt.Sprint(passedEnv)+" pass through when set")
	fs.Parse(args)
	if fs.NArg() < 1 {
		fs.Usage()
		return fmt.Errorf("vm: no program")
	}
	prog, err := exec.LookPath(fs.Arg(0))
	if err != nil {
		return fmt.Errorf("vm: %v", err)
	}
	o.Prog, o.Args = prog, fs.Args()[1:]
	for _, k := range passedEnv {
		if v, ok := os.LookupEnv(k); ok {
			o.Env = append(o.Env, k+"="+v)
		}
	}
	o.Env = append(o.Env, env...)
	r, err := root()
	if err != nil {
		return err
	}
	dir := filepath.Join(r, ".cache", "guest")
	o.Kernel = filepath.Join(dir, "vmlinuz")
	if guest.Check(o.Kernel) != nil {
		setup := exec.CommandContext(ctx, filepath.Join(r, "scripts", "guest-setup.sh"), dir)
		setup.Stdout, setup.Stderr = os.Stderr, os.Stderr
		if err := setup.Run(); err != nil {
			return fmt.Errorf("vm: scripts/guest-setup.sh: %v", err)
		}
	}
	if o.InDir != "" {
		if fi, err := os.Stat(o.InDir); err != nil || !fi.IsDir() {
			return fmt.Errorf("vm: -in %s: not a folder", o.InDir)
		}
	}
	if o.OutDir != "" {
		if err := os.MkdirAll(o.OutDir, 0o755); err != nil {
			return err
		}
	}
	code, err := guest.Run(ctx, o)
	if err != nil {
		return fmt.Errorf("vm: %w", err)
	}
	if code != 0 {
		return exitError{code}
	}
	return nil
}

// exitCode is the status main exits with for err.
func exitCode(err error) int {
	var e exitError
	if errors.As(err, &e) {
		return e.code
	}
	return 1
}
