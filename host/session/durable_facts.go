package session

import (
	"fmt"
	"sort"
	"strings"

	"rooda/host/engine"
	"rooda/host/git"
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
