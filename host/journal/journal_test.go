package journal

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func sample() []Entry {
	return []Entry{
		{Kind: Call, Key: Key{"main", 1}, Op: "getenv", Pos: "main.star:1", What: "HOME", Result: json.RawMessage(`"/root"`)},
		{Kind: Began, Key: Key{"main", 2}, N: 1, Record: 1},
		{Kind: Ended, Key: Key{"main", 2}, N: 1, Record: 1, Result: json.RawMessage(`{"exit_code":0}`)},
	}
}

// TestAppendThenRead: what Append wrote reads back whole, in order, and
// a journal opened again appends after it.
func TestAppendThenRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), Name)
	w, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	want := sample()
	for i, e := range want[:2] {
		if err := w.Append(e, i == 1); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	if w, err = Open(path); err != nil {
		t.Fatal(err)
	}
	w.Append(want[2], true)
	w.Close()
	got, _, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("read back:\n%+v\nwant:\n%+v", got, want)
	}
}

// TestCutAtAnyByte: a journal cut at any byte reads to its last whole
// entry, never a part of one, and Open cuts the torn tail off so that
// the next entry starts a line of its own.
func TestCutAtAnyByte(t *testing.T) {
	var whole []byte
	var ends []int
	for _, e := range sample() {
		line, err := Line(e)
		if err != nil {
			t.Fatal(err)
		}
		whole = append(whole, line...)
		ends = append(ends, len(whole))
	}
	for cut := 0; cut <= len(whole); cut++ {
		wantN := 0
		for wantN < len(ends) && ends[wantN] <= cut {
			wantN++
		}
		got, good := Parse(whole[:cut])
		if len(got) != wantN || (wantN > 0 && !reflect.DeepEqual(got, sample()[:wantN])) {
			t.Fatalf("cut at %d: read %d entries, want %d", cut, len(got), wantN)
		}
		path := filepath.Join(t.TempDir(), Name)
		os.WriteFile(path, whole[:cut], 0o644)
		w, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		w.Append(sample()[0], false)
		w.Close()
		after, _, _ := Read(path)
		if len(after) != wantN+1 {
			t.Fatalf("cut at %d (good %d): after an append, %d entries, want %d", cut, good, len(after), wantN+1)
		}
	}
}

// TestDamagedLineEndsTheReading: a line whose bytes changed (a block a
// power loss left as zeros, or another's) is not taken, nor anything
// after it, even a line that would read.
func TestDamagedLineEndsTheReading(t *testing.T) {
	var whole []byte
	for _, e := range sample() {
		line, _ := Line(e)
		whole = append(whole, line...)
	}
	first := bytes.IndexByte(whole, '\n') + 1
	for i := first; i < len(whole); i++ {
		if whole[i] == '\n' {
			continue
		}
		damaged := bytes.Clone(whole)
		damaged[i] ^= 0x01
		got, _ := Parse(damaged)
		if len(got) > 1 && i < first+bytes.IndexByte(whole[first:], '\n') {
			t.Fatalf("byte %d of entry 2 changed: read %d entries, want 1", i, len(got))
		}
		for j, e := range got {
			if !reflect.DeepEqual(e, sample()[j]) {
				t.Fatalf("byte %d changed: entry %d misread as %+v", i, j+1, e)
			}
		}
	}
	zeros := append(bytes.Clone(whole[:first]), make([]byte, 40)...)
	zeros = append(zeros, whole[first:]...)
	if got, _ := Parse(zeros); len(got) != 1 {
		t.Fatalf("zeros after entry 1: read %d entries, want 1", len(got))
	}
}

// FuzzParse: whatever the bytes, Parse never fails, and the entries it
// reads are exactly those of the lines it says are good.
func FuzzParse(f *testing.F) {
	for _, e := range sample() {
		line, _ := Line(e)
		f.Add(line)
	}
	f.Add([]byte("00000000 {}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, good := Parse(data)
		if good > int64(len(data)) || (good > 0 && data[good-1] != '\n') {
			t.Fatalf("good %d of %d bytes", good, len(data))
		}
		var again []byte
		for _, e := range entries {
			line, err := Line(e)
			if err != nil {
				t.Fatal(err)
			}
			again = append(again, line...)
		}
		if reread, _ := Parse(again); len(reread) != len(entries) {
			t.Fatalf("%d entries written again read as %d", len(entries), len(reread))
		}
	})
}
