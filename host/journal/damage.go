package journal

import "bytes"

// Damage is where a journal's reading stopped short of its end, when
// what follows is more than a torn last line: Line (from 1) is the first
// line that is not a whole entry, and After the whole entries on the
// lines after it. A crash tears only the last line, and the next writer
// cuts it off before it appends; whole entries after a bad line mean
// the journal was damaged (a byte changed, a block lost), and reading
// to the bad line would lose them.
type Damage struct {
	Line  int
	After []Entry
}

// Damaged reads data past its last whole entry: the first bad line, and
// the whole entries after it. ok is false when data ends with its whole
// entries or with one torn line (what a crash leaves).
func Damaged(data []byte) (d Damage, ok bool) {
	_, good := Parse(data)
	return DamagedAfter(data, good)
}

// DamagedAfter is Damaged for data already parsed: its whole entries take
// good bytes (Parse).
func DamagedAfter(data []byte, good int64) (d Damage, ok bool) {
	d.Line = bytes.Count(data[:good], []byte("\n")) + 1
	rest := data[good:]
	end := bytes.IndexByte(rest, '\n')
	if end < 0 {
		return d, false // nothing, or a torn last line
	}
	for _, line := range bytes.Split(rest[end+1:], []byte("\n")) {
		if e, whole := parseLine(line); whole {
			d.After = append(d.After, e)
		}
	}
	// A bad line with a newline after it is damage even with nothing
	// whole after it: a write is a whole line, so a crash cannot leave
	// a newline after a line cut short.
	return d, true
}
