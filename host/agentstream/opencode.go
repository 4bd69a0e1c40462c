package agentstream

import (
	"encoding/json"
)

// opencodeDecoder reads `opencode run --format json`: one event a line,
// {type, timestamp, sessionID, part} for text, tool_use, step_start,
// step_finish and reasoning, {type: "error", error} for errors (the run
// command and MessageV2's schemas in opencode-ai 1.18.33's binary).
type opencodeDecoder struct {
	session string // the session id named last
	drift   drift
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
		return false
	}
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
