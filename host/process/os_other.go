//go:build !linux

package process

import (
	"os"
	"sync/atomic"
	"syscall"
)

// AdoptOrphans does nothing where there are no subreapers: orphans go to
// init, which reaps them.
func AdoptOrphans() {}

func stopAdopting() {}

func becomeSubreaper() {}

func reap(int) {}

func (f *family) reapOrphans() {}

// StartTime is 0, unknown, without /proc: a pid alone names a process.
func StartTime(int) uint64 { return 0 }

// proc is a process found; without /proc none is.
type proc struct {
	pid  int
	name string
}

// escapees finds nothing without /proc: what escaped the group is left to
// init.
func escapees(string) []proc { return nil }

// cgroup is Linux's; elsewhere there is none.
type cgroup struct{}

func newCgroup() *cgroup     { return nil }
func (*cgroup) find() []proc { return nil }
func (*cgroup) killAll()     {}
func (*cgroup) remove()      {}
func removeBaseCgroup()      {}

var cgroupsOff atomic.Bool

func sysProcAttr(*cgroup) *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

func widenPipe(*os.File) {}

func adviseHuge([]byte) {}
