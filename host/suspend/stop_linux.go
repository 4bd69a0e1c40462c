package suspend

import (
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// sigaction is room for the kernel's struct sigaction, which rooda only
// clears (SIG_DFL) or copies back whole, whatever its layout.
type sigaction [8]uintptr

// stopSelf stops rooda as SIGTSTP's default action does, and returns
// once rooda is continued. Go's runtime cannot give the signal its
// default action back (signal.Reset leaves Go's handler, which drops
// it), so the action is set by rt_sigaction for the moment the signal is
// raised on this very thread (tgkill): the kernel stops the process
// before the call returns. As for any SIGTSTP, the kernel discards the
// stop when rooda's process group is orphaned, with no shell to continue
// it; rooda then goes on at once. Where the action cannot be set,
// SIGSTOP stops rooda.
func stopSelf() {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var dfl, old sigaction
	if setAction(unix.SIGTSTP, &dfl, &old) != nil {
		unix.Tgkill(unix.Getpid(), unix.Gettid(), unix.SIGSTOP)
		return
	}
	unix.Tgkill(unix.Getpid(), unix.Gettid(), unix.SIGTSTP)
	setAction(unix.SIGTSTP, &old, nil)
}

// setAction is rt_sigaction(2), for a signal set of 64 signals.
func setAction(sig unix.Signal, act, old *sigaction) error {
	const sigsetSize = 8
	_, _, errno := unix.RawSyscall6(unix.SYS_RT_SIGACTION, uintptr(sig), uintptr(unsafe.Pointer(act)), uintptr(unsafe.Pointer(old)), sigsetSize, 0, 0)
	if errno != 0 {
		return errno
	}
	return nil
}
