package process

import (
	"syscall"
)

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
