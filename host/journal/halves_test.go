package journal

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestParseInHalves: a journal long enough to be read in two halves
// reads as it does in one piece: whole, to its end; damaged in its first
// half, to the damage, nothing of the second half taken; damaged in its
// second half, to the damage there.
func TestParseInHalves(t *testing.T) {
	var data []byte
	res, _ := json.Marshal(map[string]string{"output": string(bytes.Repeat([]byte("x"), 200))})
	for n := 1; len(data) < 2*parseInHalves; n++ {
		line, err := Line(Entry{Kind: Ended, Key: Key{Thread: "main", Seq: 1}, N: n, Record: n, Result: res, At: int64(n)})
		if err != nil {
			t.Fatal(err)
		}
		data = append(data, line...)
	}
	lines := bytes.Count(data, []byte("\n"))
	for _, at := range []int{-1, len(data) / 4, len(data) * 3 / 4} {
		damaged := bytes.Clone(data)
		if at >= 0 {
			damaged[at] ^= 1
		}
		entries, good := Parse(damaged)
		want := make([]Entry, lines)
		n, wantGood := parse(want, damaged)
		want = want[:n]
		if len(entries) != len(want) || good != wantGood || at < 0 && len(entries) != lines || at >= 0 && len(entries) >= lines {
			t.Errorf("damaged at %d: %d entries, %d bytes; in one piece %d, %d (of %d lines)", at, len(entries), good, len(want), wantGood, lines)
			continue
		}
		for i := range entries {
			if entries[i].N != want[i].N || !bytes.Equal(entries[i].Result, want[i].Result) {
				t.Fatalf("damaged at %d: entry %d is %+v, in one piece %+v", at, i, entries[i], want[i])
			}
		}
	}
}
