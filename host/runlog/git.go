package runlog

import (
	"context"
	"sort"
	"strings"
	"time"

	"rooda/host/agent"
)

// Git takes the facts of a git workspace around each iteration: HEAD,
// and the files that changed.
type Git struct {
	inRepo    bool
	head      string
	untracked map[string]bool
}

// NewGit looks whether the working directory is in a git repository.
func NewGit() *Git {
	out, ok := gitOut("rev-parse", "--is-inside-work-tree")
	return &Git{inRepo: ok && out == "true"}
}

// InRepo reports whether the workspace is a git repository.
func (g *Git) InRepo() bool { return g.inRepo }

// Before notes HEAD and the untracked files.
func (g *Git) Before() {
	if !g.inRepo {
		return
	}
	g.head, _ = gitOut("rev-parse", "HEAD")
	g.untracked = lines(gitOut("ls-files", "--others", "--exclude-standard"))
}

// After returns HEAD before and now, and the files that changed since
// Before: tracked ones against the old HEAD (committed or not), and new
// untracked ones.
func (g *Git) After() (before, now string, changed []string) {
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
		if !strings.HasPrefix(f, ".rooda/") { // rooda's own records
			changed = append(changed, f)
		}
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
