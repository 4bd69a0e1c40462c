package engine

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"rooda/host/config"
	"rooda/host/files"
	"rooda/host/git"
	"rooda/host/libs"
	"rooda/host/process"
	"rooda/host/runlog"
	"rooda/host/sandbox"
	"rooda/host/worktree"
)

// confine has the agent of iteration n started through the sandbox's
// trampoline (host/sandbox): its signals scoped to its own tree, and
// under sandbox: workspace or best-effort its writes confined to its
// workspace, a temporary directory of its own (TMPDIR, in an AgentDir
// that done removes; the caller defers it, so it goes however the
// iteration ends), its CLI's state directories, the caches and
// sandbox_write, with rooda's records, the worktrees of runs and what
// sandbox_hide names hidden from it. confined is
// what was applied, for the record: nil when nothing is (no trampoline,
// no thread confined).
func (p *Plan) confine(cmd *process.Command, n int) (done func(), confined *sandbox.Spec, err error) {
	spec := sandbox.Spec{Mode: cmp.Or(config.Sandbox.In(p.Settings).V, sandbox.Off), ABI: sandbox.ABI()}
	done = func() {}
	if spec.Mode != sandbox.Off {
		dir, err := p.agentDirs.take()
		if err != nil {
			return done, nil, err
		}
		done, spec.Empty = func() { p.agentDirs.give(dir) }, dir.Empty()
		state := p.stateDirs[filepath.Base(cmd.Argv[0])]
		sandbox.MakeDirs(state)
		// Made first, the library cache's are hidden: one not made yet
		// the agent could plant (a mirror, a library) for a later rooda.
		sandbox.MakeDirs(libraryCache())
		tmp := dir.TMPDIR()
		cmd.Attr = p.rules(&spec, workspaceOf(cmd.Dir), tmp, dir.Dir, state)
		done = p.afterGit(&spec, workspaceOf(cmd.Dir), done)
		stop, err := p.isolate(&spec, cmd, filepath.Base(cmd.Argv[0]))
		done = then(stop, done)
		if err != nil {
			return done, nil, err
		}
		// zsh takes its here-documents' files from TMPPREFIX, not TMPDIR.
		cmd.Env = append(cmd.Env, "TMPDIR="+tmp, "TMPPREFIX="+filepath.Join(tmp, "zsh"))
	}
	argv, env, thread, err := sandbox.Command(spec, cmd.Argv)
	cmd.Argv, cmd.Env, cmd.Confine = argv, append(cmd.Env, env...), thread
	// The trampoline's environment is given only when it runs the agent.
	if len(env) == 0 {
		cmd.Attr, cmd.ExtraFiles = nil, nil
	}
	if len(env) == 0 && thread == nil {
		return done, nil, err
	}
	return done, &spec, err
}

// agentDirs keeps, between a loop's iterations, the directory that held
// the last one's agent (sandbox.AgentDir), cleared, for the next: one
// made and removed for each agent cost most of what sandbox: workspace
// adds to an iteration on a disk (docs/performance.md). Loops at once
// each have their own Plan, so no two agents at once share one.
type agentDirs struct {
	mu    sync.Mutex
	spare *sandbox.AgentDir
}

// take gives the spare directory, else a new one.
func (a *agentDirs) take() (*sandbox.AgentDir, error) {
	a.mu.Lock()
	dir := a.spare
	a.spare = nil
	a.mu.Unlock()
	if dir != nil {
		return dir, nil
	}
	return sandbox.NewAgentDir()
}

// give takes back a directory whose agent ended, kept as the spare once
// cleared; one that cannot be cleared, or one more than a spare, goes.
func (a *agentDirs) give(dir *sandbox.AgentDir) {
	if dir.Clear() == nil {
		a.mu.Lock()
		if a.spare == nil {
			a.spare, dir = dir, nil
		}
		a.mu.Unlock()
	}
	if dir != nil {
		dir.Remove()
	}
}

// removeSpare removes the spare directory, as the loop ends.
func (a *agentDirs) removeSpare() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.spare != nil {
		a.spare.Remove()
		a.spare = nil
	}
}

// rules fills in spec what the agent may write and connect to, and what
// is hidden from it, workspace being its working directory, tmp its
// TMPDIR, own the iteration's directory that holds it (where what the
// agent's git writes in the repository is kept apart: not in TMPDIR,
// which the agent writes) and state its CLI's state directories; attr is
// what its process needs for the hiding. A dry run gives no tmp nor own.
func (p *Plan) rules(spec *sandbox.Spec, workspace, tmp, own string, state []string) (attr func(*syscall.SysProcAttr)) {
	spec.Write = sandbox.Paths(workspace, tmp, state, unforced(sandboxList(config.SandboxWrite.In(p.Settings))))
	spec.Ports = config.SandboxNet.In(p.Settings).V
	attr, err := spec.HideDirs(append(private(p.Settings), hidden(p.Settings)...))
	if err != nil {
		spec.NotHidden = err.Error()
	}
	if guarded := guardGit(spec, workspace, own); guarded != nil {
		return guarded // the same namespace, which hides as well
	}
	return attr
}

