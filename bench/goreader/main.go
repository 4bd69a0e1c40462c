// Command goreader is the plainest Go program that keeps what rooda keeps
// of an agent's output: it starts a command with its output in a pipe of
// 1 MiB, as rooda's agents have, reads that pipe with Go's blocking
// reads, each taking what the pipe holds up to 128 KiB, into a ring of
// the newest 10 MiB, and waits for the command. No record, no scan, no
// watchdog, no locks.
//
// bench/run.sh runs it beside `cat` in each flood: what a Go program pays
// on this machine to read a pipe the safe way (telling the runtime that
// a read may block) and keep 10 MiB of it, against which what rooda adds
// is measured (docs/performance.md, "The capture of 8 KiB pieces").
//
//	goreader CMD [ARGS...]
//
// It exits as the command did, or 1 when the command could not start.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"

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
	if err := cmd.Start(); err != nil {
		fail(err)
	}
	out.Close()
	total := readRing(fds[0])
	syscall.Close(fds[0])
	err := cmd.Wait()
	fmt.Fprintf(os.Stderr, "goreader: %d bytes read\n", total)
	if exit, ok := err.(*exec.ExitError); ok {
		os.Exit(exit.ExitCode())
	}
	if err != nil {
		fail(err)
	}
}

// readRing reads fd to its end into a ring of the newest kept bytes, and
// returns how many it read.
func readRing(fd int) int64 {
	ring := make([]byte, kept)
	head, total := 0, int64(0)
	for {
		n, err := syscall.Read(fd, ring[head:min(head+maxRead, kept)])
		if err == syscall.EINTR {
			continue
		}
		if n <= 0 {
			return total
		}
		head = (head + n) % kept
		total += int64(n)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "goreader:", err)
	os.Exit(1)
}
