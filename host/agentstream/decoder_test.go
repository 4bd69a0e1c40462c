package agentstream

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"rooda/internal/golden"
)

// decode feeds input to a new Decoder of format in chunks of size bytes
// (0: at once) and returns the transcript and the summary.
func decode(format Format, input []byte, size int) (string, Summary) {
	var stream bytes.Buffer
	d := New(format, &stream)
	if size <= 0 {
		size = max(len(input), 1)
	}
	for rest := input; len(rest) > 0; {
		n := min(size, len(rest))
		d.Write(rest[:n])
		rest = rest[n:]
	}
	d.Close()
	return stream.String(), d.Summary()
}

// report is what a golden file holds: the transcript, then the summary.
func report(transcript string, s Summary) string {
	var b strings.Builder
	fmt.Fprintf(&b, "== transcript ==\n%s== summary ==\n", transcript)
	fmt.Fprintf(&b, "text: %q\n", s.Text)
	fmt.Fprintf(&b, "result: %q\n", s.Result)
	fmt.Fprintf(&b, "model: %q, session: %q\n", s.Model, s.Session)
	fmt.Fprintf(&b, "usage: %+v\n", s.Usage)
	fmt.Fprintf(&b, "cost: %v reported: %v\n", s.CostUSD, s.CostReported)
	fmt.Fprintf(&b, "tool calls: %d, refused: %d, retries: %d, last retry: %+v\n", s.ToolCalls, s.Refused, s.Retries, s.LastRetry)
	fmt.Fprintf(&b, "error: %q\ncause: %q, failure cause: %q\n", s.Err, s.Cause, s.FailureCause())
	if !s.ResetAt.IsZero() {
		fmt.Fprintf(&b, "resets at: %s\n", s.ResetAt.UTC().Format(time.RFC3339))
	}
	if !s.ResetEarliest.IsZero() {
		fmt.Fprintf(&b, "resets from: %s\n", s.ResetEarliest.UTC().Format(time.RFC3339))
	}
	fmt.Fprintf(&b, "output: %q\n", s.Output)
	fmt.Fprintf(&b, "dropped lines: %d\n", s.DroppedLines)
	return b.String()
}

// TestDecodeTranscripts decodes every transcript under testdata/<format>/
// and checks the transcript and summary against its golden file; fed
// byte by byte, or in chunks of 7, it decodes the same.
func TestDecodeTranscripts(t *testing.T) {
	for _, format := range Formats()[1:] {
		files, _ := filepath.Glob(filepath.Join("testdata", string(format), "*.jsonl"))
		if len(files) == 0 {
			t.Errorf("%s: no transcripts", format)
		}
		for _, file := range files {
			name := strings.TrimSuffix(filepath.Base(file), ".jsonl")
			t.Run(string(format)+"/"+name, func(t *testing.T) {
				input, err := os.ReadFile(file)
				if err != nil {
					t.Fatal(err)
				}
				want := report(decode(format, input, 0))
				golden.Check(t, filepath.Join(string(format), name), want)
				for _, size := range []int{1, 7} {
					if got := report(decode(format, input, size)); got != want {
						t.Errorf("in chunks of %d bytes:\n%s\nwant\n%s", size, got, want)
					}
				}
			})
		}
	}
}

func TestEscapedSignalIsFound(t *testing.T) {
	line := `{"type":"assistant","message":{"content":[{"type":"text","text":"done \u003cpromise\u003eSUCCESS\u003c/promise\u003e"}]}}` + "\n"
	_, s := decode(Claude, []byte(line), 0)
	if !strings.Contains(s.Text, "<promise>SUCCESS</promise>") {
		t.Errorf("assistant text %q lacks the decoded signal", s.Text)
	}
}

