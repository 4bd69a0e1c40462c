package agentstream

import (
	"os"
	"path/filepath"
	"testing"
)

// events decodes the transcript testdata/<format>/<name>.jsonl and
// returns the events, as an observer gets them.
func events(t *testing.T, format Format, name string) []Event {
	t.Helper()
	input, err := os.ReadFile(filepath.Join("testdata", string(format), name+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var got []Event
	d := New(format, nil)
	d.Observe(func(e Event) { got = append(got, e) })
	d.Write(input)
	d.Close()
	return got
}

// TestFatalEvents: every CLI's refused login has an event that says the
// agent cannot succeed, claude's at its first retry of the 401 or 403; a
// run that works (after a rate-limit warning), a limit or a retried 429
// has none.
func TestFatalEvents(t *testing.T) {
	for _, tc := range []struct {
		format Format
		name   string
		fatal  bool
	}{
		{Claude, "auth_retries_real", true},
		{Claude, "forbidden_retries", true},
		{Claude, "forbidden_real", true},
		{Claude, "not_logged_in", true},
		{Codex, "unauthorized", true},
		{Gemini, "auth_method", true},
		{OpenCode, "auth_error", true},
		{Copilot, "unauthorized", true},
		{Claude, "tool_call_success", false},
		{Claude, "retry_then_rate_limited", false},
		{Claude, "usage_limit_reset", false},
		{Claude, "rate_limit_warning_then_success", false},
		{Codex, "reconnect_then_usage_limit", false},
		{Codex, "network_down", false},
		{Gemini, "quota_exhausted", false},
		{OpenCode, "api_error", false},
		{Copilot, "rate_limited", false},
	} {
		first := -1
		for i, e := range events(t, tc.format, tc.name) {
			if e.Fatal() {
				first = i
				break
			}
		}
		if (first >= 0) != tc.fatal {
			t.Errorf("%s/%s: the first fatal event is event %d, want one: %v", tc.format, tc.name, first, tc.fatal)
		}
	}
	if e := events(t, Claude, "auth_retries_real"); !e[2].Fatal() || e[2].Retry.Attempt != 1 {
		t.Errorf("claude's first retry of a 401 is not fatal: %+v", e[2])
	}
	// A 403 whose name says nothing ("unknown") is as fatal, by its
	// status: claude would retry it for minutes.
	if e := events(t, Claude, "forbidden_retries"); !e[2].Fatal() || e[2].Retry.Attempt != 1 {
		t.Errorf("claude's first retry of a 403 is not fatal: %+v", e[2])
	}
}

// TestRetriesShowNoWork: a CLI that only retries, reconnects or fails
// shows no work; one that works does, and every tool it calls is done by
// the end, codex's file change (reported once done) included.
func TestRetriesShowNoWork(t *testing.T) {
	for _, tc := range []struct {
		format Format
		name   string
	}{
		{Claude, "auth_retries_real"}, {Codex, "network_down"}, {Codex, "reconnect_then_usage_limit"}, {Copilot, "rate_limited"}, {OpenCode, "api_error"},
	} {
		for _, e := range events(t, tc.format, tc.name) {
			if e.ShowsWork() {
				t.Errorf("%s/%s: %s shows work", tc.format, tc.name, e.Kind)
			}
		}
	}
	for _, format := range Formats()[1:] {
		work, open, opened := 0, 0, 0
		for _, e := range events(t, format, "tool_call_success") {
			if e.ShowsWork() {
				work++
			}
			if e.OpensTool() {
				open++
				opened++
			}
			if e.ClosesTool() {
				open--
			}
		}
		if work == 0 || opened == 0 || open != 0 {
			t.Errorf("%s: %d events of work, %d tools called, %d open at the end", format, work, opened, open)
		}
	}
}

// TestThinkingShowsWork: what the model does that the transcript does not
// show (claude's thinking, codex's reasoning, copilot's deltas) still
// shows work.
func TestThinkingShowsWork(t *testing.T) {
	for _, tc := range []struct {
		format Format
		line   string
	}{
		{Claude, `{"type":"assistant","message":{"content":[{"type":"thinking","thinking":"…"}]}}`},
		{Codex, `{"type":"item.completed","item":{"id":"i","type":"reasoning","text":"**Planning**"}}`},
		{Copilot, `{"type":"assistant.message_delta","data":{"messageId":"m","deltaContent":"Writ"}}`},
		{OpenCode, `{"type":"reasoning","part":{"type":"reasoning","text":"…"}}`},
	} {
		var got []Event
		d := New(tc.format, nil)
		d.Observe(func(e Event) { got = append(got, e) })
		d.Write([]byte(tc.line + "\n"))
		if len(got) != 1 || !got[0].ShowsWork() {
			t.Errorf("%s: %q gives %+v", tc.format, tc.line, got)
		}
	}
}
