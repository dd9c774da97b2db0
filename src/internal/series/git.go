package series

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
)

// gitConfig pins every setting that changes git's patch output or would stop
// a non-interactive run, so extraction is byte-stable whatever the user's
// ~/.gitconfig says.
var gitConfig = []string{
	"-c", "core.autocrlf=false",
	"-c", "core.quotePath=true",
	"-c", "core.abbrev=14",
	"-c", "commit.gpgSign=false",
	"-c", "tag.gpgSign=false",
	"-c", "diff.algorithm=myers",
	"-c", "diff.renames=true",
	"-c", "diff.noprefix=false",
	"-c", "diff.mnemonicPrefix=false",
	"-c", "diff.relative=false",
	"-c", "diff.context=3",
	"-c", "diff.interHunkContext=0",
	"-c", "format.signature=",
	"-c", "format.numbered=false",
	"-c", "format.coverLetter=false",
	"-c", "format.outputDirectory=",
	"-c", "am.keepcr=false",
	"-c", "init.defaultBranch=schedlab",
	"-c", "advice.detachedHead=false",
}

// git runs git in a repository directory.
type git struct {
	dir    string
	stderr io.Writer // where to echo failing commands' output; nil for none
}

func (g git) cmd(args ...string) *exec.Cmd {
	cmd := exec.Command("git", append(append([]string{}, gitConfig...), args...)...)
	cmd.Dir = g.dir
	env := os.Environ()
	// Committer identity for git am and our own commits: CI machines have
	// none configured, and authorship comes from the patches anyway.
	env = append(env,
		"GIT_COMMITTER_NAME=schedlab", "GIT_COMMITTER_EMAIL=schedlab@localhost",
		"GIT_TERMINAL_PROMPT=0", "GIT_EDITOR=true")
	if os.Getenv("GIT_AUTHOR_NAME") == "" {
		env = append(env, "GIT_AUTHOR_NAME=schedlab", "GIT_AUTHOR_EMAIL=schedlab@localhost")
	}
	cmd.Env = env
	return cmd
}

// run runs git and returns its trimmed stdout; on failure the error carries
// stderr.
func (g git) run(args ...string) (string, error) {
	cmd := g.cmd(args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("git %s: %v\n%s%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	// Trim only the end: porcelain output has meaningful leading spaces.
	return strings.TrimRight(stdout.String(), " \r\n"), nil
}

// ok runs git and reports only whether it succeeded.
func (g git) ok(args ...string) bool {
	_, err := g.run(args...)
	return err == nil
}
