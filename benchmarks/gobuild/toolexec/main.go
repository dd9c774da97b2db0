// Command toolexec is a go build -toolexec wrapper that runs each tool
// with GODEBUG set to $SCHEDLAB_TOOL_GODEBUG (unset if that is empty).
// benchmarks/gobuild/study.sh uses it to give the compiler and linker
// the schedlab knobs that the go command itself no longer passes on,
// which is what a build cost before it dropped them.
package main

import (
	"os"
	"os/exec"
)

func main() {
	if len(os.Args) < 2 {
		os.Stderr.WriteString("usage: toolexec tool [args...]\n")
		os.Exit(2)
	}
	env := os.Environ()
	kept := env[:0]
	for _, kv := range env {
		if len(kv) < 8 || kv[:8] != "GODEBUG=" {
			kept = append(kept, kv)
		}
	}
	if v := os.Getenv("SCHEDLAB_TOOL_GODEBUG"); v != "" {
		kept = append(kept, "GODEBUG="+v)
	}
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Env = kept
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		if e, ok := err.(*exec.ExitError); ok {
			os.Exit(e.ExitCode())
		}
		os.Stderr.WriteString("toolexec: " + err.Error() + "\n")
		os.Exit(1)
	}
}
