package process

import (
	"bytes"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestRingKeepsTheTail(t *testing.T) {
	tests := []struct {
		limit  int
		writes []string
		want   string
	}{
		{10, []string{"abc"}, "abc"},
		{5, []string{"abc", "defg"}, "cdefg"},
		{4, []string{"0123456789"}, "6789"},
		{3, []string{"a", "b", "c", "d", "e"}, "cde"},
		{6, []string{"<prom", "ise>", "X"}, "mise>X"},
		{1, nil, ""},
	}
	for _, tc := range tests {
		r := NewRing(tc.limit)
		total := 0
		for _, w := range tc.writes {
			r.Write([]byte(w))
			total += len(w)
		}
		if got := string(r.Bytes()); got != tc.want {
			t.Errorf("limit %d, writes %q: kept %q, want %q", tc.limit, tc.writes, got, tc.want)
		}
		if r.Total() != int64(total) || r.Dropped() != int64(total-len(tc.want)) {
			t.Errorf("limit %d: total %d dropped %d", tc.limit, r.Total(), r.Dropped())
		}
	}
}

// TestRingSignalAcrossWrites: a signal written in pieces is whole in Bytes.
func TestRingSignalAcrossWrites(t *testing.T) {
	r := NewRing(64)
	signal := "<promise>SUCCESS</promise>"
	r.Write(bytes.Repeat([]byte("x"), 100))
	for i := 0; i < len(signal); i += 5 {
		r.Write([]byte(signal[i:min(i+5, len(signal))]))
	}
	if !strings.Contains(string(r.Bytes()), signal) {
		t.Errorf("signal lost: %q", r.Bytes())
	}
}

func BenchmarkRingWrite(b *testing.B) {
	r := NewRing(10 << 20)
	chunk := bytes.Repeat([]byte("y"), 32<<10)
	b.SetBytes(int64(len(chunk)))
	for i := 0; i < b.N; i++ {
		r.Write(chunk)
	}
}

// TestRingFillKeepsTheTail: the capture, reading straight into the ring,
// keeps the same tail as writing to it, at every limit and for every size
// of write, and streams what it reads whole.
func TestRingFillKeepsTheTail(t *testing.T) {
	data := []byte(strings.Repeat("0123456789abcdefghij", 500) + "<promise>SUCCESS</promise>")
	for _, limit := range []int{1, 7, 64, 1000, 9999, len(data), len(data) + 5, 1 << 20} {
		for _, chunk := range []int{1, 3, 100, 4096} {
			var stream bytes.Buffer
			got, total, dropped := captured(t, limit, &chunkReader{data: data, chunk: chunk}, &stream)
			want := data[max(0, len(data)-limit):]
			if !bytes.Equal(got, want) {
				t.Fatalf("limit %d chunk %d: kept %d bytes, want the last %d", limit, chunk, len(got), len(want))
			}
			if total != int64(len(data)) || dropped != int64(len(data)-len(want)) || !bytes.Equal(stream.Bytes(), data) {
				t.Fatalf("limit %d chunk %d: total %d dropped %d streamed %d", limit, chunk, total, dropped, stream.Len())
			}
		}
	}
}

// captured writes what src gives (less than the pipe holds), a read of it
// at a time, into a pipe, then has a capture with a ring of limit read it,
// and returns what it kept.
func captured(t testing.TB, limit int, src io.Reader, stream io.Writer) (kept []byte, total, dropped int64) {
	r, w, err := outputPipe()
	if err != nil {
		t.Fatal(err)
	}
	c := newCapture(r, NewRing(limit), newWatchdog(0), stream)
	buf := make([]byte, 64<<10)
	for {
		n, err := src.Read(buf)
		w.Write(buf[:n])
		if err != nil {
			break
		}
	}
	w.Close()
	go c.run()
	return c.finish(time.Minute)
}

// TestRingMemoryIsBounded: 100 MB read into a 64 KiB ring leave it
// holding 64 KiB.
func TestRingMemoryIsBounded(t *testing.T) {
	r, w, err := outputPipe()
	if err != nil {
		t.Fatal(err)
	}
	ring := NewRing(64 << 10)
	c := newCapture(r, ring, newWatchdog(0), nil)
	go func() {
		io.Copy(w, io.LimitReader(zeros{}, 100<<20))
		w.Close()
	}()
	c.run()
	if cap(ring.buf) != 64<<10 || ring.Total() != 100<<20 {
		t.Errorf("capacity %d after %d bytes", cap(ring.buf), ring.Total())
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

// chunkReader returns data at most chunk bytes at a time, as a pipe does.
type chunkReader struct {
	data  []byte
	chunk int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), c.chunk)], c.data)
	c.data = c.data[n:]
	return n, nil
}

