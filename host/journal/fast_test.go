package journal

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"reflect"
	"strings"
	"testing"
)

// fastSamples are entries as the journal holds them: a real iteration's
// result, escapes, numbers of every form, nesting, and empty fields.
func fastSamples() []Entry {
	return append(sample(),
		Entry{Kind: Call, Key: Key{"main", 1}, Op: "procedure", What: "build", Result: json.RawMessage(`["AI Command: fake \"quoted\" \\ <tag> \u00e9","Max: 5"]`), At: 1795897500582},
		Entry{Kind: Ended, Key: Key{"main/3.2", 7}, N: 12, Record: 4990, Result: json.RawMessage(`{"agent":"fake","Result":{"Output":null,"Total":5,"ExitCode":-1,"Duration":4.5e6,"Escaped":[],"Ok":true,"No":false},"cost":0.125,"deep":[[[{"a":[1,-0.5E-3]}]]]}`)},
		Entry{Kind: Void, Key: Key{"main", 3}, Pos: "a b.star:9", What: "naïve ✓"},
		Entry{Kind: Resumed},
		Entry{Kind: Call, What: "<script>&amp;", Result: json.RawMessage(`null`)},
	)
}

// TestFastEntryReadsWhatLineWrites: each entry as Line writes it reads
// back by the fast path as json.Unmarshal reads it, and the fast path
// is taken for all but those with escapes in their own strings.
func TestFastEntryReadsWhatLineWrites(t *testing.T) {
	for _, e := range fastSamples() {
		line, err := Line(e)
		if err != nil {
			t.Fatal(err)
		}
		data := bytes.TrimSuffix(line[9:], []byte("\n"))
		got, ok := fastEntry(data)
		var want Entry
		if err := json.Unmarshal(data, &want); err != nil {
			t.Fatal(err)
		}
		escaped := strings.ContainsAny(e.Kind+e.Thread+e.Op+e.Pos+e.What, "<>&\"\\")
		if ok == escaped {
			t.Errorf("fast path taken %v for %s", ok, data)
		}
		if ok && !reflect.DeepEqual(got, want) {
			t.Errorf("fast path read %+v, json %+v", got, want)
		}
	}
}

// TestFastEntryLeavesTheRest: what is not exactly a line Line writes is
// left to json.Unmarshal.
func TestFastEntryLeavesTheRest(t *testing.T) {
	for _, data := range []string{
		`{"k": "call"}`, `{"k":"call",}`, `{"k":"call"} `, `{"k":"call","x":1}`, `{"k":"call","s":01}`, `{"k":"call","s":1.0}`,
		`{"k":"call","s":99999999999999999999}`, `{"k":"c\u0061ll"}`, "{\"k\":\"\xff\"}", `{"k":"call","res":tru}`,
		`{"k":"call","res":{"a":1,}}`, `{"k":"call","res":[1 2]}`, `{"k":"call","res":"\x"}`, `{"k":"call","res":"\u12"}`,
		`{"k":"call","res":01}`, `{"k":"call","res":1.}`, `{"k":"call","res":1e}`, "{\"k\":\"call\",\"res\":\"a\tb\"}", `{"k":"call","res":{"a"}}`,
	} {
		if e, ok := fastEntry([]byte(data)); ok {
			t.Errorf("read %s as %+v", data, e)
		}
	}
}

// TestFastEntryNestsAsJSON: a result nested to encoding/json's limit is
// read, one level more is not, as json.Valid has it.
func TestFastEntryNestsAsJSON(t *testing.T) {
	for _, depth := range []int{9998, 9999, 10000} {
		data := []byte(`{"k":"call","res":` + strings.Repeat("[", depth) + strings.Repeat("]", depth) + `}`)
		if _, ok := fastEntry(data); ok != json.Valid(data) {
			t.Errorf("a result %d deep: read %v, json.Valid %v", depth, ok, json.Valid(data))
		}
	}
}

// TestParseAfterAFastPathThatGaveUp: a line the fast path gave up on
// part-way is read by encoding/json afresh, whatever the fast path had
// read of it, and leaves the lines after it as they were.
func TestParseAfterAFastPathThatGaveUp(t *testing.T) {
	var journal []byte
	for _, body := range []string{`{"k":"ended","res":"aaaaaaaaaaaaaaaa","res":[2], "s":1}`, `{"k":"call","s":2,"res":{"x":1}}`} {
		journal = append(journal, fmt.Sprintf("%08x %s\n", crc32.Checksum([]byte(body), table()), body)...)
	}
	entries, good := Parse(journal)
	if good != int64(len(journal)) || len(entries) != 2 || string(entries[0].Result) != "[2]" || string(entries[1].Result) != `{"x":1}` {
		t.Fatalf("read %d of %d bytes: %+v", good, len(journal), entries)
	}
}

// FuzzFastEntry: whatever the fast path reads, json.Unmarshal reads the
// same.
func FuzzFastEntry(f *testing.F) {
	for _, e := range fastSamples() {
		line, _ := Line(e)
		f.Add(bytes.TrimSuffix(line[9:], []byte("\n")))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, ok := fastEntry(data)
		if !ok {
			return
		}
		var want Entry
		if err := json.Unmarshal(data, &want); err != nil {
			t.Fatalf("fast path read %q, which json refuses: %v", data, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("fast path read %+v, json %+v", got, want)
		}
	})
}

// TestAResultLeavesTheJournalAlone: a result Parse gives is the
// journal's bytes, yet what is appended to one writes neither the
// journal nor the next entry's result.
func TestAResultLeavesTheJournalAlone(t *testing.T) {
	var journal []byte
	for _, res := range []string{"[1]", "[2]"} {
		line, err := Line(Entry{Kind: Call, Key: Key{"main", 1}, Result: json.RawMessage(res)})
		if err != nil {
			t.Fatal(err)
		}
		journal = append(journal, line...)
	}
	before := bytes.Clone(journal)
	entries, _ := Parse(journal)
	if len(entries) != 2 {
		t.Fatalf("entries: %+v", entries)
	}
	_ = append(entries[0].Result, "XXXXXXXXXXXXXXXXXXXX"...)
	if !bytes.Equal(journal, before) || string(entries[1].Result) != "[2]" {
		t.Fatalf("the journal became %q, the next result %q", journal, entries[1].Result)
	}
}