// TestEchoedPromptIsNotAssistantText: the prompt comes back in a tool's
// result (claude, codex, opencode) or as the user's message (gemini); its
// signals are not the model's.
func TestEchoedPromptIsNotAssistantText(t *testing.T) {
	tests := []struct {
		format Format
		line   string
	}{
		{Claude, `{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"print <promise>SUCCESS</promise>"}]}}`},
		{Claude, `{"type":"user","message":{"role":"user","content":"print <promise>SUCCESS</promise>"}}`},
		{Codex, `{"type":"item.completed","item":{"id":"i","type":"command_execution","command":"cat PROMPT.md","aggregated_output":"print <promise>SUCCESS</promise>","exit_code":0,"status":"completed"}}`},
		{Gemini, `{"type":"message","role":"user","content":"print <promise>SUCCESS</promise>"}`},
		{Gemini, `{"type":"tool_result","tool_id":"x","status":"success","output":"print <promise>SUCCESS</promise>"}`},
		{OpenCode, `{"type":"tool_use","part":{"type":"tool","tool":"read","state":{"status":"completed","input":{},"output":"print <promise>SUCCESS</promise>"}}}`},
		{Copilot, `{"type":"user.message","data":{"content":"print <promise>SUCCESS</promise>"}}`},
		{Copilot, `{"type":"tool.execution_complete","data":{"success":true,"result":{"content":"print <promise>SUCCESS</promise>"}}}`},
	}
	for _, tc := range tests {
		transcript, s := decode(tc.format, []byte(tc.line+"\n"), 0)
		if s.Text != "" || s.TextBytes != 0 {
			t.Errorf("%s %s: assistant text %q", tc.format, tc.line, s.Text)
		}
		if strings.Contains(transcript, "<promise>") && tc.format != Gemini {
			// A result is shown one line, shortened: never whole.
			t.Logf("%s transcript: %q", tc.format, transcript)
		}
	}
}

// TestLinesThatAreNotJSON: a banner, a stack trace, a JSON value of
// another shape and a blank line are kept as output, never as assistant
// text, and the lines around them are still decoded.
func TestLinesThatAreNotJSON(t *testing.T) {
	input := "Warning: something <promise>SUCCESS</promise>\n" +
		"    at Object.<anonymous> (file.js:1:1)\n" +
		"[1,2,3]\n" +
		"{\"no_type\":true}\n" +
		"\n" +
		"{\"type\":\"assistant\",\"message\":{\"content\":[{\"type\":\"text\",\"text\":\"hello\"}]}}\n" +
		"{\"type\":\"assistant\",\"message\":{\"content\":[{\"type\":\"text\",\"text\":\"cut"
	transcript, s := decode(Claude, []byte(input), 0)
	if s.Text != "hello" {
		t.Errorf("assistant text %q, want %q", s.Text, "hello")
	}
	wantOutput := "Warning: something <promise>SUCCESS</promise>\n    at Object.<anonymous> (file.js:1:1)\n[1,2,3]\n{\"no_type\":true}\n" +
		"{\"type\":\"assistant\",\"message\":{\"content\":[{\"type\":\"text\",\"text\":\"cut\n"
	if s.Output != wantOutput {
		t.Errorf("output %q, want %q", s.Output, wantOutput)
	}
	if !strings.Contains(transcript, "Warning: something") || !strings.Contains(transcript, "hello\n") {
		t.Errorf("transcript %q", transcript)
	}
}

// TestLongLineIsDropped: a line over MaxLine is dropped with a note, in
// any chunks, without being kept, and the next line is decoded.
func TestLongLineIsDropped(t *testing.T) {
	long := `{"type":"user","message":{"content":"` + strings.Repeat("x", MaxLine) + `"}}`
	next := `{"type":"assistant","message":{"content":[{"type":"text","text":"after"}]}}`
	input := []byte(long + "\n" + next + "\n")
	for _, size := range []int{0, 4096, MaxLine - 1} {
		var stream bytes.Buffer
		d := New(Claude, &stream)
		for rest := input; len(rest) > 0; {
			n := len(rest)
			if size > 0 {
				n = min(size, n)
			}
			d.Write(rest[:n])
			if cap(d.line) > MaxLine {
				t.Fatalf("chunks of %d: the line buffer grew to %d", size, cap(d.line))
			}
			rest = rest[n:]
		}
		d.Close()
		s := d.Summary()
		if s.DroppedLines != 1 || s.Text != "after" {
			t.Errorf("chunks of %d: dropped %d, text %q", size, s.DroppedLines, s.Text)
		}
		want := fmt.Sprintf("[dropped a line of %d bytes, longer than %d]\nafter\n", len(long), MaxLine)
		if got := stream.String(); got != want {
			t.Errorf("chunks of %d: transcript %q, want %q", size, got, want)
		}
	}
}

