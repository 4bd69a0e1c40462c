// Command peakrss runs a command and writes its peak resident memory, in
// KiB, to a file: the tests' measure of what rooda holds.
//
//	peakrss FILE COMMAND [ARG…]
//
// It exits with the command's exit code. A test cannot read a child's
// peak from its own wait: Go starts children with vfork, and on Linux
// the exec that follows records the peak of the memory it left, the
// test's own, as the child's. peakrss is a small process of its own, so
// the command's peak is the command's.
package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: peakrss FILE COMMAND [ARG…]")
		os.Exit(2)
	}
	cmd := exec.Command(os.Args[2], os.Args[3:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		fmt.Fprintln(os.Stderr, "peakrss:", err)
		os.Exit(127)
	}
	usage, _ := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if usage == nil {
		fmt.Fprintln(os.Stderr, "peakrss: no resource usage")
		os.Exit(127)
	}
	if err := os.WriteFile(os.Args[1], []byte(fmt.Sprint(usage.Maxrss)), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "peakrss:", err)
		os.Exit(127)
	}
	os.Exit(cmd.ProcessState.ExitCode())
}
