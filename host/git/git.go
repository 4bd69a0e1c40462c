// Package git runs the git program for the host — fetching libraries,
// reading a workspace's state — through host/process, like every process
// rooda starts: bounded in time and output, its whole group stopped.
//
// An agent may have written the repository rooda's git reads, so that
// git runs no program of the repository's: no fsmonitor, no hook (Run's
// hardened), and in a workspace it takes its repository from where rooda
// found it before any agent ran (Recorded), never from a .git file.
package git

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"rooda/host/interrupt"
	"rooda/host/process"
	"rooda/host/units"
)

// Command is one git command.
type Command struct {
	Args    []string
	Dir     string   // where git runs; "" is the working directory
	Env     []string // added to rooda's environment
	Stdin   string
	Timeout time.Duration // 0 means 5 minutes
	// List is set for a command whose output is a list to parse, whole
	// and untrimmed: its stderr is discarded, so that no warning lands
	// among the entries, and a list too long to keep is an error, never
	// its tail.
	List bool
}

// hardened are the settings every git rooda runs is given: the
// command line beats the repository's config, which an agent may have
// written. rooda runs no hook, git_merge's neither: a hooks path the
// user's config names may lie in the working tree (husky's .husky), an
// agent's to write. No ext:: remote runs its command either, whatever a
// fetch's config says (a library's mirror).
var hardened = []string{"-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null", "-c", "protocol.ext.allow=never"}

// defaultTimeout bounds a git command that says no other: a fetch that
// hangs must not hold a run forever.
const defaultTimeout = 5 * time.Minute

// maxOutput is what git may print; a List may be longer (a workspace's
// untracked files).
const maxOutput, maxList = 4 << 20, 64 << 20

// Run runs git and returns what it printed, trimmed unless it is a List;
// its error says why git failed, with git's own words.
func Run(ctx context.Context, c Command) (string, error) {
	timeout := c.Timeout
	if timeout == 0 {
		timeout = defaultTimeout
	}
	limit := maxOutput
	if c.List {
		limit = maxList
	}
	res, err := process.Run(ctx, process.Command{
		Argv:          slices.Concat([]string{"git"}, hardened, c.Args),
		Dir:           c.Dir,
		Env:           append([]string{"GIT_TERMINAL_PROMPT=0"}, c.Env...),
		Prompt:        c.Stdin,
		Timeout:       timeout,
		Grace:         time.Second,
		MaxOutput:     limit,
		DiscardStderr: c.List,
	})
	if err != nil {
		return "", fmt.Errorf("cannot run git: %w", err)
	}
	out := string(res.Output)
	if !c.List {
		out = strings.TrimSpace(out)
	}
	switch {
	case res.Interrupted:
		return out, interrupt.Stopped(ctx)
	case res.TimedOut:
		return out, fmt.Errorf("git %s took more than %s", c.Args[0], units.Duration(timeout))
	case res.ExitCode != 0:
		return out, fmt.Errorf("git %s failed: %s", strings.Join(c.Args, " "), out)
	case c.List && res.Dropped > 0:
		return "", fmt.Errorf("git %s printed more than %d bytes", strings.Join(c.Args, " "), limit)
	}
	return out, nil
}

// Output is Run for a short command whose failure is an answer (not a
// repository, no commit yet): what git printed, and whether it succeeded.
// A failed command gives no output: what git printed then is its
// complaint, never a value (a HEAD, a hash).
func Output(stdin string, args ...string) (string, bool) {
	return OutputIn("", stdin, args...)
}

// OutputIn is Output in dir ("" is the working directory).
func OutputIn(dir, stdin string, args ...string) (string, bool) {
	out, err := Run(context.Background(), Command{Args: args, Dir: dir, Stdin: stdin, Timeout: 30 * time.Second})
	if err != nil {
		return "", false
	}
	return out, true
}
