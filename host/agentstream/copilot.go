package agentstream

import (
	"encoding/json"
	"strings"
)

// copilotDecoder reads `copilot -p … --output-format json`: one session
// event a line, {type, data, id, timestamp, parentId}, and a last
// {type: "result", exitCode, usage}. The shapes are those of a real run of
// @github/copilot 1.0.102 (testdata/copilot-json): its JSON reports no
// tokens and no cost for a provider of the user's own.
type copilotDecoder struct {
	model   string
	retries int
	// failure is the last failed model call, which the retry that follows
	// names only by a reason.
	failure struct {
		status  int
		message string
	}
	drift drift
}

type copilotLine struct {
	Type    string `json:"type"`
	Session string `json:"sessionId"` // result
	Data    struct {
		Model        string          `json:"model"`
		Content      string          `json:"content"`   // assistant.message
		ToolName     string          `json:"toolName"`  // tool.execution_start
		Arguments    json.RawMessage `json:"arguments"` //
		Success      *bool           `json:"success"`   // tool.execution_complete
		Result       json.RawMessage `json:"result"`    // {content}, or a word
		Error        json.RawMessage `json:"error"`
		StatusCode   int             `json:"statusCode"`   // model.call_failure, session.error
		ErrorMessage string          `json:"errorMessage"` // model.call_failure: the provider's JSON
		Reason       string          `json:"reason"`       // assistant.turn_retry
		ErrorType    string          `json:"errorType"`    // session.error
		Message      string          `json:"message"`
		Version      string          `json:"copilotVersion"` // session.start
	} `json:"data"`
}

func (c *copilotDecoder) decode(line []byte, emit func(Event)) bool {
	var m copilotLine
	if !typed(line) {
		return false
	}
	if json.Unmarshal(line, &m) != nil {
		return true // its JSON, of a shape not known: skipped
	}
	if m.Session != "" {
		emit(Event{Kind: KindSession, Text: m.Session})
	}
	if model := m.Data.Model; model != "" && model != c.model && !redacted(model) {
		c.model = model
		emit(Event{Kind: KindModel, Text: model})
	}
	switch {
	case m.Type == "session.start":
		c.drift.version = m.Data.Version
	case !copilotTypes()[m.Type]:
		c.drift.unknown(m.Type, emit)
	}
	switch m.Type {
	case "assistant.message":
		// The whole message; the deltas before it are not read twice.
		if m.Data.Content != "" {
			emit(Event{Kind: KindAssistant, Text: m.Data.Content})
		}
	case "tool.execution_start":
		emit(Event{Kind: KindToolCall, Tool: m.Data.ToolName, Args: shortArgs(m.Data.Arguments)})
	case "tool.execution_complete":
		c.toolResult(m, emit)
	case "assistant.message_delta", "assistant.reasoning_delta", "assistant.reasoning", "assistant.tool_call_delta", "tool.execution_partial_result":
		// The whole message comes later; a piece of it shows work now.
		emit(Event{Kind: KindProgress})
	case "model.call_failure":
		c.failure.status, c.failure.message = m.Data.StatusCode, providerMessage(m.Data.ErrorMessage)
	case "assistant.turn_retry":
		c.retries++
		r := Retry{Attempt: c.retries, Status: c.failure.status, Error: m.Data.Reason}
		r.Cause = orOther(copilotCauses.error(r.Status, c.failure.message+" "+r.Error))
		emit(Event{Kind: KindRetry, Retry: r})
	case "session.error":
		emit(Event{Kind: KindError, Text: m.Data.Message, Cause: copilotErrorCause(m.Data.ErrorType, m.Data.StatusCode, m.Data.Message)})
	}
	return true
}

func (c *copilotDecoder) toolResult(m copilotLine, emit func(Event)) {
	r := Event{Kind: KindToolResult, IsError: m.Data.Success != nil && !*m.Data.Success}
	var result struct{ Content string }
	if json.Unmarshal(m.Data.Result, &result) == nil {
		r.Text = shortResult(result.Content)
	}
	if r.IsError && len(m.Data.Error) > 0 {
		var e struct{ Message string }
		if json.Unmarshal(m.Data.Error, &e) == nil && e.Message != "" {
			r.Text = shortResult(e.Message)
		} else {
			r.Text = shortResult(jsonText(m.Data.Error))
		}
	}
	emit(r)
}

// copilotErrorCause maps session.error's errorType ("authentication",
// "rate_limit", …) to a cause, or else its status and message.
func copilotErrorCause(errorType string, status int, msg string) Cause {
	switch errorType {
	case "authentication":
		return CauseAuth
	case "rate_limit":
		return copilotCauses.sharpen(CauseRateLimited, msg)
	case "quota":
		return CauseUsageLimit
	}
	return copilotCauses.error(status, msg)
}

// providerMessage is the message in a provider's JSON error body
// ({"message": …} or {"error": {"message": …}}), or the body itself.
func providerMessage(body string) string {
	var e struct {
		Message string `json:"message"`
		Error   struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal([]byte(body), &e) == nil {
		if e.Message != "" {
			return e.Message
		}
		if e.Error.Message != "" {
			return e.Error.Message
		}
	}
	return body
}

// redacted reports whether copilot masked a name: it writes "******" for
// any text equal to a secret it was given, such as a model named like
// COPILOT_PROVIDER_API_KEY's value (1.0.102). It gives the name nowhere
// else, so such a model has none.
func redacted(name string) bool {
	return strings.Trim(name, "*") == ""
}
