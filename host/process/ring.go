package process

// Ring keeps the most recent bytes written to it, at most its limit: the
// memory a capture takes does not grow with what the agent prints.
//
// Its memory is Go's, in at most three buffers, each taking what the one
// before held (ringSteps): 64 KiB, 1 MiB, then one of the limit, in huge
// pages (adviseHuge). Most agents print less than the first; an output
// is held in at most sixteen times its size, or the limit. Once full the
// ring wraps, the next bytes replacing the oldest, and Bytes turns it in
// place: what is kept is handed out, not copied out again. Copying 10 MiB
// out of a ring into fresh memory, page fault after page fault, cost a
// flood 25–45 ms after the agent ended.
type Ring struct {
	limit    int
	buf      []byte // the kept bytes: len grows to limit, then stays
	head     int    // once full, where the oldest byte is
	total    int64
	released bool // Bytes turned buf in order and handed it out
}

// ringSteps are the sizes of a ring's buffers below its limit.
var ringSteps = [...]int{64 << 10, 1 << 20}

// NewRing returns a Ring keeping at most limit bytes (at least 1).
func NewRing(limit int) *Ring { return &Ring{limit: max(limit, 1)} }

// Write keeps p's tail; it never fails. Writing after Bytes is a bug:
// the bytes handed out would change.
func (r *Ring) Write(p []byte) (int, error) {
	if r.released {
		panic("process: Ring written after Bytes")
	}
	n := len(p)
	r.total += int64(n)
	if len(p) > r.limit {
		p = p[len(p)-r.limit:]
	}
	for len(p) > 0 && !r.full() {
		take := min(len(r.space()), len(p))
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

// Bytes returns what is kept, oldest first, as one contiguous slice, so
// a signal split between two reads is found whole. It is the ring's last
// use: the slice is the ring's own memory, turned in order.
func (r *Ring) Bytes() []byte {
	if !r.released {
		rotate(r.buf, r.head)
		r.head, r.released = 0, true
	}
	return r.buf
}

// Total is how many bytes were written; Dropped how many are not kept.
func (r *Ring) Total() int64   { return r.total }
func (r *Ring) Dropped() int64 { return r.total - int64(len(r.buf)) }

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
// ring fills, then the oldest bytes, up to the end of the memory. A full
// buffer below the limit gives way to the next size (ringSteps).
func (r *Ring) space() []byte {
	if r.full() {
		return r.buf[r.head:]
	}
	if len(r.buf) == cap(r.buf) {
		r.grow()
	}
	return r.buf[len(r.buf):cap(r.buf)]
}

// grow moves what the ring holds into its next buffer.
func (r *Ring) grow() {
	size := r.limit
	for _, step := range ringSteps {
		if step > cap(r.buf) && step < r.limit {
			size = step
			break
		}
	}
	next := make([]byte, len(r.buf), size)
	adviseHuge(next[:size])
	copy(next, r.buf)
	r.buf = next
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

// rotate turns b left by k in place: b[k:], then b[:k]. It swaps the
// shorter side with the far end of the longer one, which puts that much
// in its place, and turns what is left (Gries and Mills), until one side
// fits in a buffer of 64 KiB, which then carries it across.
func rotate(b []byte, k int) {
	const carry = 64 << 10
	var tmp []byte
	for k > 0 && k < len(b) {
		left, right := k, len(b)-k
		if min(left, right) <= carry {
			if tmp == nil {
				tmp = make([]byte, min(left, right))
			}
			if left <= right {
				t := tmp[:left]
				copy(t, b[:left])
				copy(b, b[left:])
				copy(b[right:], t)
			} else {
				t := tmp[:right]
				copy(t, b[left:])
				copy(b[right:], b[:left])
				copy(b, t)
			}
			return
		}
		if left <= right {
			swapInPieces(b[:left], b[len(b)-left:])
			b = b[:len(b)-left]
		} else {
			swapInPieces(b[:right], b[left:])
			b, k = b[right:], left-right
		}
	}
}

// swapInPieces swaps the contents of a and b, of one length, not
// overlapping, 64 KiB at a time.
func swapInPieces(a, b []byte) {
	var tmp [64 << 10]byte
	for len(a) > 0 {
		n := copy(tmp[:], a)
		copy(a, b[:n])
		copy(b, tmp[:n])
		a, b = a[n:], b[n:]
	}
}
