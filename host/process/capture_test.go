package process

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
	"time"

	"rooda/internal/syncbuf"
)

// TestGivenUpReadLosesNothingKept: a writer that rooda cannot stop keeps
// the pipe open, silent; finish gives the read up after drainTime of
// silence and returns what was kept, all but the oldest eighth the read
// still under way may overwrite, and what that writer prints later changes
// none of it, and is not streamed: the stream's owner has it back.
func TestGivenUpReadLosesNothingKept(t *testing.T) {
	r, w, err := outputPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	var stream syncbuf.Buffer
	c := newCapture(r, NewRing(1024), newWatchdog(0), &stream)
	go c.run()
	data := make([]byte, 4096)
	for i := range data {
		data[i] = byte('a' + i%26)
	}
	w.Write(data)
	kept, total, dropped := c.finish(5 * time.Second)
	want := data[len(data)-1024+1024/8:]
	if !bytes.Equal(kept, want) || total != 4096 || dropped != 4096-int64(len(want)) {
		t.Fatalf("kept %d bytes (%t), total %d, dropped %d; want the last %d", len(kept), bytes.Equal(kept, want), total, dropped, len(want))
	}
	w.Write(bytes.Repeat([]byte("X"), 4096))
	select {
	case <-c.done:
	case <-time.After(5 * time.Second):
		t.Fatal("the reader given up on did not end with the write after it")
	}
	if !bytes.Equal(kept, want) {
		t.Errorf("the output changed after finish returned it: %q", kept)
	}
	if got := stream.String(); got != string(data) {
		t.Errorf("streamed %d bytes, %d of them after finish gave up", len(got), len(got)-len(data))
	}
}

// TestStreamedFloodEveryByteOnce: an agent printing in small pieces as
// fast as it can, read with pauses to gather them, is captured and
// streamed whole, in order.
func TestStreamedFloodEveryByteOnce(t *testing.T) {
	var stream bytes.Buffer
	res := run(t, Command{Argv: sh(`i=0; while [ $i -lt 3000 ]; do echo "line $i"; i=$((i+1)); done`), Stream: &stream, MaxOutput: 1 << 20})
	var want strings.Builder
	for i := range 3000 {
		want.WriteString("line " + strconv.Itoa(i) + "\n")
	}
	if string(res.Output) != want.String() || stream.String() != want.String() {
		t.Errorf("kept %d bytes, streamed %d, want %d", len(res.Output), stream.Len(), want.Len())
	}
}
