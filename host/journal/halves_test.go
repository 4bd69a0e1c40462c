package journal

import (
	"bytes"
	"encoding/json"
	"runtime"
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
		want, wantGood := parse(nil, damaged)
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

// TestADamagedJournalIsNotMadeEntriesAhead: a journal of empty lines (no
// journal rooda wrote) is read to its first line, without an entry made
// ahead for each of its lines.
func TestADamagedJournalIsNotMadeEntriesAhead(t *testing.T) {
	data := bytes.Repeat([]byte("\n"), 4<<20)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	entries, good := Parse(data)
	runtime.ReadMemStats(&after)
	if len(entries) != 0 || good != 0 {
		t.Fatalf("%d entries, %d bytes read", len(entries), good)
	}
	if made := after.TotalAlloc - before.TotalAlloc; made > uint64(len(data)) {
		t.Errorf("reading 4 MiB of empty lines made %d bytes", made)
	}
}
