package runlog

import (
	"encoding/json"
	"testing"

	"rooda/host/journal"
)

// BenchmarkDecodeEnded decodes a YAML procedure's iteration end, as a
// resume does for each iteration it replays.
func BenchmarkDecodeEnded(b *testing.B) {
	data := []byte(`{"agent":"fake","Result":{"Output":null,"Total":5,"Dropped":0,"ExitCode":0,"Signal":"","TimedOut":false,"Idle":false,"Interrupted":false,"Stopped":false,"Killed":false,"Abandoned":false,"Duration":2927630,"PID":5067,"Escaped":null,"EscapedSurvived":false,"Contained":true},"changes":{"InRepo":false,"HeadBefore":"","HeadAfter":"","Files":null},"duration":3166806,"elapsed":7124658,"no_promise_tag":true,"prompt_sha256":"49ec1aa94e303294c4cc86c9de06c157266f67af048ffc8a4a70bd1b4967e787","output_sha256":"d117fa006ba9208500b2930ce69cbde436c647afa917cb7396a9bc9111a46dd2"}`)
	for _, decode := range []struct {
		name string
		f    func([]byte, any) error
	}{{"json", json.Unmarshal}, {"journal", journal.Decode}} {
		b.Run(decode.name, func(b *testing.B) {
			for b.Loop() {
				var e ended
				if err := decode.f(data, &e); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
