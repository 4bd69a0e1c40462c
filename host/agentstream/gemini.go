package agentstream

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// geminiDecoder reads `gemini --output-format stream-json`: one event a
// line, of the types init, message, tool_use, tool_result, error and
// result (packages/core/src/output/types.ts and the non-interactive CLI
// of @google/gemini-cli 0.61.0). It reports no cost.
type geminiDecoder struct {
	tools toolNames
	// broken: an event came since the last assistant text, which the
	// next delta does not continue.
	broken bool
	drift  drift
}

type geminiLine struct {
	Type       string          `json:"type"`
	Timestamp  string          `json:"timestamp"`
	Model      string          `json:"model"` // init
	Session    string          `json:"session_id"`
	Role       string          `json:"role"`    // message: user or assistant
	Content    string          `json:"content"` // message
	Delta      bool            `json:"delta"`
	ToolName   string          `json:"tool_name"` // tool_use
	ToolID     string          `json:"tool_id"`
	Parameters json.RawMessage `json:"parameters"`
	Status     string          `json:"status"` // tool_result, result: success or error
	Output     json.RawMessage `json:"output"`
	Error      *struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
	Severity string `json:"severity"` // error: warning or error
	Message  string `json:"message"`
	Stats    *struct {
		InputTokens  int64 `json:"input_tokens"` // the prompt, cached tokens included
		OutputTokens int64 `json:"output_tokens"`
		Cached       int64 `json:"cached"`
		Input        int64 `json:"input"` // the prompt less the cached tokens
	} `json:"stats"`
}

func (g *geminiDecoder) decode(line []byte, emit func(Event)) bool {
	var m geminiLine
	if !typed(line) {
		return g.stderr(line, emit)
	}
	if json.Unmarshal(line, &m) != nil {
		return true // its JSON, of a shape not known: skipped
	}
	if m.Type != "message" {
		g.broken = true
	}
	switch m.Type {
	case "init":
		if m.Model != "" {
			emit(Event{Kind: KindModel, Text: m.Model})
		}
		if m.Session != "" {
			emit(Event{Kind: KindSession, Text: m.Session})
		}
	case "message":
		// The user's message is the prompt, echoed: never the model's text.
		if m.Role == "assistant" {
			emit(Event{Kind: KindAssistant, Text: m.Content, Continues: m.Delta && !g.broken})
			g.broken = false
		}
	case "tool_use":
		g.tools.add(m.ToolID, m.ToolName)
		emit(Event{Kind: KindToolCall, Tool: m.ToolName, Args: shortArgs(m.Parameters)})
	case "tool_result":
		g.toolResult(m, emit)
	case "error":
		if m.Severity == "warning" {
			emit(Event{Kind: KindNote, Text: "warning: " + m.Message})
		} else {
			emit(geminiError(m.Timestamp, m.Message, geminiCauses.text(m.Message)))
		}
	case "result":
		g.result(m, emit)
	default:
		g.drift.unknown(m.Type, emit)
	}
	return true
}

// stderr reads a line gemini printed on stderr: a retry, a frame of a
// stack trace, or another line, which it leaves as output. The frames
// are dropped: gemini follows each retry (and each error it logs) with
// up to ten ("    at async Models.generateContent
// (file:///…/node_modules/@google/gemini-cli/bundle/chunk-….js:…)"),
// where the line before says what went wrong; output.txt keeps them.
func (g *geminiDecoder) stderr(line []byte, emit func(Event)) bool {
	if geminiStackFrame().Match(line) {
		return true
	}
	r, ok := geminiRetry(string(line))
	if ok {
		g.broken = true
		emit(Event{Kind: KindRetry, Retry: r})
	}
	return ok
}

