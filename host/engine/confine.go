package engine

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"rooda/host/config"
	"rooda/host/files"
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
// what was applied, for the record: nil when the agent is not started
// through the trampoline.
func (p *Plan) confine(cmd *process.Command, n int) (done func(), confined *sandbox.Spec, err error) {
	spec := sandbox.Spec{Mode: cmp.Or(config.Sandbox.In(p.Settings).V, sandbox.Off), ABI: sandbox.ABI()}
	done = func() {}
	if spec.Mode != sandbox.Off {
		tmp, err := os.MkdirTemp("", "rooda-agent-")
		if err != nil {
			done()
			return func() {}, nil, err
		}
		done = func() { os.RemoveAll(tmp) }
		state := p.stateDirs[filepath.Base(cmd.Argv[0])]
		sandbox.MakeDirs(state)
		cmd.Attr = p.rules(&spec, workspaceOf(cmd.Dir), tmp, state)
		attr, stop, err := p.isolate(&spec, cmd.Attr, filepath.Base(cmd.Argv[0]))
		cmd.Attr, done = attr, func() { stop(); os.RemoveAll(tmp) }
		if err != nil {
			return done, nil, err
		}
		// zsh takes its here-documents' files from TMPPREFIX, not TMPDIR.
		cmd.Env = append(cmd.Env, "TMPDIR="+tmp, "TMPPREFIX="+filepath.Join(tmp, "zsh"))
	}
	argv, env, err := sandbox.Command(spec, cmd.Argv)
	cmd.Argv, cmd.Env = argv, append(cmd.Env, env...)
	// The trampoline's environment is given only when it runs the agent.
	if len(env) == 0 {
		cmd.Attr = nil
		return done, nil, err
	}
	return done, &spec, err
}

// rules fills in spec what the agent may write and connect to, and what
// is hidden from it, workspace being its working directory, tmp its
// TMPDIR and state its CLI's state directories; attr is what its process
// needs for the hiding.
func (p *Plan) rules(spec *sandbox.Spec, workspace, tmp string, state []string) (attr func(*syscall.SysProcAttr)) {
	spec.Write = sandbox.Paths(workspace, tmp, state, config.SplitList(config.SandboxWrite.In(p.Settings).V, ":"))
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
	wd = files.Canonical(wd)
	dirs := []string{RunsDir(&s.Limits)}
	if top, ok := worktree.FindRepo(wd); ok {
		dirs = append(dirs, filepath.Join(top, worktree.Root))
	}
	var kept []string
	for _, dir := range dirs {
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(wd, dir)
		}
		dir = files.Canonical(dir)
		if _, holds := files.Within(dir, wd); holds {
			continue
		}
		kept = append(kept, dir)
	}
	return kept
}

// checkSandbox says what the sandbox will apply, and refuses sandbox:
// workspace where the kernel cannot confine writes, or connections that
// sandbox_net limits.
func (p *Plan) checkSandbox() {
	mode := config.Sandbox.In(p.Settings)
	abi := sandbox.ABI()
	switch {
	case mode.V == sandbox.Workspace && abi == 0:
		p.fail("", fmt.Errorf("sandbox: workspace (%s) needs Landlock, which this kernel (%s) does not offer: use sandbox: best-effort to run unconfined, or off", mode.Source, sandbox.Kernel()))
	case mode.V == sandbox.Workspace && abi < sandbox.NetABI && len(config.SandboxNet.In(p.Settings).V) > 0:
		p.fail("", fmt.Errorf("sandbox_net (%s) needs Landlock ABI %d, and this kernel (%s) offers %d: leave it out, or use sandbox: best-effort", config.SandboxNet.In(p.Settings).Where(), sandbox.NetABI, sandbox.Kernel(), abi))
	case mode.V == sandbox.Workspace || mode.V == sandbox.BestEffort:
		p.pass(fmt.Sprintf("Sandbox: %s, Landlock ABI %d: the agent writes only its workspace, its own TMPDIR, its CLI's state directories, caches and sandbox_write", mode.V, abi))
		p.Checks[len(p.Checks)-1].Detail = strings.Join(append(p.sandboxRules(), p.SandboxShortfalls()...), "\n")
	}
	p.checkHosts()
}

// SandboxShortfalls say what the sandbox asked for this kernel or
// system cannot apply, for the dry run and the run's log; none under
// sandbox: off.
func (p *Plan) SandboxShortfalls() []string {
	mode := config.Sandbox.In(p.Settings).V
	if mode != sandbox.Workspace && mode != sandbox.BestEffort {
		return nil
	}
	abi := sandbox.ABI()
	if abi == 0 {
		return []string{fmt.Sprintf("not applied: this kernel (%s) has no Landlock; the agent writes anywhere you may", sandbox.Kernel())}
	}
	var out []string
	if abi < sandbox.NetABI && len(config.SandboxNet.In(p.Settings).V) > 0 {
		out = append(out, fmt.Sprintf("not applied: sandbox_net, which needs Landlock ABI %d (this kernel offers %d)", sandbox.NetABI, abi))
	}
	if abi < sandbox.SignalsABI {
		out = append(out, fmt.Sprintf("not applied: the agent's signals are not scoped to its own tree, which needs Landlock ABI %d (this kernel offers %d)", sandbox.SignalsABI, abi))
	}
	if err := sandbox.CanHide(); err != nil {
		out = append(out, "not hidden, rooda's records and the worktrees of runs: "+err.Error())
	}
	return append(out, p.hostsShortfall()...)
}

// sandboxRules are the sandbox's rules for the first iteration's agent,
// as a dry run shows them.
func (p *Plan) sandboxRules() []string {
	var spec sandbox.Spec
	var state []string
	if len(p.Argv) > 0 {
		state = p.stateDirs[filepath.Base(p.Argv[0])]
	}
	p.rules(&spec, workspaceOf(""), "", state)
	lines := []string{"writes: " + strings.Join(append(spec.Write, "its own TMPDIR"), ", ")}
	if sandbox.CanHide() == nil {
		lines = append(lines, "hidden: "+strings.Join(private(p.Settings), ", "))
	}
	if len(spec.Ports) > 0 {
		lines = append(lines, "connects to: "+strings.Trim(fmt.Sprint(spec.Ports), "[]"))
	}
	return append(lines, p.hostsRules()...)
}
