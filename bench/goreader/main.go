// Command goreader is the plainest Go program that keeps what rooda keeps
// of an agent's output: it starts a command as rooda starts its agents,
// in a session of its own with its output in a pipe of 1 MiB, reads that
// pipe with Go's blocking reads, each taking what the pipe holds up to
// 128 KiB, into a ring of the newest 10 MiB in huge pages (as rooda's
// ring asks for them), and waits for the command. No record, no scan, no
// watchdog, no locks.
//
// The session counts: where the kernel schedules each session as a group
// of its own (autogroups), a reader and a writer in two sessions switch
// far more often when they share a core than two in one session, and the
// flood of 8 KiB pieces costs about an eighth more CPU on two cores, 1.7
// times the time on one (docs/performance.md, "The capture of 8 KiB
// pieces"). rooda cannot leave its agents in its own session: one there
// could take the terminal and be stopped by it.
//
//	goreader CMD [ARGS...]
//
// It exits as the command did (255 when a signal ended it), 1 when the
// command could not start or its output could not be read, 2 on a usage
// error.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

const (
	kept     = 10 << 20  // max_output_buffer's default
	pipeSize = 1 << 20   // what rooda asks of its agents' pipes
	maxRead  = 128 << 10 // as cat reads, and rooda once its ring is full
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: goreader CMD [ARGS...]")
		os.Exit(2)
	}
	var fds [2]int
	if err := syscall.Pipe2(fds[:], syscall.O_CLOEXEC); err != nil {
		fail(err)
	}
	unix.FcntlInt(uintptr(fds[0]), unix.F_SETPIPE_SZ, pipeSize)
	out := os.NewFile(uintptr(fds[1]), "|1")
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stdout, cmd.Stderr = out, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		fail(err)
	}
	out.Close()
	total, readErr := readRing(fds[0])
	syscall.Close(fds[0])
	err := cmd.Wait()
	fmt.Fprintf(os.Stderr, "goreader: %d bytes read\n", total)
	if readErr != nil {
		fail(readErr)
	}
	if exit, ok := err.(*exec.ExitError); ok {
		os.Exit(exit.ExitCode())
	}
	if err != nil {
		fail(err)
	}
}

// readRing reads fd to its end into a ring of the newest kept bytes, and
// returns how many it read.
func readRing(fd int) (int64, error) {
	ring := make([]byte, kept)
	adviseHuge(ring)
	head, total := 0, int64(0)
	for {
		n, err := syscall.Read(fd, ring[head:min(head+maxRead, kept)])
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			return total, err
		case n == 0:
			return total, nil
		}
		head = (head + n) % kept
		total += int64(n)
	}
}

// adviseHuge asks for transparent huge pages under the 2 MiB-aligned part
// of mem, as rooda's ring does: without them, faulting 10 MiB in takes
// this VM tens of milliseconds more (docs/design.md, "Capture").
func adviseHuge(mem []byte) {
	const huge = 2 << 20
	start := uintptr(unsafe.Pointer(&mem[0]))
	skip := int((start+huge-1)&^(huge-1) - start)
	if skip < len(mem) {
		unix.Madvise(mem[skip:], unix.MADV_HUGEPAGE)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "goreader:", err)
	os.Exit(1)
}
