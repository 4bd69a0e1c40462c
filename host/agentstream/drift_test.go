package agentstream

import (
	"strings"
	"testing"
)

// driftNotes are the notes of event types not known among events.
func driftNotes(events []Event) []string {
	var notes []string
	for _, e := range events {
		if e.Kind == KindNote && strings.Contains(e.Text, "rooda does not know") {
			notes = append(notes, e.Text)
		}
	}
	return notes
}

// TestUnknownEventTypeIsNotedOnce: a CLI that prints types its decoder
// does not know, over and over, gets one note in the run, naming the
// first type and the CLI's version where it names it (claude's init,
// copilot's session.start; the texts are in the goldens).
func TestUnknownEventTypeIsNotedOnce(t *testing.T) {
	for _, tc := range []struct {
		format    Format
		firstType string
	}{
		{Claude, `"turn_digest"`},
		{Codex, `"turn.plan"`},
		{Gemini, `"thought"`},
		{OpenCode, `"step_pause"`},
		{Copilot, `"session.mood_changed"`},
	} {
		notes := driftNotes(events(t, tc.format, "unknown_event_type"))
		if len(notes) != 1 || !strings.Contains(notes[0], tc.firstType) {
			t.Errorf("%s: notes %q, want one naming %s", tc.format, notes, tc.firstType)
		}
	}
	for format, version := range map[Format]string{Claude: "claude 2.1.332 ", Copilot: "copilot 1.0.140 "} {
		if notes := driftNotes(events(t, format, "unknown_event_type")); len(notes) == 1 && !strings.HasPrefix(notes[0], version) {
			t.Errorf("%s: the note does not name the version the CLI named: %q", format, notes[0])
		}
	}
}

// TestKnownIgnoredEventTypesAreSilent: the types a decoder knows and
// skips are no drift.
func TestKnownIgnoredEventTypesAreSilent(t *testing.T) {
	for _, tc := range []struct {
		format Format
		lines  string
	}{
		{Claude, `{"type":"stream_event","event":{"type":"message_start"}}
{"type":"tool_progress","tool_use_id":"t1","tool_name":"Bash","elapsed_time_seconds":1}
{"type":"tool_use_summary","summary":"ran ls"}
{"type":"prompt_suggestion","suggestion":"next"}
{"type":"keep_alive"}
{"type":"system","subtype":"hook_started"}
{"type":"auth_status","isAuthenticating":false,"output":[]}`},
		{Codex, `{"type":"turn.started"}
{"type":"item.updated","item":{"id":"item_0","type":"todo_list","items":[]}}
{"type":"item.started","item":{"id":"item_1","type":"reasoning","text":""}}`},
		{Gemini, `{"type":"init","session_id":"g","model":"m"}
{"type":"message","role":"user","content":"hi"}
{"type":"error","severity":"warning","message":"w"}`},
		{OpenCode, `{"type":"step_start","sessionID":"o","part":{"type":"step-start"}}
{"type":"reasoning","sessionID":"o","part":{"type":"reasoning","text":"hm"}}`},
		{Copilot, `{"type":"session.skills_loaded","data":{"skills":[]}}
{"type":"assistant.turn_start","data":{"turnId":"0"}}
{"type":"session.start","data":{"copilotVersion":"1.0.102"}}
{"type":"result","sessionId":"c","exitCode":0}`},
	} {
		var got []Event
		d := New(tc.format, nil)
		d.Observe(func(e Event) { got = append(got, e) })
		d.Write([]byte(tc.lines + "\n"))
		d.Close()
		if notes := driftNotes(got); len(notes) > 0 {
			t.Errorf("%s: %q", tc.format, notes)
		}
	}
}
