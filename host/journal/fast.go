package journal

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// A resume reads every entry of its journal before its first agent, and
// encoding/json goes over each line twice (checks it, then decodes it):
// most of a long run's resume. fastEntry reads a line as Line wrote it —
// compact, Entry's fields by their names, strings without escapes — in
// one pass, its result checked as json.Valid would and kept as the bytes
// it is. Any other line is json.Unmarshal's: fastEntry answers false for
// whatever it does not read exactly as that would.

// fastEntry reads data, one entry's JSON, as json.Unmarshal would; false
// where it leaves that to json.Unmarshal.
func fastEntry(data []byte) (Entry, bool) {
	var e Entry
	r := reader{data: data}
	if !r.take('{') {
		return e, false
	}
	for first := true; !r.take('}'); first = false {
		if !first && !r.take(',') {
			return e, false
		}
		key, ok := r.str()
		if !ok || !r.take(':') || !r.field(&e, key) {
			return e, false
		}
	}
	return e, r.at == len(r.data)
}

// reader reads data from at.
type reader struct {
	data []byte
	at   int
}

// take reads c, if it comes next.
func (r *reader) take(c byte) bool {
	if r.at < len(r.data) && r.data[r.at] == c {
		r.at++
		return true
	}
	return false
}

// field reads the value of e's field named key.
func (r *reader) field(e *Entry, key string) bool {
	switch key {
	case "k":
		return r.knownInto(&e.Kind)
	case "t":
		return r.knownInto(&e.Thread)
	case "op":
		return r.strInto(&e.Op)
	case "pos":
		return r.strInto(&e.Pos)
	case "what":
		return r.strInto(&e.What)
	case "s":
		return r.intInto(&e.Seq)
	case "n":
		return r.intInto(&e.N)
	case "rec":
		return r.intInto(&e.Record)
	case "at":
		n, ok := r.int()
		e.At = n
		return ok
	case "res":
		start := r.at
		if !r.skip(1) {
			return false
		}
		// The journal's own bytes, not a copy as json.Unmarshal makes
		// (Parse): capped, so that an append to it cannot write past it.
		e.Result = json.RawMessage(r.data[start:r.at:r.at])
		return true
	}
	return false
}

func (r *reader) strInto(s *string) bool {
	v, ok := r.str()
	*s = v
	return ok
}

func (r *reader) intInto(n *int) bool {
	v, ok := r.int()
	*n = int(v)
	return ok && int64(*n) == v
}

// knownInto is strInto for a field whose values are mostly few (a kind,
// a thread): those share one string, where each entry's would be made.
func (r *reader) knownInto(s *string) bool {
	b, ok := r.strBytes()
	for _, k := range known {
		if string(b) == k {
			*s = k
			return ok
		}
	}
	*s = string(b)
	return ok
}

// known are the values knownInto shares.
var known = []string{Began, Ended, Call, "main", Void, Resumed, Dropped}

// str reads a string without escapes or control characters, in UTF-8.
func (r *reader) str() (string, bool) {
	b, ok := r.strBytes()
	return string(b), ok
}

// strBytes is str's bytes, in data.
func (r *reader) strBytes() ([]byte, bool) {
	if !r.take('"') {
		return nil, false
	}
	start := r.at
	for r.at < len(r.data) {
		switch c := r.data[r.at]; {
		case c == '"':
			s := r.data[start:r.at]
			r.at++
			return s, utf8.Valid(s)
		case c == '\\' || c < 0x20:
			return nil, false
		}
		r.at++
	}
	return nil, false
}

// int reads an integer as JSON writes one: no leading zero, no fraction
// or exponent.
func (r *reader) int() (int64, bool) {
	start := r.at
	r.take('-')
	digits := r.at
	for r.at < len(r.data) && r.data[r.at] >= '0' && r.data[r.at] <= '9' {
		r.at++
	}
	if r.at == digits || r.data[digits] == '0' && r.at-digits > 1 {
		return 0, false
	}
	if r.at-digits > 18 { // may not fit: said by ParseInt
		n, err := strconv.ParseInt(string(r.data[start:r.at]), 10, 64)
		return n, err == nil
	}
	var n int64
	for _, d := range r.data[digits:r.at] {
		n = n*10 + int64(d-'0')
	}
	if r.data[start] == '-' {
		n = -n
	}
	return n, true
}

// maxDepth bounds the nesting skip follows, as encoding/json's does: the
// entry's own object is the first level.
const maxDepth = 10000

// skip goes past one value held at depth (the levels of objects and
// arrays around it), checked as json.Valid checks it, with no space
// between its parts (json.Marshal leaves none).
func (r *reader) skip(depth int) bool {
	if r.at >= len(r.data) {
		return false
	}
	switch c := r.data[r.at]; {
	case c == '"':
		return r.skipString()
	case c == '{' || c == '[':
		return depth < maxDepth && r.skipNested(depth+1)
	case c == 't':
		return r.literal("true")
	case c == 'f':
		return r.literal("false")
	case c == 'n':
		return r.literal("null")
	}
	return r.number()
}

func (r *reader) literal(word string) bool {
	if !bytes.HasPrefix(r.data[r.at:], []byte(word)) {
		return false
	}
	r.at += len(word)
	return true
}

// number goes past a number: -? (0 | [1-9][0-9]*) (.[0-9]+)? ([eE][+-]?[0-9]+)?
func (r *reader) number() bool {
	r.take('-')
	if !r.take('0') && r.digits() == 0 {
		return false
	}
	if r.take('.') && r.digits() == 0 {
		return false
	}
	if r.take('e') || r.take('E') {
		if !r.take('+') {
			r.take('-')
		}
		return r.digits() > 0
	}
	return true
}

// digits goes past the digits that come next, and counts them.
func (r *reader) digits() int {
	start := r.at
	for r.at < len(r.data) && r.data[r.at] >= '0' && r.data[r.at] <= '9' {
		r.at++
	}
	return r.at - start
}

// skipString goes past a string: its escapes JSON's, no control
// character in it.
func (r *reader) skipString() bool {
	for r.at++; r.at < len(r.data); r.at++ {
		switch c := r.data[r.at]; {
		case c == '"':
			r.at++
			return true
		case c < 0x20:
			return false
		case c == '\\':
			if !r.escape() {
				return false
			}
		}
	}
	return false
}

// escape checks the escape at r.at, leaving r.at on its last byte.
func (r *reader) escape() bool {
	if r.at+1 >= len(r.data) {
		return false
	}
	r.at++
	if bytes.IndexByte([]byte(`"\\/bfnrt`), r.data[r.at]) >= 0 {
		return true
	}
	if r.data[r.at] != 'u' || r.at+4 >= len(r.data) {
		return false
	}
	for _, h := range r.data[r.at+1 : r.at+5] {
		if !('0' <= h && h <= '9' || 'a' <= h && h <= 'f' || 'A' <= h && h <= 'F') {
			return false
		}
	}
	r.at += 4
	return true
}

// skipNested goes past an object or an array at depth: its members are a
// key and a value, or values, separated by commas.
func (r *reader) skipNested(depth int) bool {
	closing := byte('}')
	if r.data[r.at] == '[' {
		closing = ']'
	}
	r.at++
	for first := true; !r.take(closing); first = false {
		if !first && !r.take(',') {
			return false
		}
		if closing == '}' && !(r.at < len(r.data) && r.data[r.at] == '"' && r.skipString() && r.take(':')) {
			return false
		}
		if !r.skip(depth) {
			return false
		}
	}
	return true
}
