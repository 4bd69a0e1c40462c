package session

import (
	"fmt"
	"sort"
	"strings"

	"rooda/host/engine"
	"rooda/host/git"
	"rooda/host/loop"
	"rooda/host/prompt"
)

// A loop's journal entry holds its settings, and beside them facts a
// resume checks as it checks settings (issue 38): what its prompt says
// (a hash of each phase's composed fragments, so an edited fragment is
// a changed call, not only a renamed one) and the branch the loop began
// on (so a resume on another checkout does not go on there unsaid).

// The names of those facts, as setting lines ("Git Branch: main").
const (
	promptFact = "Prompt "
	branchFact = "Git Branch"
)

// loopFacts are the fact lines of a loop about to start in dir ("" the
// workspace): its prompt's digests, and its branch in a git workspace.
func loopFacts(plan *engine.Plan, dir string) []string {
	digests := prompt.Digests(plan.Procedure, plan.Roles, plan.Promises)
	var lines []string
	for part, sum := range digests {
		lines = append(lines, fmt.Sprintf("%s(%s): %s", promptFact, part, sum))
	}
	sort.Strings(lines)
	if branch, ok := git.Branch(dir); ok {
		lines = append(lines, branchFact+": "+branchName(branch))
	}
	return lines
}

// branchName is a branch as a user names it: "main", or "no branch
// (detached HEAD)".
func branchName(ref string) string {
	if ref == "" {
		return "no branch (detached HEAD)"
	}
	return strings.TrimPrefix(ref, "refs/heads/")
}

// isFact says whether a setting line's name is a fact's: a journal
// written before facts were recorded lacks them, and still resumes, so
// a fact is compared only when both sides have it.
func isFact(name string) bool {
	return name == branchFact || strings.HasPrefix(name, promptFact)
}

// standing has a resumed loop check, before the first iteration it runs
// live, that its workspace (dir) stands where the journal's last ended
// iteration left it: a HEAD moved since, by the user or another tool,
// is refused, naming both commits, unless --force. An iteration that was
// in flight is not checked here: its killed try may have moved HEAD, and
// the workspace is put back as it began (engine's starts).
func (s *Session) standing(replay func(int) loop.Replayed, dir string) func(int) loop.Replayed {
	if replay == nil {
		return nil
	}
	var last *git.Changes
	checked := false
	return func(n int) loop.Replayed {
		rep := replay(n)
		switch {
		case rep.Ended:
			last = rep.Changes
		case !checked:
			checked = true
			if !rep.Again && rep.Err == nil {
				rep.Err = s.headStands(dir, n-1, last)
			}
		}
		return rep
	}
}

// headStands says whether HEAD in dir is still where iteration n left
// it (last, what it changed): nil when it is, or when nothing is known.
func (s *Session) headStands(dir string, n int, last *git.Changes) error {
	if last == nil || !last.InRepo {
		return nil
	}
	now, ok := git.Head(dir)
	if !ok || now == last.HeadAfter {
		return nil
	}
	moved := fmt.Sprintf("HEAD moved since iteration %d ended: %s then, %s now (git log --oneline %s..%s shows what came in)",
		n, shortCommit(last.HeadAfter), shortCommit(now), shortCommit(last.HeadAfter), shortCommit(now))
	if s.opts.Force {
		s.Log().Warnf("resuming: %s; going on from it (--force)", moved)
		return nil
	}
	return fmt.Errorf("%s; --force goes on from it as it is", moved)
}

// shortCommit is a commit as git log shows it; "(no commit)" for none.
func shortCommit(c string) string {
	if c == "" {
		return "(no commit)"
	}
	return c[:min(len(c), 12)]
}
