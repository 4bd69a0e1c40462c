package shown

import (
	"io"
	"unicode/utf8"
)

// TextWriter writes what is written to it to W as Text would: a file
// streamed to a terminal, however large, without a byte of it obeyed. A
// character cut between two writes is held until the next; Flush
// writes what is held at the end.
type TextWriter struct {
	W    io.Writer
	held []byte
}

// Write writes p, made safe, to W; it reports p written whole.
func (t *TextWriter) Write(p []byte) (int, error) {
	data := append(t.held, p...)
	whole := len(data) - incomplete(data)
	t.held = append([]byte(nil), data[whole:]...)
	if _, err := io.WriteString(t.W, Text(string(data[:whole]))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes what a last write left held: bytes that never became a
// character, escaped.
func (t *TextWriter) Flush() error {
	held := t.held
	t.held = nil
	_, err := io.WriteString(t.W, Text(string(held)))
	return err
}

// incomplete is how many bytes at the end of data begin a character that
// the next bytes may finish: at most three.
func incomplete(data []byte) int {
	for n := 1; n <= min(3, len(data)); n++ {
		b := data[len(data)-n]
		if utf8.RuneStart(b) {
			if b >= 0xc0 && !utf8.FullRune(data[len(data)-n:]) {
				return n
			}
			return 0
		}
	}
	return 0
}
