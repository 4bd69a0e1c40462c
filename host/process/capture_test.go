package process

import (
	"bytes"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"rooda/internal/syncbuf"
)

// TestGivenUpReadLosesNothingKept: a writer that rooda cannot stop keeps
// the pipe open, silent; finish gives the read up after drainTime of
// silence and returns what was kept, all but the oldest eighth the read
// still under way may overwrite. That read ends at once (on Linux, where
// rooda wakes it), holding neither the ring nor a thread until the
// writer writes; what the writer prints later changes none of what was
// kept, and is not streamed: the stream's owner has it back.
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
	if runtime.GOOS == "linux" {
		select {
		case <-c.done:
		case <-time.After(5 * time.Second):
			t.Fatal("the read given up on still waits for the silent writer")
		}
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

// TestFloodEveryByteOnce: an agent printing in small pieces as fast as
// it can, many reads' worth, is captured whole, in order, and streamed
// whole where it is shown; past the limit, the newest bytes are kept.
func TestFloodEveryByteOnce(t *testing.T) {
	const lines = 30000
	var want strings.Builder
	for i := range lines {
		want.WriteString("line " + strconv.Itoa(i) + "\n")
	}
	agent := sh(`i=0; while [ $i -lt ` + strconv.Itoa(lines) + ` ]; do echo "line $i"; i=$((i+1)); done`)
	for _, limit := range []int{1 << 20, 64 << 10} {
		for _, shown := range []bool{false, true} {
			var stream bytes.Buffer
			c := Command{Argv: agent, MaxOutput: limit}
			if shown {
				c.Stream = &stream
			}
			res := run(t, c)
			kept := want.String()[max(0, want.Len()-limit):]
			if string(res.Output) != kept || res.Total != int64(want.Len()) || res.Dropped != int64(want.Len()-len(kept)) {
				t.Errorf("limit %d, shown %t: kept %d bytes (the newest %d: %t), total %d, dropped %d; printed %d", limit, shown, len(res.Output), len(kept), string(res.Output) == kept, res.Total, res.Dropped, want.Len())
			}
			if shown && stream.String() != want.String() {
				t.Errorf("limit %d: streamed %d bytes, want %d", limit, stream.Len(), want.Len())
			}
		}
	}
}