// geminiStackFrame is a frame of a JavaScript stack trace, as node prints
// it under an error: "    at async f (file:///x/chunk.js:308039:23)".
var geminiStackFrame = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s+at (?:async )?\S.*:\d+:\d+\)?$`) })

func (g *geminiDecoder) toolResult(m geminiLine, emit func(Event)) {
	r := Event{Kind: KindToolResult, Tool: g.tools.take(m.ToolID), Text: shortResult(jsonText(m.Output))}
	if m.Status == "error" {
		r.IsError = true
		if m.Error != nil {
			r.Text = shortResult(m.Error.Message)
		}
	}
	emit(r)
}

func (g *geminiDecoder) result(m geminiLine, emit func(Event)) {
	if s := m.Stats; s != nil {
		input := s.Input
		if input == 0 {
			input = max(s.InputTokens-s.Cached, 0)
		}
		emit(Event{Kind: KindUsage, Usage: Usage{Input: input, Output: s.OutputTokens, CacheRead: s.Cached}})
	}
	if m.Status != "error" {
		return
	}
	if m.Error == nil {
		emit(Event{Kind: KindError, Text: "gemini failed", Cause: CauseOther})
		return
	}
	emit(geminiError(m.Timestamp, m.Error.Message, geminiErrorCause(m.Error.Type, m.Error.Message)))
}

// geminiError is an error of cause, with when to retry if it is a limit
// and its message says.
func geminiError(timestamp, msg string, cause Cause) Event {
	e := Event{Kind: KindError, Text: msg, Cause: cause}
	if cause == CauseUsageLimit || cause == CauseRateLimited {
		e.ResetAt = geminiRetryAt(timestamp, msg)
	}
	return e
}

// geminiRetryLine is how gemini reports, on stderr only, a request it
// retries (retryWithBackoff in @google/gemini-cli-core 0.61.0): "Attempt 1
// failed. Retrying with backoff... Error: exception TypeError: fetch
// failed sending request", then the error's stack; "Attempt 2 failed with
// status 503. Retrying with backoff... …"; "Attempt 3 failed: <message>.
// Retrying after 5494ms...". With its server down it retries so without
// end, and its JSON stream says nothing.
var geminiRetryLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^Attempt (\d+) failed(?: with status (\d+))?(?:: (.*?))?[^.]*\. Retrying (?:with backoff|after (\d+)ms)\.\.\.\s*(.*)$`)
})

// geminiRetry reads a line of gemini's stderr that reports a retry.
func geminiRetry(line string) (Retry, bool) {
	m := geminiRetryLine().FindStringSubmatch(line)
	if m == nil {
		return Retry{}, false
	}
	r := Retry{Error: m[3]}
	r.Attempt, _ = strconv.Atoi(m[1])
	r.Status, _ = strconv.Atoi(m[2])
	if ms, err := strconv.Atoi(m[4]); err == nil {
		r.Delay = time.Duration(ms) * time.Millisecond
	}
	if r.Error == "" {
		r.Error = strings.TrimPrefix(m[5], "Error: ")
	}
	r.Cause = geminiCauses.error(r.Status, r.Error)
	return r, true
}

// geminiErrorCause maps the name of the error gemini failed with to a
// cause, or else its message: a quota error it passes on from the API is
// named "unknown" (0.61.0).
func geminiErrorCause(name, msg string) Cause {
	switch name {
	case "FatalAuthenticationError":
		return CauseAuth
	case "TerminalQuotaError":
		return CauseUsageLimit
	case "RetryableQuotaError":
		return CauseRateLimited
	}
	return geminiCauses.text(msg)
}

// geminiRetryDelay is how the Gemini API says when to come back, in the
// message gemini passes on: "Please retry in 41.5s".
var geminiRetryDelay = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`Please retry in ([0-9.]+)(ms|s)\b`) })

// geminiRetryAt is when msg says to retry, from the event's time; zero
// when it does not say.
func geminiRetryAt(timestamp, msg string) time.Time {
	at, err := time.Parse(time.RFC3339Nano, timestamp)
	m := geminiRetryDelay().FindStringSubmatch(msg)
	if err != nil || m == nil {
		return time.Time{}
	}
	n, err := strconv.ParseFloat(m[1], 64)
	if err != nil || n < 0 || n > 1e9 {
		return time.Time{}
	}
	unit := time.Second
	if m[2] == "ms" {
		unit = time.Millisecond
	}
	return at.Add(time.Duration(n * float64(unit)))
}