// sandboxList is a list of paths a sandbox setting names.
func sandboxList(v config.Value[string]) []string {
	if v.V == "" {
		return nil
	}
	return config.SplitList(v.V, ":")
}

// hidden are the paths sandbox_hide names, expanded and absolute, those
// whose variables are set.
func hidden(s *config.Settings) []string {
	var out []string
	for _, p := range sandboxList(config.SandboxHide.In(s)) {
		if p, ok := sandbox.Expand(strings.TrimSpace(p)); ok && p != "" {
			out = append(out, sandbox.ToBe(p))
		}
	}
	return out
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
	dirs = append(dirs, libraryCache()...)
	var kept []string
	for _, dir := range dirs {
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(wd, dir)
		}
		dir = sandbox.ToBe(dir)
		if _, holds := files.Within(dir, wd); holds {
			continue
		}
		kept = append(kept, dir)
	}
	return kept
}

// libraryCache are the directories of rooda's library cache whose
// content rooda runs (libs.Trusted): hidden from every agent, where it
// could write them: where the user's cache directory exists, which its
// rule grants it (caches).
func libraryCache() []string {
	dir, err := libs.DefaultCacheDir()
	if err != nil {
		return nil
	}
	if _, err := os.Stat(filepath.Dir(dir)); err != nil {
		return nil
	}
	return libs.Trusted(dir)
}

// checkSandbox says what the sandbox will apply, and refuses sandbox:
// workspace where the kernel cannot confine writes, or connections that
// sandbox_net limits, or hide what sandbox_hide names; and, under a
// sandbox, a sandbox_write path that voids it (voided). Under off, what
// is given of its settings is said to do nothing.
func (p *Plan) checkSandbox() {
	mode := config.Sandbox.In(p.Settings)
	abi := sandbox.ABI()
	if mode.V == sandbox.Workspace || mode.V == sandbox.BestEffort {
		p.voided()
	}
	switch {
	case mode.V == sandbox.Workspace && abi == 0:
		p.fail("", fmt.Errorf("sandbox: workspace (%s) needs Landlock, which this kernel (%s) does not offer: use sandbox: best-effort to run unconfined, or off", mode.Source, sandbox.Kernel()))
	case mode.V == sandbox.Workspace && abi < sandbox.NetABI && len(config.SandboxNet.In(p.Settings).V) > 0:
		p.fail("", fmt.Errorf("sandbox_net (%s) needs Landlock ABI %d, and this kernel (%s) offers %d: leave it out, or use sandbox: best-effort", config.SandboxNet.In(p.Settings).Where(), sandbox.NetABI, sandbox.Kernel(), abi))
	case mode.V == sandbox.Workspace && len(hidden(p.Settings)) > 0 && sandbox.CanHide() != nil:
		p.fail("", fmt.Errorf("sandbox_hide (%s) needs a mount namespace, which this system does not give: %v; leave it out, or use sandbox: best-effort", config.SandboxHide.In(p.Settings).Where(), sandbox.CanHide()))
	case mode.V == sandbox.Workspace || mode.V == sandbox.BestEffort:
		p.pass(fmt.Sprintf("Sandbox: %s, Landlock ABI %d: the agent writes only its workspace, its own TMPDIR, its CLI's state directories, caches and sandbox_write", mode.V, abi))
		p.Checks[len(p.Checks)-1].Detail = strings.Join(append(p.sandboxRules(), p.SandboxShortfalls()...), "\n")
	case len(p.sandboxGiven()) > 0:
		p.pass("Sandbox: off: the agent writes anywhere you may")
		p.Checks[len(p.Checks)-1].Detail = strings.Join(p.SandboxShortfalls(), "\n")
	}
	p.checkHosts()
}

