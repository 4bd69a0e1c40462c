//go:build !linux

package sandbox

import (
	"path/filepath"
	"syscall"
)

// GuardGit covers nothing where there are no mount namespaces: a
// worktree agent is granted the refs and objects it shares, to commit.
func (s *Spec) GuardGit(repo Repo, own string) (func(*syscall.SysProcAttr), error) {
	if repo.GitDir != repo.CommonDir {
		s.Write = append(s.Write, repo.GitDir)
		for _, p := range []string{"objects", "refs", "logs", "packed-refs"} {
			s.Write = append(s.Write, filepath.Join(repo.CommonDir, p))
		}
	}
	return nil, CanHide()
}
