package engine

import (
	"cmp"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"rooda/host/config"
	"rooda/host/process"
	"rooda/host/runlog"
	"rooda/host/sandbox"
	"rooda/host/worktree"
)

// confine has the agent of iteration n started through the sandbox's
// trampoline (host/sandbox): its signals scoped to its own tree, and
// under sandbox: workspace or best-effort its writes confined to its
// workspace, a temporary directory of its own (TMPDIR, removed by done),
// its CLI's state directories, the caches and sandbox_write, with
// rooda's records and the worktrees of runs hidden from it. confined is
// what was applied, for the record; nil, and wrapped false, when nothing
// was.
func (p *Plan) confine(cmd *process.Command, n int) (done func(), confined *sandbox.Spec, wrapped bool, err error) {
	spec := sandbox.Spec{Mode: cmp.Or(config.Sandbox.In(p.Settings).V, sandbox.Off), ABI: sandbox.ABI()}
	done = func() {}
	if spec.Mode != sandbox.Off {
		tmp, err := os.MkdirTemp("", "rooda-agent-")
		if err != nil {
			return done, nil, false, err
		}
		done = func() { os.RemoveAll(tmp) }
		state := p.stateDirs[filepath.Base(cmd.Argv[0])]
		sandbox.MakeDirs(state)
		cmd.Attr = p.rules(&spec, workspaceOf(cmd.Dir), tmp, state)
		// zsh takes its here-documents' files from TMPPREFIX, not TMPDIR.
		cmd.Env = append(cmd.Env, "TMPDIR="+tmp, "TMPPREFIX="+filepath.Join(tmp, "zsh"))
	}
	argv, env, err := sandbox.Command(spec, cmd.Argv)
	cmd.Argv, cmd.Env = argv, append(cmd.Env, env...)
	// The trampoline's environment is given only when it runs the agent.
	if len(env) == 0 {
		cmd.Attr = nil
		return done, nil, false, err
	}
	return done, &spec, true, err
}

// rules fills in spec what the agent may write and connect to, and what
// is hidden from it, workspace being its working directory, tmp its
// TMPDIR and state its CLI's state directories; attr is what its process
// needs for the hiding.
func (p *Plan) rules(spec *sandbox.Spec, workspace, tmp string, state []string) (attr func(*syscall.SysProcAttr)) {
	spec.Write = sandbox.Paths(workspace, tmp, state, strings.Split(config.SandboxWrite.In(p.Settings).V, ":"))
	spec.Ports = config.SandboxNet.In(p.Settings).V
	attr, err := spec.HideDirs(private(p.Settings))
	if err != nil {
		spec.NotHidden = err.Error()
	}
	return attr
}

// workspaceOf is the agent's working directory, dir or else rooda's.
func workspaceOf(dir string) string {
	if dir == "" {
		dir, _ = os.Getwd()
	}
	return dir
}

// RunsDir is where runs are recorded: runs_dir, else .rooda/runs in the
// workspace.
func RunsDir(s *config.Limits) string {
	return cmp.Or(config.RunsDir.In(s).V, runlog.DefaultDir)
}

// private are the directories no sandboxed agent may see: rooda's
// records and the worktrees of runs, each but one that holds rooda's
// working directory (a runs_dir of "."), which cannot be hidden.
func private(s *config.Settings) []string {
	wd, err := os.Getwd()
	if err != nil {
		return nil
	}
	if real, err := filepath.EvalSymlinks(wd); err == nil {
		wd = real
	}
	dirs := []string{RunsDir(&s.Limits)}
	if top, ok := worktree.FindRepo(wd); ok {
		dirs = append(dirs, filepath.Join(top, worktree.Root))
	}
	var kept []string
	for _, dir := range dirs {
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(wd, dir)
		}
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			dir = real
		}
		if rel, err := filepath.Rel(dir, wd); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			continue
		}
		kept = append(kept, dir)
	}
	return kept
}