// TestAssistantTextIsBounded: the summary keeps the most recent MaxText
// bytes, and counts all.
func TestAssistantTextIsBounded(t *testing.T) {
	d := New(OpenCode, nil)
	msg := strings.Repeat("a", 1000)
	line := []byte(`{"type":"text","part":{"type":"text","text":"` + msg + `"}}` + "\n")
	n := 3 * MaxText / 1000
	for range n {
		d.Write(line)
	}
	d.Write([]byte(`{"type":"text","part":{"type":"text","text":"<promise>SUCCESS</promise>"}}` + "\n"))
	s := d.Summary()
	if len(s.Text) > MaxText || !s.TextTruncated || !strings.HasSuffix(s.Text, "\n<promise>SUCCESS</promise>") {
		t.Errorf("text of %d bytes, truncated %v, ends %q", len(s.Text), s.TextTruncated, s.Text[len(s.Text)-40:])
	}
	if want := int64(n*1000 + len("<promise>SUCCESS</promise>")); s.TextBytes != want {
		t.Errorf("text bytes %d, want %d", s.TextBytes, want)
	}
}

// TestTextFormatIsTheOutput: the Text format decodes nothing.
func TestTextFormatIsTheOutput(t *testing.T) {
	input := "line one\n{\"type\":\"assistant\"}\n<promise>SUCC"
	transcript, s := decode(Text, []byte(input+"ESS</promise>"), 3)
	if want := input + "ESS</promise>"; transcript != want || s.Text != want || s.Output != "" {
		t.Errorf("transcript %q, text %q, output %q", transcript, s.Text, s.Output)
	}
}

func TestObserveSeesEveryEvent(t *testing.T) {
	input, err := os.ReadFile("testdata/claude-stream-json/tool_call_success.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	d := New(Claude, nil)
	d.Observe(func(e Event) { kinds = append(kinds, e.Kind.String()) })
	d.Write(input)
	d.Close()
	want := "model session assistant tool_call tool_result tool_call tool_result assistant assistant usage result"
	if got := strings.Join(kinds, " "); got != want {
		t.Errorf("events %s, want %s", got, want)
	}
	if d.Summary().Events != len(kinds) {
		t.Errorf("summary counts %d events, observed %d", d.Summary().Events, len(kinds))
	}
}

func TestParseFormat(t *testing.T) {
	for _, f := range Formats() {
		if got, err := ParseFormat(string(f)); got != f || err != nil {
			t.Errorf("ParseFormat(%q) = %q, %v", f, got, err)
		}
	}
	_, err := ParseFormat("claude")
	if err == nil || !strings.Contains(err.Error(), "claude-stream-json") {
		t.Errorf("ParseFormat(claude): %v", err)
	}
}

// TestGeminiRetryLines: gemini's retries, which it reports on stderr
// only, are read as retries with their cause: its server down (the real
// line), and the other forms of retryWithBackoff (@google/gemini-cli-core
// 0.61.0, packages/core/src/utils/retry.ts), which carry a status or a
// delay. Other stderr lines are not retries.
func TestGeminiRetryLines(t *testing.T) {
	cases := []struct {
		line string
		want Retry
		ok   bool
	}{
		{"Attempt 1 failed. Retrying with backoff... Error: exception TypeError: fetch failed sending request",
			Retry{Attempt: 1, Error: "exception TypeError: fetch failed sending request", Cause: CauseNetwork}, true},
		{"Attempt 2 failed with status 503. Retrying with backoff... ApiError: Service Unavailable",
			Retry{Attempt: 2, Status: 503, Error: "ApiError: Service Unavailable", Cause: CauseOverloaded}, true},
		{"Attempt 3 failed: Resource has been exhausted (e.g. check quota). Please retry in 2s.. Retrying after 5494ms...",
			Retry{Attempt: 3, Delay: 5494 * time.Millisecond, Error: "Resource has been exhausted (e.g. check quota). Please retry in 2s.", Cause: CauseRateLimited}, true},
		{"Attempt 1 failed with 5xx error. Retrying with backoff... Error: boom", Retry{Attempt: 1, Error: "boom", Cause: CauseOther}, true},
		{"[Routing] NumericalClassifierStrategy failed: Error: Failed to generate content: exception TypeError: fetch failed sending request", Retry{}, false},
		{"    at async retryWithBackoff (file:///x/chunk.js:308039:23)", Retry{}, false},
	}
	for _, c := range cases {
		got, ok := geminiRetry(c.line)
		if ok != c.ok || got != c.want {
			t.Errorf("%q: %+v %v, want %+v %v", c.line, got, ok, c.want, c.ok)
		}
	}
}
