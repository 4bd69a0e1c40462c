//go:build linux

package sandbox

import (
	"fmt"
	"path/filepath"
	"slices"
	"syscall"
)

// GuardGit has s keep repo's git from the agent (gitguard.go), own being
// the iteration's own directory ("" in a dry run, which makes nothing), and grants it what
// git writes for it outside its workspace: a worktree's own directory in
// the repository, and, covered, the repository's objects and its
// branch's ref. It returns the attributes its process needs; an error
// says why nothing can be covered (no namespace), and then a worktree
// agent is granted the refs and objects it shares, as it needs to
// commit.
func (s *Spec) GuardGit(repo Repo, own string) (func(*syscall.SysProcAttr), error) {
	worktree := repo.GitDir != repo.CommonDir
	if worktree {
		s.Write = appendReal(s.Write, repo.GitDir)
	}
	if err := CanHide(); err != nil {
		if worktree {
			for _, p := range []string{"objects", "refs", "logs", "packed-refs"} {
				s.Write = appendReal(s.Write, filepath.Join(repo.CommonDir, p))
			}
		}
		return nil, err
	}
	if own != "" {
		makeCoverable(repo, s.Write)
	}
	s.ReadOnly, s.Pinned = coverable(repo, s.Write)
	if worktree && repo.Branch != "" && repo.Head != "" {
		s.Branch = &Branch{Ref: repo.Branch, Head: repo.Head, CommonDir: repo.CommonDir}
		if own != "" {
			if err := privateBranch(s.Branch, own); err != nil {
				return nil, fmt.Errorf("the private copy of branch %s: %w", repo.Branch, err)
			}
		}
		for _, o := range s.Branch.overs() {
			s.Write = appendReal(s.Write, o[0])
		}
	}
	if len(s.ReadOnly)+len(s.Pinned) == 0 && s.Branch == nil {
		return nil, nil
	}
	s.Outside = mountNamespace()
	return hiding.attr, nil
}

// appendReal appends path, its links followed, to paths when it exists
// and is not there yet.
func appendReal(paths []string, path string) []string {
	if real, err := filepath.EvalSymlinks(path); err == nil && !slices.Contains(paths, real) {
		return append(paths, real)
	}
	return paths
}
