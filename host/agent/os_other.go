//go:build !linux

package agent

import (
	"os"
	"syscall"
	"time"
)

// adoptOrphans does nothing where there are no subreapers: orphans go to
// init, which reaps them.
func adoptOrphans() {}

func reap(int) {}

func sysProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// stopTagged finds nothing without /proc: what escaped the group is left
// to init.
func stopTagged(string, time.Duration, <-chan struct{}) ([]Process, bool, bool) {
	return nil, false, false
}

func widenPipe(*os.File) {}

func adviseHuge([]byte) {}
