package process

import (
	"os"
	"syscall"
)

// widenPipe asks for a 1 MiB pipe (F_SETPIPE_SZ) instead of 64 KiB, so
// that an agent printing fast wakes rooda a sixteenth as often. Failing
// that, the pipe stays as it is.
func widenPipe(f *os.File) {
	const fSetPipeSz = 1031
	if conn, err := f.SyscallConn(); err == nil {
		conn.Control(func(fd uintptr) {
			syscall.Syscall(syscall.SYS_FCNTL, fd, fSetPipeSz, 1<<20)
		})
	}
}

// adviseHuge asks for transparent huge pages (MADV_HUGEPAGE) under a large
// ring: an agent that prints gigabytes cycles through all of it, and with
// 4 KiB pages the TLB misses cost as much as the copying (the benchmark
// BenchmarkFlood shows 1.5x the time of a plain pipe without it, 1.0x with).
func adviseHuge(b []byte) {
	const madvHugepage = 14
	if len(b) >= 4<<20 {
		syscall.Madvise(b, madvHugepage)
	}
}
