package agentstream

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// opencodeDecoder reads `opencode run --format json`: one event a line,
// {type, timestamp, sessionID, part} for text, tool_use, step_start,
// step_finish and reasoning, {type: "error", error} for errors (the run
// command and MessageV2's schemas in opencode-ai 1.18.33's binary). It
// also reads the "stream error" lines of opencode's own log, which the
// alias has it print on stderr (--print-logs --log-level WARN): a limit
// it waits out says nothing on its JSON stream, only there.
type opencodeDecoder struct {
	session string // the session id named last
	drift   drift
	// retries counts the limits its log named since the last event of
	// its JSON stream: opencode's log numbers no attempt.
	retries int
}

// opencodeTypes are the types of event opencode-ai 1.18.33's run command
// prints.
var opencodeTypes = map[string]bool{
	"text": true, "tool_use": true, "step_start": true, "step_finish": true, "reasoning": true, "error": true,
}

type opencodeLine struct {
	Type    string `json:"type"`
	Session string `json:"sessionID"`
	Part    *struct {
		Type  string `json:"type"`
		Text  string `json:"text"` // text
		Tool  string `json:"tool"` // tool
		State *struct {
			Status string          `json:"status"` // completed or error
			Input  json.RawMessage `json:"input"`
			Output string          `json:"output"`
			Error  string          `json:"error"`
		} `json:"state"`
		Cost   float64 `json:"cost"` // step-finish
		Tokens *struct {
			Input     int64 `json:"input"`
			Output    int64 `json:"output"`
			Reasoning int64 `json:"reasoning"`
			Cache     struct {
				Read  int64 `json:"read"`
				Write int64 `json:"write"`
			} `json:"cache"`
		} `json:"tokens"`
	} `json:"part"`
	Error *struct {
		Name string `json:"name"`
		Data struct {
			Message    string `json:"message"`
			StatusCode int    `json:"statusCode"`
		} `json:"data"`
	} `json:"error"`
}

func (o *opencodeDecoder) decode(line []byte, emit func(Event)) bool {
	var m opencodeLine
	if !typed(line) {
		return o.limit(string(line), emit)
	}
	o.retries = 0
	if json.Unmarshal(line, &m) != nil {
		return true // its JSON, of a shape not known: skipped
	}
	if m.Session != "" && m.Session != o.session {
		o.session = m.Session
		emit(Event{Kind: KindSession, Text: m.Session})
	}
	if !opencodeTypes[m.Type] {
		o.drift.unknown(m.Type, emit)
	}
	switch {
	case m.Type == "error" && m.Error != nil:
		emit(opencodeError(m.Error.Name, m.Error.Data.Message, m.Error.Data.StatusCode))
	case m.Part == nil:
	case m.Type == "text":
		emit(Event{Kind: KindAssistant, Text: m.Part.Text})
	case m.Type == "reasoning":
		emit(Event{Kind: KindProgress})
	case m.Type == "tool_use" && m.Part.State != nil:
		st := m.Part.State
		emit(Event{Kind: KindToolCall, Tool: m.Part.Tool, Args: shortArgs(st.Input)})
		if st.Status == "error" {
			emit(Event{Kind: KindToolResult, Tool: m.Part.Tool, Text: shortResult(st.Error), IsError: true})
		} else {
			emit(Event{Kind: KindToolResult, Tool: m.Part.Tool, Text: shortResult(st.Output)})
		}
	case m.Type == "step_finish" && m.Part.Tokens != nil:
		t := m.Part.Tokens
		e := Event{Kind: KindUsage, Usage: Usage{Input: t.Input, Output: t.Output + t.Reasoning, CacheRead: t.Cache.Read, CacheWrite: t.Cache.Write}}
		// opencode prices tokens from its own table and writes 0 for a
		// model it does not know: that is no price, not a free model.
		if m.Part.Cost > 0 {
			e.Cost, e.HasCost = m.Part.Cost, true
		}
		emit(e)
	}
	return true
}

