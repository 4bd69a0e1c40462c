// Package syncbuf is a buffer that one goroutine writes while another
// reads it, for tests: a log or a terminal's bytes read as a run goes on.
package syncbuf

import (
	"bytes"
	"sync"
)

// Buffer is a bytes.Buffer whose writes and reads take a lock.
type Buffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String is what was written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
