package journal

import (
	"encoding/json"
	"testing"
)

// longJournal is the journal of a loop of n iterations, each ended as a
// YAML procedure's iteration ends (its result as rooda writes one).
func longJournal(b *testing.B, n int) []byte {
	result := json.RawMessage(`{"agent":"fake","Result":{"Output":null,"Total":5,"Dropped":0,"ExitCode":0,"Signal":"","TimedOut":false,"Idle":false,"Interrupted":false,"Stopped":false,"Killed":false,"Abandoned":false,"Duration":2927630,"PID":5067,"Escaped":null,"EscapedSurvived":false,"Contained":true},"changes":{"InRepo":false,"HeadBefore":"","HeadAfter":"","Files":null},"duration":3166806,"elapsed":7124658,"no_promise_tag":true,"prompt_sha256":"49ec1aa94e303294c4cc86c9de06c157266f67af048ffc8a4a70bd1b4967e787","output_sha256":"d117fa006ba9208500b2930ce69cbde436c647afa917cb7396a9bc9111a46dd2"}`)
	var data []byte
	add := func(e Entry) {
		line, err := Line(e)
		if err != nil {
			b.Fatal(err)
		}
		data = append(data, line...)
	}
	add(Entry{Kind: Call, Key: Key{"main", 1}, Op: "procedure", What: "build", Result: json.RawMessage(`["AI Command: fake","Max Iterations: 5000"]`), At: 1795950045098})
	for i := 1; i <= n; i++ {
		add(Entry{Kind: Began, Key: Key{"main", 1}, N: i, Record: i, At: 1795950045104})
		add(Entry{Kind: Ended, Key: Key{"main", 1}, N: i, Record: i, Result: result, At: 1795950045108})
	}
	return data
}

// BenchmarkParse reads back the journal of a 5,000-iteration loop, as a
// resume of it does before its first agent.
//
//	go test ./host/journal -run '^$' -bench Parse -benchmem
func BenchmarkParse(b *testing.B) {
	data := longJournal(b, 5000)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if entries, good := Parse(data); good != int64(len(data)) || len(entries) != 10001 {
			b.Fatalf("%d entries, %d of %d bytes", len(entries), good, len(data))
		}
	}
}

// BenchmarkNewBook indexes the entries of a 5,000-iteration loop's
// journal, as a resume does once it has read them.
func BenchmarkNewBook(b *testing.B) {
	entries, _ := Parse(longJournal(b, 5000))
	for b.Loop() {
		if book := NewBook(entries); book.Records() != 5000 {
			b.Fatal(book.Records())
		}
	}
}
