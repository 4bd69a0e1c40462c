package process

import (
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// outputPipe is the pipe of the agent's output: a read end for blocking
// reads (capture), which Go's poller never registers, and the write end
// the agent gets. It asks for a 1 MiB pipe (F_SETPIPE_SZ) instead of
// 64 KiB, so that an agent printing fast wakes rooda a sixteenth as
// often; failing that, the pipe stays as it is.
func outputPipe() (r, w *os.File, err error) {
	var fds [2]int
	if err := syscall.Pipe2(fds[:], syscall.O_CLOEXEC); err != nil {
		return nil, nil, os.NewSyscallError("pipe2", err)
	}
	unix.FcntlInt(uintptr(fds[0]), unix.F_SETPIPE_SZ, 1<<20)
	return os.NewFile(uintptr(fds[0]), "|0"), os.NewFile(uintptr(fds[1]), "|1"), nil
}

// wakeRead ends a blocking read of r, a pipe's read end, that would
// otherwise wait for a process rooda could not stop: it writes a byte
// through a write end of the pipe of its own, opened in /proc/self/fd. A
// full pipe takes none: no read waits then; nor does a pipe whose read
// ended meanwhile (r closed, or no reader left).
func wakeRead(r *os.File) {
	conn, err := r.SyscallConn()
	if err != nil {
		return
	}
	conn.Control(func(fd uintptr) {
		w, err := unix.Open("/proc/self/fd/"+strconv.Itoa(int(fd)), unix.O_WRONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
		if err == nil {
			unix.Write(w, []byte{0})
			unix.Close(w)
		}
	})
}

// waitExit waits for the agent to exit, then collects its status. It
// waits on a pidfd in Go's poller rather than in a blocking waitid, which
// holds one of Go's processors as the blocking read of the output holds
// another: with two cores, both held, the goroutine that writes the
// prompt would wait for the runtime to take one back, up to 10 ms.
func waitExit(cmd *exec.Cmd) error {
	if fd, err := unix.PidfdOpen(cmd.Process.Pid, unix.PIDFD_NONBLOCK); err == nil {
		f := os.NewFile(uintptr(fd), "pidfd")
		if conn, err := f.SyscallConn(); err == nil {
			conn.Read(func(fd uintptr) bool {
				// Exited, or nothing to wait for: reaped already (an
				// abandoned agent, reaped with its group), which
				// cmd.Wait then reports.
				_, exited, errno := exitedUnwaited(unix.P_PIDFD, int(fd))
				return exited || errno != 0
			})
		}
		f.Close()
	}
	return cmd.Wait()
}

// hugePage is the size of a transparent huge page on amd64 and arm64.
const hugePage = 2 << 20

// adviseHuge asks for transparent huge pages (MADV_HUGEPAGE) under the
// 2 MiB-aligned part of mem, which may be Go's. Memory written from end
// to end, as a flood's ring, then costs a fault per 2 MiB instead of per
// 4 KiB: on the VM these figures come from, a fault cost about 50 µs, and
// copying 10 MiB into fresh memory 90–150 ms with small pages against
// 2–30 ms with huge ones; the TLB misses of small pages had cost as much
// as the copying. It is only advice: the contents stay as they are, and a
// kernel without huge pages ignores it. On Go's heap it outlives the
// ring, on that range alone: a later ring mostly takes the same range
// again, and what else lands there may be given huge pages too, a range
// of the limit at most.
func adviseHuge(mem []byte) {
	if len(mem) < 2*hugePage {
		return
	}
	start := uintptr(unsafe.Pointer(&mem[0]))
	skip := int((start+hugePage-1)&^(hugePage-1) - start)
	unix.Madvise(mem[skip:], unix.MADV_HUGEPAGE)
}
