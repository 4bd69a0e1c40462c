package process

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// numbered is n bytes of numbered lines: any byte out of place shows.
func numbered(n int) []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "line %07d\n", i)
	}
	return b.Bytes()[:n]
}

// takeAll takes src into s until its end, waiting a little whenever src
// is empty.
func takeAll(t *testing.T, s *pipeStore, src *os.File) {
	t.Helper()
	for {
		_, err := s.take(int(src.Fd()))
		switch err {
		case nil:
		case unix.EAGAIN:
			time.Sleep(50 * time.Microsecond)
		case io.EOF:
			return
		default:
			t.Fatal(err)
		}
	}
}

// noStorePipe is why a test of the store cannot run here.
const noStorePipe = "SKIPPED: no pipe of 1 MiB here (fs.pipe-max-size, pipe-user-pages-soft)"

// storeOn is a store keeping limit bytes, and an agent's pipe to take
// from, closed when the test ends (a test may close w before).
func storeOn(t *testing.T, limit int) (s *pipeStore, r, w *os.File) {
	t.Helper()
	r, w, err := outputPipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		r.Close()
		w.Close()
	})
	if s = newPipeStore(limit); s == nil {
		t.Skip(noStorePipe)
	}
	return s, r, w
}

// leaveStoreRoom has the stores' budget leave room for room bytes of
// pipes until the test ends.
func leaveStoreRoom(t *testing.T, room int64) {
	taken := storeBudget() - room - storeInUse.Load()
	storeInUse.Add(taken)
	t.Cleanup(func() { storeInUse.Add(-taken) })
}

// TestStoreKeepsTheLastLimitBytes: a flood five times the limit is kept
// to its last limit bytes exactly, in order; the pipes that held older
// bytes are emptied and used again; and the store gives back all the
// pipe memory it took.
func TestStoreKeepsTheLastLimitBytes(t *testing.T) {
	inUse := storeInUse.Load()
	const limit = 1 << 20
	s, r, w := storeOn(t, limit)
	data := numbered(5 * limit)
	go func() {
		for b := data; len(b) > 0; b = b[min(len(b), 64<<10):] {
			w.Write(b[:min(len(b), 64<<10)])
		}
		w.Close()
	}()
	takeAll(t, s, r)
	if s.made > 3 {
		t.Errorf("the store made %d pipes of 1 MiB to keep 1 MiB", s.made)
	}
	total := s.total
	kept := s.kept()
	if !bytes.Equal(kept, data[len(data)-limit:]) || total != int64(len(data)) {
		t.Errorf("kept %d bytes (the last %d: %t) of %d taken, want the last %d of %d", len(kept), limit, bytes.Equal(kept, data[len(data)-limit:]), total, limit, len(data))
	}
	if now := storeInUse.Load(); now != inUse {
		t.Errorf("the store holds %d bytes of pipe memory after it was read out", now-inUse)
	}
}

// TestStoreFillsPagesWithSmallPieces: an agent printing a little at a
// time, each piece taken before the next comes, would fill a pipe slot, a
// page, with each piece if it were spliced: the store reads such pieces
// and writes them into its last page. A thousand pieces of 16 bytes take
// one pipe, not four, and come out whole and in order.
func TestStoreFillsPagesWithSmallPieces(t *testing.T) {
	s, r, w := storeOn(t, 1<<20)
	var want bytes.Buffer
	for i := range 1000 {
		piece := fmt.Sprintf("piece %09d\n", i)
		want.WriteString(piece)
		w.WriteString(piece)
		if n, err := s.take(int(r.Fd())); n != len(piece) || err != nil {
			t.Fatalf("piece %d: took %d bytes (%v), want %d", i, n, err, len(piece))
		}
	}
	w.Close()
	takeAll(t, s, r)
	if s.made != 1 {
		t.Errorf("%d pieces of 16 bytes took %d pipes", 1000, s.made)
	}
	if kept := s.kept(); !bytes.Equal(kept, want.Bytes()) {
		t.Errorf("kept %d bytes, want the %d written, in order", len(kept), want.Len())
	}
}