// opencodeError is an error of opencode's named kinds (ProviderAuthError,
// APIError with the provider's HTTP status, UnknownError, …).
func opencodeError(name, msg string, status int) Event {
	if msg == "" {
		msg = name
	}
	cause := opencodeCauses.error(status, msg)
	if name == "ProviderAuthError" {
		cause = CauseAuth
	}
	return Event{Kind: KindError, Text: msg, Cause: cause}
}

// opencodeStreamError is how opencode 1.18.33 logs a request that failed,
// in logfmt: `timestamp=2026-11-28T17:40:40.976Z level=ERROR run=…
// message="stream error" … error.error="AI_APICallError: You've hit your
// usage limit. Try again at 2026-11-28T19:40:27Z."`. It says neither the
// status nor the retry-after it then waits (2 h, silently, when a 429
// says so): only the provider's message, which may name the reset.
var opencodeStreamError = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^timestamp=(\S+) level=ERROR .*\bmessage="stream error" .*\berror\.error=("(?:[^"\\]|\\.)*")`)
})

// opencodeResetWords are how a provider's message names its reset: at a
// time ("Try again at 2026-11-28T19:40:27Z."), or after a wait in Go's
// notation, as OpenAI writes it ("Please try again in 6m0s.", "in 1.5s").
var opencodeResetWords = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)try again (?:at (\d{4}-\d\d-\d\dT[0-9:.]+(?:Z|[+-]\d\d:\d\d))|in ((?:[0-9.]+(?:ms|h|m|s))+)\b)`)
})

// opencodeSilentLimit is how far off a limit's reset must be for rooda to
// wait for it rather than let opencode wait: as far as model_timeout's
// default. A nearer one opencode waits out and goes on in the same
// iteration; a farther one would have it stopped, silent, as a hung
// model (model_timeout), so it is reported as a limit with its reset, and
// the loop waits for it, within max_limit_wait, counting no failure.
const opencodeSilentLimit = 10 * time.Minute

// limit reads a line of opencode's log: a stream error for a limit or an
// overloaded provider is a retry (opencode retries those), numbered from
// the last event of the stream, with the wait its message names; one whose reset is opencodeSilentLimit
// or more away is also the limit's error, with its reset. It reports
// whether the line was such a stream error.
func (o *opencodeDecoder) limit(line string, emit func(Event)) bool {
	m := opencodeStreamError().FindStringSubmatch(line)
	if m == nil {
		return false
	}
	msg, err := strconv.Unquote(m[2])
	if err != nil {
		return false
	}
	msg = strings.TrimPrefix(msg, "AI_APICallError: ")
	cause := opencodeCauses.text(msg)
	if cause != CauseUsageLimit && cause != CauseRateLimited && cause != CauseOverloaded {
		return false // not retried: its error follows on the JSON stream
	}
	at, _ := time.Parse(time.RFC3339Nano, m[1])
	reset := opencodeResetAt(at, msg)
	o.retries++
	r := Retry{Attempt: o.retries, Error: msg, Cause: cause}
	if !reset.IsZero() {
		r.Delay = reset.Sub(at)
	}
	emit(Event{Kind: KindRetry, Retry: r})
	if cause != CauseOverloaded && r.Delay >= opencodeSilentLimit {
		emit(Event{Kind: KindError, Text: msg, Cause: cause, ResetAt: reset})
	}
	return true
}

// opencodeResetAt is when msg, logged at at, says its limit resets; zero
// when it does not say.
func opencodeResetAt(at time.Time, msg string) time.Time {
	m := opencodeResetWords().FindStringSubmatch(msg)
	switch {
	case m == nil || at.IsZero():
		return time.Time{}
	case m[1] != "":
		reset, err := time.Parse(time.RFC3339Nano, m[1])
		if err != nil || reset.Before(at) {
			return time.Time{}
		}
		return reset
	}
	wait, err := time.ParseDuration(m[2])
	if err != nil || wait < 0 {
		return time.Time{}
	}
	return at.Add(wait)
}
