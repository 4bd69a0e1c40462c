package process

import "io"

// Ring keeps the most recent bytes written to it, at most its limit: the
// memory a capture takes does not grow with what the agent prints.
type Ring struct {
	limit int
	buf   []byte // grows to limit, then is reused in place
	head  int    // once full, where the oldest byte is
	total int64
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

// Bytes returns what is kept, oldest first, as one contiguous slice, so a
// signal split between two reads is found whole. It puts the bytes in
// order in place, without a second buffer, and so is the ring's last use:
// writing to it after Bytes loses the order.
func (r *Ring) Bytes() []byte {
	if r.head > 0 {
		rotate(r.buf, r.head)
		r.head = 0
	}
	return r.buf
}

// rotate moves b[k:] to the front of b and b[:k] after it, using a
// temporary copy of the shorter part only.
func rotate(b []byte, k int) {
	if k <= len(b)-k {
		front := append([]byte(nil), b[:k]...)
		copy(b, b[k:])
		copy(b[len(b)-k:], front)
		return
	}
	back := append([]byte(nil), b[k:]...)
	copy(b[len(b)-k:], b[:k])
	copy(b, back)
}

// full reports whether the ring holds its limit: the next bytes read
// replace the oldest.
func (r *Ring) full() bool { return len(r.buf) == r.limit }

// copyBut returns a copy of what is kept, oldest first, leaving out the
// skip oldest bytes; the ring is left as it is.
func (r *Ring) copyBut(skip int) []byte {
	if !r.full() {
		return append([]byte(nil), r.buf[min(skip, len(r.buf)):]...)
	}
	out := make([]byte, 0, len(r.buf)-skip)
	out = append(out, r.buf[min(r.head+skip, len(r.buf)):]...)
	return append(out, r.buf[:r.head]...)
}

// Total is how many bytes were written; Dropped how many are not kept.
func (r *Ring) Total() int64   { return r.total }
func (r *Ring) Dropped() int64 { return r.total - int64(len(r.buf)) }

// minGrowth is the least the ring grows by while it fills: one pipe's
// worth.
const minGrowth = 64 << 10

// fill reads src to its end straight into the ring's memory, so each byte
// is copied once, and writes each piece to tee as well when tee is not
// nil. The memory grows with what is read, up to the limit, and no
// further.
func (r *Ring) fill(src io.Reader, tee io.Writer) error {
	for {
		space := r.space()
		n, err := src.Read(space)
		if n > 0 {
			if tee != nil {
				if _, err := tee.Write(space[:n]); err != nil {
					tee = nil // a closed stdout ends the streaming, not the capture
				}
			}
			r.advance(n)
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// space is where the next bytes read go: the unused capacity while the
// ring fills, then the oldest bytes, up to the end of the buffer.
func (r *Ring) space() []byte {
	if len(r.buf) == r.limit {
		return r.buf[r.head:]
	}
	if len(r.buf) == cap(r.buf) {
		grown := make([]byte, len(r.buf), min(max(2*cap(r.buf), minGrowth), r.limit))
		adviseHuge(grown[:cap(grown)])
		copy(grown, r.buf)
		r.buf = grown
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