// TestStoreIntoTheRing: a store handing what it has over to a ring (it
// can take no more) gives it the bytes it keeps, those it took but had
// no room for, and the count of all it took, the dropped ones included.
func TestStoreIntoTheRing(t *testing.T) {
	const limit = 1 << 20
	s, r, w := storeOn(t, limit)
	data := numbered(3*limit + 100)
	var taken int
	var err error
	for b := data; len(b) > 100; b = b[64<<10:] {
		w.Write(b[:64<<10])
		for n := 0; n < 64<<10; n += taken {
			if taken, err = s.take(int(r.Fd())); err != nil {
				t.Fatal(err)
			}
		}
	}
	// The last 100 bytes are read, then refused: unstored.
	s.unstored = append([]byte(nil), data[len(data)-100:]...)
	s.total += 100
	ring := NewRing(limit)
	s.into(ring)
	if got := ring.Bytes(); !bytes.Equal(got, data[len(data)-limit:]) || ring.Total() != int64(len(data)) {
		t.Errorf("the ring has %d bytes (the last %d: %t) of %d written, want the last %d of %d", len(got), limit, bytes.Equal(got, data[len(data)-limit:]), ring.Total(), limit, len(data))
	}
}

// TestStoreRefusedMidPiece: a little output read when the store's last
// pipe has room for part of it, and it can have no other pipe, is not
// lost: the part written stays in the pipe, the rest is handed over with
// what the store kept.
func TestStoreRefusedMidPiece(t *testing.T) {
	leaveStoreRoom(t, storePipeSize) // one pipe
	s, r, w := storeOn(t, 2<<20)
	const page = 4096
	data := numbered(storePipeSize + page)
	// Whole pages fill all but one slot of the store's one pipe, spliced.
	head := storePipeSize - page
	if n, err := w.Write(data[:head]); n != head || err != nil {
		t.Fatal(n, err)
	}
	if n, err := s.take(int(r.Fd())); n != head || err != nil {
		t.Fatalf("took %d bytes (%v) of %d", n, err, head)
	}
	// Two pages read: one fits, the other the store has no room for.
	w.Write(data[head:])
	if n, err := s.take(int(r.Fd())); n != 2*page || err != errStoreRefused || len(s.unstored) != page {
		t.Fatalf("took %d bytes (%v), %d unstored; want %d taken, the store refused, %d unstored", n, err, len(s.unstored), 2*page, page)
	}
	ring := NewRing(2 << 20)
	s.into(ring)
	if got := ring.Bytes(); !bytes.Equal(got, data) || ring.Total() != int64(len(data)) {
		t.Errorf("the ring has %d bytes (all: %t), total %d, want all %d", len(got), bytes.Equal(got, data), ring.Total(), len(data))
	}
}

// TestStoreRefusedHoldingMore: a store refused a pipe after pieces that
// each fill a little over half a page may hold more than a pipe beyond
// its limit; what it hands over is still its last limit bytes, read into
// the memory prepared for the limit (a reviewer's case, which had
// overrun that memory).
func TestStoreRefusedHoldingMore(t *testing.T) {
	leaveStoreRoom(t, 3*storePipeSize)
	const limit = 3 << 19
	s, r, w := storeOn(t, limit)
	var data []byte
	put := func(b []byte) error {
		data = append(data, b...)
		w.Write(b)
		for n := 0; n < len(b); {
			taken, err := s.take(int(r.Fd()))
			if err != nil {
				return err
			}
			n += taken
		}
		return nil
	}
	for range 2 {
		if err := put(numbered(storePipeSize)); err != nil {
			t.Fatal(err)
		}
	}
	line := append(bytes.Repeat([]byte("x"), 2048), '\n')
	for range 255 {
		if err := put(line); err != nil {
			t.Fatal(err)
		}
	}
	if err := put(numbered(10192)); err != errStoreRefused {
		t.Fatalf("the store, its pipes full, took a piece: %v", err)
	}
	ring := NewRing(limit)
	s.into(ring)
	if got := ring.Bytes(); !bytes.Equal(got, data[len(data)-limit:]) || ring.Total() != int64(len(data)) {
		t.Errorf("the ring has %d bytes (the last %d: %t) of %d, want the last %d of %d", len(got), limit, bytes.Equal(got, data[len(data)-limit:]), ring.Total(), limit, len(data))
	}
}

