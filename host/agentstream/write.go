package agentstream

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Reply is what an agent says in one run, for Write: a script test's fake
// agent prints it as its CLI would, and rooda reads it back through that
// CLI's decoder, as it reads a real one.
type Reply struct {
	Text  string
	Usage Usage
	// Cost is the dollars the CLI reports, when HasCost.
	Cost    float64
	HasCost bool
	// Cause, when set, is an error the CLI reports, of that cause.
	Cause Cause
}

// causeMessages are the errors Write gives each cause: words every CLI's
// decoder reads as that cause (Write's test checks it, CLI by CLI).
var causeMessages = map[Cause]string{
	CauseAuth:        "Invalid API key: please log in again",
	CauseRateLimited: "Rate limit reached: too many requests",
	CauseUsageLimit:  "You have hit your usage limit",
	CauseNetwork:     "Unable to connect to the API: network error",
	CauseOverloaded:  "The API is overloaded",
	CauseOther:       "Something went wrong",
}

// Write is r as f's CLI prints it, one JSON line an event, which a
// Decoder of f reads back as r. Its error says what f's CLI never
// reports (codex reports no cost, copilot no tokens), so that a test
// cannot pass on a reply no real agent gives. Text is r.Text alone: a
// text agent reports no tokens, no cost and no cause.
func Write(f Format, r Reply) ([]byte, error) {
	msg, known := causeMessages[r.Cause]
	if r.Cause != "" && !known {
		return nil, fmt.Errorf("unknown cause %q", r.Cause)
	}
	if err := reportable(f, r); err != nil {
		return nil, err
	}
	var lines []any
	u := r.Usage
	switch f {
	case Text:
		return []byte(r.Text), nil
	case Claude:
		subtype, isError, result := "success", false, r.Text
		if r.Cause != "" {
			subtype, isError, result = "error_during_execution", true, msg
		}
		end := o("type", "result", "subtype", subtype, "is_error", isError, "result", result,
			"usage", o("input_tokens", u.Input, "output_tokens", u.Output, "cache_read_input_tokens", u.CacheRead, "cache_creation_input_tokens", u.CacheWrite))
		if r.HasCost {
			end = append(end, field{"total_cost_usd", r.Cost})
		}
		lines = append(lines, textLine(r.Text, o("type", "assistant", "message", o("content", []any{o("type", "text", "text", r.Text)}))), end)
	case Codex:
		lines = append(lines,
			textLine(r.Text, o("type", "item.completed", "item", o("id", "item_0", "type", "agent_message", "text", r.Text))),
			o("type", "turn.completed", "usage", o("input_tokens", u.Input+u.CacheRead, "cached_input_tokens", u.CacheRead, "output_tokens", u.Output)))
		if r.Cause != "" {
			lines = append(lines, o("type", "turn.failed", "error", o("message", msg)))
		}
	case Gemini:
		lines = append(lines, textLine(r.Text, o("type", "message", "role", "assistant", "content", r.Text)))
		if r.Cause != "" {
			lines = append(lines, o("type", "error", "message", msg))
		}
		lines = append(lines, o("type", "result", "status", "success",
			"stats", o("input", u.Input, "input_tokens", u.Input+u.CacheRead, "output_tokens", u.Output, "cached", u.CacheRead)))
	case OpenCode:
		if r.Cause != "" {
			lines = append(lines, o("type", "error", "error", o("name", "APIError", "data", o("message", msg))))
		}
		lines = append(lines,
			textLine(r.Text, o("type", "text", "part", o("type", "text", "text", r.Text))),
			o("type", "step_finish", "part", o("type", "step-finish", "cost", r.Cost,
				"tokens", o("input", u.Input, "output", u.Output, "cache", o("read", u.CacheRead, "write", u.CacheWrite)))))
	case Copilot:
		lines = append(lines, textLine(r.Text, o("type", "assistant.message", "data", o("content", r.Text))))
		if r.Cause != "" {
			lines = append(lines, o("type", "session.error", "data", o("message", msg)))
		}
	default:
		return nil, fmt.Errorf("unknown output format %q", f)
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false) // a CLI prints <promise> as it is
	for _, l := range lines {
		if l == nil {
			continue
		}
		if err := enc.Encode(l); err != nil {
			return nil, err
		}
	}
	return out.Bytes(), nil
}

// object is a JSON object whose keys keep their order: "type" first, as
// the CLIs print it.
type object []field

type field struct {
	key   string
	value any
}

// o is the object of alternate keys and values.
func o(kv ...any) object {
	obj := make(object, 0, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		obj = append(obj, field{kv[i].(string), kv[i+1]})
	}
	return obj
}

func (obj object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	b.WriteByte('{')
	for i, f := range obj {
		if i > 0 {
			b.WriteByte(',')
		}
		if err := enc.Encode(f.key); err != nil {
			return nil, err
		}
		b.Truncate(b.Len() - 1) // Encode's newline
		b.WriteByte(':')
		if err := enc.Encode(f.value); err != nil {
			return nil, err
		}
		b.Truncate(b.Len() - 1)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// textLine is line, or nil when there is no text to say.
func textLine(text string, line object) any {
	if text == "" {
		return nil
	}
	return line
}

// reportable says what in r f's CLI never reports.
func reportable(f Format, r Reply) error {
	u := r.Usage
	switch {
	case f == Text && r.Cause != "":
		return fmt.Errorf("an agent read as text reports no cause: give a CLI's format")
	case f == Text && (!u.IsZero() || r.HasCost):
		return fmt.Errorf("an agent read as text reports no tokens and no cost")
	case r.HasCost && (f == Codex || f == Gemini || f == Copilot):
		return fmt.Errorf("%s reports no cost: give its usage, which model_prices prices", f)
	case r.HasCost && f == OpenCode && r.Cost <= 0:
		return fmt.Errorf("%s reports a cost of 0 as no cost", f)
	case f == Copilot && !u.IsZero():
		return fmt.Errorf("%s reports no tokens", f)
	case u.CacheWrite != 0 && (f == Codex || f == Gemini):
		return fmt.Errorf("%s reports no cache_write tokens", f)
	}
	return nil
}
