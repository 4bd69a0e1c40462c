package process

import (
	"runtime"
	"syscall"
)

// Ring keeps the most recent bytes written to it, at most its limit: the
// memory a capture takes does not grow with what the agent prints.
//
// Its memory is a mapping of its own, outside Go's heap, made at the
// first write: the kernel commits its pages as they are first written,
// so an agent that prints a line costs a page, and one that prints
// gigabytes costs the limit, once, with no growing copies and no garbage
// for the collector (growing a slice to 10 MiB cost a fifth of a flood's
// time, in page faults and collections). Bytes copies what is kept out,
// in order, and unmaps it.
type Ring struct {
	limit    int
	buf      []byte // the kept bytes, in the mapping: len grows to limit, cap is limit
	head     int    // once full, where the oldest byte is
	total    int64
	unmap    runtime.Cleanup // unmaps buf should the ring be dropped unread
	mapped   bool
	kept     []byte // what Bytes returned: the ring is released
	released bool
}

// NewRing returns a Ring keeping at most limit bytes (at least 1).
func NewRing(limit int) *Ring { return &Ring{limit: max(limit, 1)} }

// Write keeps p's tail; it never fails.
func (r *Ring) Write(p []byte) (int, error) {
	n := len(p)
	r.total += int64(n)
	if len(p) > r.limit {
		p = p[len(p)-r.limit:]
	}
	r.allocate()
	if room := r.limit - len(r.buf); room > 0 {
		take := min(room, len(p))
		r.buf = append(r.buf, p[:take]...)
		p = p[take:]
	}
	for len(p) > 0 {
		c := copy(r.buf[r.head:], p)
		p = p[c:]
		r.head = (r.head + c) % r.limit
	}
	return n, nil
}

// allocate maps the ring's memory, at its first use: anonymous, private,
// committed page by page as written. Past the first 2 MiB it asks for
// huge pages (adviseHuge), which an agent printing gigabytes cycles
// through, while one printing a line commits 4 KiB. Where mapping fails
// the memory comes from Go's heap.
func (r *Ring) allocate() {
	if r.buf != nil {
		return
	}
	mem, err := syscall.Mmap(-1, 0, r.limit, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		r.buf = make([]byte, 0, r.limit)
		return
	}
	adviseHuge(mem)
	r.buf, r.mapped = mem[:0], true
	r.unmap = runtime.AddCleanup(r, func(mem []byte) { syscall.Munmap(mem) }, mem)
}

// Bytes returns what is kept, oldest first, as one contiguous slice of
// Go's memory, so a signal split between two reads is found whole. It is
// the ring's last use: the ring's own memory is released.
func (r *Ring) Bytes() []byte {
	if r.released {
		return r.kept
	}
	r.kept = r.copyBut(0)
	r.free()
	return r.kept
}

// free releases the ring's memory: what is kept is gone.
func (r *Ring) free() {
	r.released = true
	if r.mapped {
		r.unmap.Stop()
		syscall.Munmap(r.buf[:cap(r.buf)])
	}
	r.buf, r.mapped = nil, false
}

// Total is how many bytes were written; Dropped how many are not kept.
func (r *Ring) Total() int64 { return r.total }
func (r *Ring) Dropped() int64 {
	if r.released {
		return r.total - int64(len(r.kept))
	}
	return r.total - int64(len(r.buf))
}

// full reports whether the ring holds its limit: the next bytes read
// replace the oldest.
func (r *Ring) full() bool { return len(r.buf) == r.limit }

// copyBut returns a copy of what is kept, oldest first, leaving out the
// skip oldest bytes; the ring is left as it is.
func (r *Ring) copyBut(skip int) []byte {
	if !r.full() {
		kept := r.buf[min(skip, len(r.buf)):]
		return appendInPieces(make([]byte, 0, len(kept)), kept)
	}
	out := make([]byte, 0, len(r.buf)-skip)
	out = appendInPieces(out, r.buf[min(r.head+skip, len(r.buf)):])
	return appendInPieces(out, r.buf[:r.head])
}

// appendInPieces appends b to out 256 KiB at a time. One copy of
// megabytes into fresh memory, page fault after page fault, cannot be
// preempted: the collector, which such an allocation starts, would spin
// waiting to scan this goroutine's stack until it ends.
func appendInPieces(out, b []byte) []byte {
	const piece = 256 << 10
	for len(b) > 0 {
		n := min(len(b), piece)
		out = append(out, b[:n]...)
		b = b[n:]
	}
	return out
}

// space is where the next bytes read go: the unused memory while the
// ring fills, then the oldest bytes, up to the end of the memory.
func (r *Ring) space() []byte {
	r.allocate()
	if r.full() {
		return r.buf[r.head:]
	}
	return r.buf[len(r.buf):cap(r.buf)]
}

// advance takes in n bytes just read into space.
func (r *Ring) advance(n int) {
	r.total += int64(n)
	if len(r.buf) < r.limit {
		r.buf = r.buf[:len(r.buf)+n]
		return
	}
	r.head = (r.head + n) % r.limit
}
