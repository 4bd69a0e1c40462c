package agent

import (
	"sync"
	"syscall"
)

var subreaper sync.Once

// adoptOrphans makes rooda the reaper of its agents' orphans (Linux's
// PR_SET_CHILD_SUBREAPER): a background child whose parent exited is
// then rooda's to wait for, so "the group is gone" can be known exactly
// rather than guessed while a slow init reaps it.
func adoptOrphans() {
	subreaper.Do(func() {
		const prSetChildSubreaper = 36
		syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0)
	})
}

// reap collects the exited members of the group that rooda adopted.
func reap(pgid int) {
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-pgid, &ws, syscall.WNOHANG, nil)
		if pid <= 0 || err != nil {
			return
		}
	}
}