// SandboxShortfalls say what the sandbox asked for this kernel or
// system cannot apply, and what of its settings does nothing, for the
// dry run and the run's log.
func (p *Plan) SandboxShortfalls() []string {
	mode := config.Sandbox.In(p.Settings).V
	if mode != sandbox.Workspace && mode != sandbox.BestEffort {
		return p.offWarnings()
	}
	abi := sandbox.ABI()
	if abi == 0 {
		return []string{fmt.Sprintf("not applied: this kernel (%s) has no Landlock; the agent writes anywhere you may", sandbox.Kernel())}
	}
	out := p.pathWarnings()
	if abi < sandbox.NetABI && len(config.SandboxNet.In(p.Settings).V) > 0 {
		out = append(out, fmt.Sprintf("not applied: sandbox_net, which needs Landlock ABI %d (this kernel offers %d)", sandbox.NetABI, abi))
	}
	if abi < sandbox.SignalsABI {
		out = append(out, fmt.Sprintf("not applied: the agent's signals and abstract unix sockets are not scoped to its own tree, which needs Landlock ABI %d (this kernel offers %d)", sandbox.SignalsABI, abi))
	}
	if err := sandbox.CanHide(); err != nil {
		out = append(out, "not hidden, rooda's records, the worktrees of runs and sandbox_hide: "+err.Error())
		out = append(out, gitNotCovered+err.Error())
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
	p.rules(&spec, workspaceOf(""), "", "", state)
	lines := []string{"writes: " + strings.Join(append(spec.Write, "its own TMPDIR"), ", ")}
	if hide := p.firstHidden(spec.Hide); len(hide) > 0 {
		lines = append(lines, "hidden: "+strings.Join(hide, ", "))
	}
	lines = append(lines, gitRules(spec)...)
	if len(spec.Ports) > 0 {
		lines = append(lines, "connects to: "+strings.Trim(fmt.Sprint(spec.Ports), "[]"))
	}
	return append(lines, p.hostsRules()...)
}

// firstHidden is what the first iteration hides, hide being what is
// hidden now: what of rooda's own is hidden once made too (its records,
// which the run makes before it, the library cache's, which each
// iteration makes: a dry run makes nothing), unless it lies in what is
// hidden already.
func (p *Plan) firstHidden(hide []string) []string {
	if sandbox.CanHide() != nil {
		return hide
	}
	var made []string
	for _, dir := range private(p.Settings) {
		if !insideAny(dir, hide) && !insideAny(dir, made) {
			made = append(made, dir)
		}
	}
	return append(made, hide...)
}

// guardGit has spec keep the git of workspace's repository from the
// agent (sandbox.GuardGit), from the repository as rooda recorded it
// before any agent ran there; attr is what its process needs for it.
func guardGit(spec *sandbox.Spec, workspace, own string) (attr func(*syscall.SysProcAttr)) {
	r, ok := git.Recorded(workspace)
	if !ok {
		return nil
	}
	repo := sandbox.Repo{GitDir: r.GitDir, CommonDir: r.CommonDir, Top: r.Top, Branch: r.Branch}
	if repo.Branch != "" && repo.GitDir != repo.CommonDir {
		repo.Head, _ = git.Run(context.Background(), git.Command{Args: []string{"rev-parse", "--verify", "-q", repo.Branch}, Env: r.Env()})
	}
	attr, err := spec.GuardGit(repo, own)
	if err != nil {
		spec.NotCovered = err.Error()
	}
	return attr
}

// afterGit is done, after which rooda takes in what a worktree agent
// made on its branch (sandbox.Branch.Import), and removes a commondir
// planted in the git directory of the workspace's repository: done runs
// before the loop takes the iteration's git facts. One left by an agent
// of a rooda killed before it could remove it goes first, before the
// agent starts.
func (p *Plan) afterGit(spec *sandbox.Spec, workspace string, done func()) func() {
	r, ok := git.Recorded(workspace)
	if !ok {
		return done
	}
	p.removePlanted(r)
	return func() {
		// An error, not a warning: the iteration counts as a success
		// with nothing to merge, and the agent's commits are only where
		// the error says.
		if _, err := spec.Branch.Import(context.Background()); err != nil && p.errorf != nil {
			p.errorf("Sandbox: what the agent made on its branch %s was not taken: %v", spec.Branch.Ref, err)
		}
		p.removePlanted(r)
		done()
	}
}

// removePlanted removes a commondir planted in r's git directory, which
// only a linked worktree's has, saying so.
func (p *Plan) removePlanted(r git.Repo) {
	if msg := sandbox.PlantedCommonDir(r.GitDir, r.Linked()); msg != "" {
		p.warn("%s", msg)
	}
}

// warn says what the sandbox found, in the run's log.
func (p *Plan) warn(format string, args ...any) {
	if p.warnf != nil {
		p.warnf("Sandbox: "+format, args...)
	}
}

// gitNotCovered begins the shortfall where the agent has no namespace:
// rooda's own git still runs nothing of the repository's.
const gitNotCovered = "not covered: git's executable settings (.git/config, hooks) and, for a worktree agent, the repository's other refs and objects; rooda's own git ignores them: "

// gitRules are the dry run's lines of what spec covers of git.
func gitRules(spec sandbox.Spec) []string {
	var lines []string
	if len(spec.ReadOnly) > 0 {
		lines = append(lines, "read-only (git's settings): "+strings.Join(spec.ReadOnly, ", "))
	}
	if b := spec.Branch; b != nil {
		lines = append(lines, fmt.Sprintf("git: the agent moves only %s; the repository's objects and its other refs are not written", b.Ref))
	}
	return lines
}

// then is first, then next.
func then(first, next func()) func() {
	return func() { first(); next() }
}
