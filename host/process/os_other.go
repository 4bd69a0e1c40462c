//go:build !linux

package process

import (
	"errors"
	"os"
	"os/exec"
	"sync/atomic"
	"syscall"
)

// AdoptOrphans does nothing where there are no subreapers: orphans go to
// init, which reaps them.
func AdoptOrphans() {}

func stopAdopting() {}

func becomeSubreaper() {}

func startReaper() {}

func reap(int) {}

func (f *family) reapOrphans() {}

// StartTime is 0, unknown, without /proc: a pid alone names a process.
func StartTime(int) uint64 { return 0 }

// zombie is false without /proc: a zombie cannot be told from a live
// process.
func zombie(int) bool { return false }

// proc is a process found; without /proc none is.
type proc struct {
	pid  int
	name string
}

// escapees finds nothing without /proc: what escaped the group is left to
// init.
func escapees(string) []proc { return nil }

// stopStaleTagged finds nothing without /proc: what a killed rooda's
// agent started is left to init.
func stopStaleTagged() []Found { return nil }

// tagged finds nothing without /proc: a Ctrl+Z stops the agent's group
// alone.
func tagged(string) []int { return nil }

// cgroup is Linux's; elsewhere there is none.
type cgroup struct{ spared bool }

func newCgroup() *cgroup      { return nil }
func (*cgroup) find() []proc  { return nil }
func (*cgroup) killAll()      {}
func (*cgroup) remove()       {}
func (*cgroup) release()      {}
func (*cgroup) unused()       {}
func dropSpares()             {}
func (*cgroup) stopAll() bool { return false }
func (*cgroup) continueAll()  {}
func removeBaseCgroup()       {}

var cgroupsOff atomic.Bool

// sysProcAttr puts the agent in a session of its own: no controlling
// terminal, and a process group of its own (family_linux.go).
func sysProcAttr(*cgroup, bool) *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }

// outputPipe is the pipe of the agent's output, both ends blocking: the
// read end is read as cat reads it (capture).
func outputPipe() (r, w *os.File, err error) {
	var fds [2]int
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	if err := syscall.Pipe(fds[:]); err != nil {
		return nil, nil, os.NewSyscallError("pipe", err)
	}
	syscall.CloseOnExec(fds[0])
	syscall.CloseOnExec(fds[1])
	return os.NewFile(uintptr(fds[0]), "|0"), os.NewFile(uintptr(fds[1]), "|1"), nil
}

func waitExit(cmd *exec.Cmd) error { return cmd.Wait() }

func adviseHuge([]byte) {}

// wakeRead is Linux's (through /proc): elsewhere a read given up on ends
// when the process holding the pipe writes or exits.
func wakeRead(*os.File) {}

// The guard is Linux's (guard_linux.go): elsewhere nothing starts from a
// confined thread.
const GuardArg = "--guard"

var guardPrograms [][]string

func UseGuard(...[]string) {}
func StartGuard()          {}
func GuardMain([]string)   { os.Exit(0) }

type guard struct{}

var theGuard guard

func (guard) starting(*started, map[int]*started) error {
	return errors.New("a confined start needs Linux")
}
func (guard) started(*started) {}
func (guard) ended(*started)   {}
func (guard) dismiss()         {}

func startConfined(_ *started, done chan<- confinedStart, _ chan<- struct{}) {
	done <- confinedStart{err: errors.New("a confined start needs Linux")}
}
func threadGone(int) {}
