package agent

import (
	"bytes"
	"strings"
	"testing"
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
