package bench

import (
	"os/exec"
	"syscall"
)

// ownGroup makes cmd the leader of a process group of its own and makes
// its context's cancellation kill the whole group, not only cmd's
// process. A run's command is often a wrapper (perf stat, numactl, env):
// perf stat forks the benchmark as its child, and killing perf alone on
// a timeout left that child running, orphaned, with the machine's CPUs.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