// FuzzRing: whatever is written, in whatever pieces, the ring keeps
// exactly its tail.
func FuzzRing(f *testing.F) {
	f.Add([]byte("hello <promise>SUCCESS</promise>"), 5, 3)
	f.Add([]byte{}, 1, 1)
	f.Fuzz(func(t *testing.T, data []byte, limit, chunk int) {
		limit, chunk = 1+abs(limit)%4096, 1+abs(chunk)%512
		want := data[max(0, len(data)-limit):]
		r := NewRing(limit)
		for rest := data; len(rest) > 0; rest = rest[min(chunk, len(rest)):] {
			r.Write(rest[:min(chunk, len(rest))])
		}
		if !bytes.Equal(r.Bytes(), want) {
			t.Fatalf("written, limit %d, chunk %d: kept %q, want %q", limit, chunk, r.Bytes(), want)
		}
		if kept, _, _ := captured(t, limit, &chunkReader{data: data, chunk: chunk}, nil); !bytes.Equal(kept, want) {
			t.Fatalf("captured, limit %d, chunk %d: kept %q, want %q", limit, chunk, kept, want)
		}
	})
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// TestRingOfALineTakesALine: a ring of 256 MiB holding one line takes
// its first buffer of Go's heap, not its limit, and one holding 100 KB
// at most sixteen times that.
func TestRingOfALineTakesALine(t *testing.T) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	r := NewRing(256 << 20)
	r.Write([]byte("one line\n"))
	runtime.ReadMemStats(&after)
	if grown := int64(after.HeapAlloc) - int64(before.HeapAlloc); grown > 1<<20 {
		t.Errorf("the heap grew by %d bytes for a line", grown)
	}
	if got := r.Bytes(); string(got) != "one line\n" || r.Dropped() != 0 {
		t.Errorf("kept %q, dropped %d", got, r.Dropped())
	}
	r = NewRing(256 << 20)
	r.Write(make([]byte, 100_000))
	if held := cap(r.Bytes()); held > 16*100_000 {
		t.Errorf("100 KB held in %d bytes", held)
	}
}

// TestRingWrittenAfterBytesPanics: the bytes Bytes handed out are the
// ring's own, so writing to it after is a bug, not a silent change.
func TestRingWrittenAfterBytesPanics(t *testing.T) {
	r := NewRing(8)
	r.Write([]byte("0123456789"))
	kept := string(r.Bytes())
	defer func() {
		if recover() == nil {
			t.Error("a write after Bytes went through")
		}
		if kept != "23456789" {
			t.Errorf("kept %q", kept)
		}
	}()
	r.Write([]byte("x"))
}

// TestBytesHandsOutTheRing: a full ring of 8 MiB, wrapped, hands out
// what it kept in order without copying it out: Bytes allocates less
// than a tenth of it.
func TestBytesHandsOutTheRing(t *testing.T) {
	const limit = 8 << 20
	data := make([]byte, limit*2+limit/3)
	for i := range data {
		data[i] = byte(i % 251)
	}
	r := NewRing(limit)
	for rest := data; len(rest) > 0; rest = rest[min(len(rest), 100_000):] {
		r.Write(rest[:min(len(rest), 100_000)])
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	kept := r.Bytes()
	runtime.ReadMemStats(&after)
	if !bytes.Equal(kept, data[len(data)-limit:]) {
		t.Fatal("kept other bytes than the last 8 MiB, in order")
	}
	if allocated := after.TotalAlloc - before.TotalAlloc; allocated > limit/10 {
		t.Errorf("Bytes allocated %d bytes", allocated)
	}
}

// TestRotate: rotate turns a buffer in place at every kind of point:
// either side within the 64 KiB it carries across, or both beyond it,
// taking several swaps.
func TestRotate(t *testing.T) {
	const n = 300 << 10
	for _, k := range []int{0, 1, 17, 64 << 10, 64<<10 + 1, 100_000, n / 2, 200_000, n - 64<<10 - 1, n - 64<<10, n - 1, n} {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(i % 251)
		}
		want := append(append([]byte(nil), b[k:]...), b[:k]...)
		rotate(b, k)
		if !bytes.Equal(b, want) {
			t.Errorf("rotated by %d: wrong bytes", k)
		}
	}
}
