package runlog

import (
	"context"
	"sort"
	"strings"
	"time"

	"rooda/host/agent"
)

// gitState takes the facts of a git workspace around each iteration:
// HEAD, and the files that changed.
type gitState struct {
	inRepo    bool
	head      string
	untracked map[string]bool
}

func newGitState() *gitState {
	out, ok := gitOut("rev-parse", "--is-inside-work-tree")
	return &gitState{inRepo: ok && out == "true"}
}

// before notes HEAD and the untracked files.
func (g *gitState) before() {
	if !g.inRepo {
		return
	}
	g.head, _ = gitOut("rev-parse", "HEAD")
	g.untracked = lines(gitOut("ls-files", "--others", "--exclude-standard"))
}

// after returns HEAD before and now, and the files that changed since
// before: tracked ones against the old HEAD (committed or not), and new
// untracked ones.
func (g *gitState) after() (before, now string, changed []string) {
	if !g.inRepo {
		return "", "", nil
	}
	now, _ = gitOut("rev-parse", "HEAD")
	set := map[string]bool{}
	if g.head != "" {
		for f := range lines(gitOut("diff", "--name-only", g.head)) {
			set[f] = true
		}
	}
	for f := range lines(gitOut("ls-files", "--others", "--exclude-standard")) {
		if !g.untracked[f] {
			set[f] = true
		}
	}
	for f := range set {
		changed = append(changed, f)
	}
	sort.Strings(changed)
	return g.head, now, changed
}

// gitOut runs git, bounded, through host/agent, and returns its output
// and whether it succeeded.
func gitOut(args ...string) (string, bool) {
	res, err := agent.Run(context.Background(), agent.Command{
		Argv: append([]string{"git"}, args...), Timeout: 30 * time.Second, MaxOutput: 1 << 20,
		Grace: time.Second,
	})
	if err != nil || res.ExitCode != 0 {
		return "", false
	}
	return strings.TrimSpace(string(res.Output)), true
}

func lines(out string, ok bool) map[string]bool {
	set := map[string]bool{}
	if !ok {
		return set
	}
	for _, l := range strings.Split(out, "\n") {
		if l != "" {
			set[l] = true
		}
	}
	return set
}