// TestStoreRefusedGoesOnInTheRing: when the store can take no more pipes
// (the pipe memory of rooda's stores is spent, or the kernel refuses a
// pipe of 1 MiB), what it kept goes into the ring and the capture goes on
// reading: the output is kept as a ring keeps it, whole.
func TestStoreRefusedGoesOnInTheRing(t *testing.T) {
	// Room for two pipes: the third, for a limit of 1.5 MiB, is refused.
	const room = 2 * storePipeSize
	leaveStoreRoom(t, room)
	r, w, err := outputPipe()
	if err != nil {
		t.Fatal(err)
	}
	const limit = 3 << 19
	c := newCapture(r, NewRing(limit), newWatchdog(0), nil)
	if c.store() == nil {
		t.Skip(noStorePipe)
	}
	go c.run()
	// A little more than the store held: most of what is kept comes from
	// the store, handed over.
	data := numbered(2<<20 + 100<<10)
	w.Write(data)
	w.Close()
	kept, total, dropped := c.finish(5 * time.Second)
	if c.store() != nil {
		t.Error("a store refused its third pipe, and the capture went on splicing")
	}
	if !bytes.Equal(kept, data[len(data)-limit:]) || total != int64(len(data)) || dropped != int64(len(data)-limit) {
		t.Errorf("kept %d bytes (the last %d: %t), total %d, dropped %d; want the last %d of %d", len(kept), limit, bytes.Equal(kept, data[len(data)-limit:]), total, dropped, limit, len(data))
	}
	if now := storeInUse.Load(); now != storeBudget()-room {
		t.Errorf("the refused store left %d bytes of pipe memory taken", now-(storeBudget()-room))
	}
}

// TestGivenUpSpliceEndsAtOnce: a writer rooda cannot stop keeps the pipe
// open, silent. finish gives up after drainTime of silence and returns
// all that was kept, the oldest bytes included (nothing is under way to
// overwrite them), and the capture ends at once, woken: unlike a read,
// which must wait for that writer's next bytes or its end.
func TestGivenUpSpliceEndsAtOnce(t *testing.T) {
	r, w, err := outputPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	const limit = 1 << 20
	c := newCapture(r, NewRing(limit), newWatchdog(0), nil)
	if c.store() == nil {
		t.Skip(noStorePipe)
	}
	go c.run()
	data := numbered(3 * limit / 2)
	w.Write(data)
	kept, total, dropped := c.finish(5 * time.Second)
	if !bytes.Equal(kept, data[len(data)-limit:]) || total != int64(len(data)) || dropped != int64(len(data)-limit) {
		t.Errorf("kept %d bytes (the last %d: %t), total %d, dropped %d; want the last %d of %d", len(kept), limit, bytes.Equal(kept, data[len(data)-limit:]), total, dropped, limit, len(data))
	}
	select {
	case <-c.done:
	case <-time.After(5 * time.Second):
		t.Fatal("the capture given up on still waits for the writer")
	}
}

// TestStreamedOutputIsRead: the store serves only output that is not
// streamed, which must be read to be shown, and only a limit large
// enough to need it.
func TestStreamedOutputIsRead(t *testing.T) {
	for _, tc := range []struct {
		limit  int
		stream io.Writer
		store  bool
	}{{1 << 20, nil, true}, {1 << 20, io.Discard, false}, {storeFrom - 1, nil, false}} {
		r, w, err := outputPipe()
		if err != nil {
			t.Fatal(err)
		}
		c := newCapture(r, NewRing(tc.limit), newWatchdog(0), tc.stream)
		if got := c.store() != nil; got != tc.store && !(tc.store && pipeCapacity(r) < storePipeSize) {
			t.Errorf("limit %d, streamed %t: spliced %t, want %t", tc.limit, tc.stream != nil, got, tc.store)
		}
		go c.run()
		w.Close()
		c.finish(time.Second)
	}
}
