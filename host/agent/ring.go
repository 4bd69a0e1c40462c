package agent

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
// signal split between two reads is found whole.
func (r *Ring) Bytes() []byte {
	out := make([]byte, 0, len(r.buf))
	out = append(out, r.buf[r.head:]...)
	return append(out, r.buf[:r.head]...)
}

// Total is how many bytes were written; Dropped how many are not kept.
func (r *Ring) Total() int64   { return r.total }
func (r *Ring) Dropped() int64 { return r.total - int64(len(r.buf)) }
