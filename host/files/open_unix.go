//go:build unix

package files

import "syscall"

// nonBlocking opens a named pipe at once, whether or not a writer has it
// open; on Linux, reads still wait for a writer's data, through Go's
// poller.
const nonBlocking = syscall.O_NONBLOCK
