package sandbox

import (
	"cmp"
	"errors"
	"os"
	"path/filepath"
	"strings"

	"rooda/host/files"
)

// An iteration's agent has a directory of its own in os.TempDir(),
// rooda-agent-*, holding tmp/ (its TMPDIR, the only part it may write)
// and an empty read-only file (bound over the files sandbox_hide names).
// rooda holds a lock (flock) on the directory while the iteration goes
// on, so a directory whose lock is free is a dead rooda's (kill -9):
// Sweep removes it. The directory is made under a name Sweep does not
// look at and renamed once locked, so no sweep ever finds it unlocked
// while its rooda lives.

// agentPrefix begins the name of every agent's directory.
const agentPrefix = "rooda-agent-"

// AgentDir is an iteration's agent's directory, locked while it lives.
type AgentDir struct {
	Dir  string
	lock *os.File
}

// NewAgentDir makes, and locks, a directory for an iteration's agent.
func NewAgentDir() (*AgentDir, error) {
	staging, err := os.MkdirTemp("", "."+agentPrefix)
	if err != nil {
		return nil, err
	}
	d := &AgentDir{Dir: staging}
	if err := d.fill(); err != nil {
		d.Remove()
		return nil, err
	}
	named := filepath.Join(filepath.Dir(staging), strings.TrimPrefix(filepath.Base(staging), "."))
	if err := os.Rename(staging, named); err != nil {
		d.Remove()
		return nil, err
	}
	d.Dir = named
	return d, nil
}

// fill locks the directory and makes what it holds.
func (d *AgentDir) fill() error {
	f, err := os.Open(d.Dir)
	if err != nil {
		return err
	}
	d.lock = f
	if busy, err := files.TryLock(f); busy || err != nil {
		return cmp.Or(err, errors.New("locked by another"))
	}
	if err := os.Mkdir(d.TMPDIR(), 0o700); err != nil {
		return err
	}
	return os.WriteFile(d.Empty(), nil, 0o444)
}

// TMPDIR is the agent's temporary directory.
func (d *AgentDir) TMPDIR() string { return filepath.Join(d.Dir, "tmp") }

// Empty is the empty file bound over the files hidden from the agent.
func (d *AgentDir) Empty() string { return filepath.Join(d.Dir, "empty") }

// Clear makes the directory as it was made, for the next iteration's
// agent of the same loop: its TMPDIR emptied, the private git state of a
// worktree's agent (GuardGit) gone. Making a directory for each agent
// cost more than its agent's start on a disk (two mkdirs, a file, a
// rename, three removals: docs/performance.md); emptying one that the
// agent left empty costs a read of it.
func (d *AgentDir) Clear() error {
	entries, err := os.ReadDir(d.TMPDIR())
	for _, e := range entries {
		err = errors.Join(err, os.RemoveAll(filepath.Join(d.TMPDIR(), e.Name())))
	}
	return errors.Join(err, os.RemoveAll(filepath.Join(d.Dir, privateGit)))
}

// privateGit is, in an agent's directory, where a worktree's agent keeps
// the objects and refs it writes (privateBranch).
const privateGit = "git"

// Remove removes the directory, then lets its lock go: a sweep never
// sees it unlocked.
func (d *AgentDir) Remove() {
	os.RemoveAll(d.Dir)
	if d.lock != nil {
		d.lock.Close()
	}
}

// Sweep removes the agents' directories that dead roodas left in
// os.TempDir(): those whose lock no one holds. It leaves a live rooda's
// (whose lock is held), another user's it cannot open, and those of a
// rooda from before the lock (no empty file in them): nothing tells
// whether their rooda lives.
func Sweep() (removed []string) {
	found, _ := filepath.Glob(filepath.Join(os.TempDir(), agentPrefix+"*"))
	for _, dir := range found {
		if sweepOne(dir) {
			removed = append(removed, dir)
		}
	}
	return removed
}

// sweepOne removes dir if its rooda is dead.
func sweepOne(dir string) bool {
	if _, err := os.Lstat(filepath.Join(dir, "empty")); err != nil {
		return false
	}
	f, err := os.Open(dir)
	if err != nil {
		return false
	}
	defer f.Close()
	if busy, err := files.TryLock(f); busy || err != nil {
		return false
	}
	return os.RemoveAll(dir) == nil
}
