package agentstream

import (
	"bytes"
	"encoding/json"
	"strings"
	"time"
)

// claudeDecoder reads `claude -p --output-format stream-json --verbose`:
// one SDK message a line (the SDK's zod schemas in the binary of
// @anthropic-ai/claude-code 2.1.197).
type claudeDecoder struct {
	tools toolNames
	// limitResetAt is when the limit a rate_limit_event rejected resets:
	// to the second, where the notice that follows names the minute.
	limitResetAt time.Time
	drift        drift
}

// claudeIgnored are the types of stream-json messages claude 2.1.197
// prints (its SDK's message union) that say nothing rooda reads.
var claudeIgnored = map[string]bool{
	"stream_event": true, "tool_progress": true, "tool_use_summary": true, "prompt_suggestion": true,
	"keep_alive": true, "control_request": true, "control_response": true, "control_cancel_request": true,
}

// claudeLine holds the fields of every message type read; "error" is a
// string in all of them.
type claudeLine struct {
	Type    string `json:"type"`
	Subtype string `json:"subtype"`
	Model   string `json:"model"` // system init
	Version string `json:"claude_code_version"`
	Session string `json:"session_id"`
	Message *struct {
		Model   string          `json:"model"`
		Content json.RawMessage `json:"content"` // blocks, or a string
	} `json:"message"`
	Error string `json:"error"` // assistant, api_retry, auth_status
	// system api_retry
	Attempt    int `json:"attempt"`
	MaxRetries int `json:"max_retries"`
	// RetryDelayMS is fractional in what claude 2.1.197 prints (622.12…).
	RetryDelayMS float64 `json:"retry_delay_ms"`
	ErrorStatus  int     `json:"error_status"`
	// result
	IsError        bool        `json:"is_error"`
	Result         string      `json:"result"`
	Errors         []string    `json:"errors"`
	APIErrorStatus int         `json:"api_error_status"`
	TotalCostUSD   *float64    `json:"total_cost_usd"`
	Usage          claudeUsage `json:"usage"`
	// rate_limit_event
	RateLimit *struct {
		Status        string  `json:"status"`
		ResetsAt      float64 `json:"resetsAt"` // Unix seconds
		RateLimitType string  `json:"rateLimitType"`
	} `json:"rate_limit_info"`
}

type claudeUsage struct {
	Input      int64 `json:"input_tokens"`
	Output     int64 `json:"output_tokens"`
	CacheWrite int64 `json:"cache_creation_input_tokens"`
	CacheRead  int64 `json:"cache_read_input_tokens"`
}

// claudeBlock is a content block: text, thinking, tool_use, tool_result.
type claudeBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"` // a string, or text blocks
	IsError   bool            `json:"is_error"`
}

// claudeRootRefusal is what claude prints on stderr, and exits 1, when
// run as root with --dangerously-skip-permissions and without
// IS_SANDBOX=1 (2.1.197).
var claudeRootRefusal = []byte("--dangerously-skip-permissions cannot be used with root/sudo privileges")

func (c *claudeDecoder) decode(line []byte, emit func(Event)) bool {
	var m claudeLine
	if !typed(line) {
		if bytes.Contains(line, claudeRootRefusal) {
			// Not a login, but as fatal: no run as root starts without
			// IS_SANDBOX=1, which the login fix names.
			emit(Event{Kind: KindError, Text: string(bytes.TrimSpace(line)), Cause: CauseAuth})
			return true
		}
		return false
	}
	if json.Unmarshal(line, &m) != nil {
		return true // its JSON, of a shape not known: skipped
	}
	switch m.Type {
	case "system":
		c.system(m, emit)
	case "assistant":
		c.assistant(m, emit)
	case "user":
		c.user(m, emit)
	case "result":
		c.result(m, emit)
	case "rate_limit_event":
		c.rateLimit(m, emit)
	case "auth_status":
		if m.Error != "" {
			emit(Event{Kind: KindError, Text: m.Error, Cause: CauseAuth})
		}
	default:
		if !claudeIgnored[m.Type] {
			c.drift.unknown(m.Type, emit)
		}
	}
	return true
}

func (c *claudeDecoder) system(m claudeLine, emit func(Event)) {
	switch m.Subtype {
	case "init":
		c.drift.version = m.Version
		if m.Model != "" {
			emit(Event{Kind: KindModel, Text: m.Model})
		}
		if m.Session != "" {
			emit(Event{Kind: KindSession, Text: m.Session})
		}
	case "api_retry":
		cause := claudeErrorCause(m.Error)
		if cause == "" || cause == CauseOther {
			cause = statusCause(m.ErrorStatus)
		}
		if m.ErrorStatus == 0 && cause == "" {
			// error_status is null when the request got no response.
			cause = CauseNetwork
		}
		name := m.Error
		if name == "unknown" {
			name = "" // what a refused connection is named: no name
		}
		emit(Event{Kind: KindRetry, Retry: Retry{
			Attempt: m.Attempt, Max: m.MaxRetries, Delay: time.Duration(m.RetryDelayMS * float64(time.Millisecond)),
			Status: m.ErrorStatus, Error: name, Cause: orOther(cause),
		}})
	}
}

// assistant emits the text and tool calls of a model's message; one the
// CLI made up to report an API error (it has "error") is an error.
func (c *claudeDecoder) assistant(m claudeLine, emit func(Event)) {
	if m.Message == nil {
		return
	}
	blocks := claudeBlocks(m.Message.Content)
	if m.Error != "" {
		text := blocksText(blocks)
		cause := claudeErrorCause(m.Error)
		if cause == CauseOther {
			// A name that says no cause ("server_error", "unknown"):
			// the words may ("Unable to connect to API").
			cause = claudeCauses.text(text)
		}
		emit(c.limitError(text, claudeCauses.sharpen(cause, text)))
		return
	}
	for _, b := range blocks {
		switch b.Type {
		case "text":
			emit(Event{Kind: KindAssistant, Text: b.Text})
		case "tool_use":
			c.tools.add(b.ID, b.Name)
			emit(Event{Kind: KindToolCall, Tool: b.Name, Args: shortArgs(b.Input)})
		case "thinking", "redacted_thinking":
			emit(Event{Kind: KindProgress})
		}
	}
}

// user emits the tool results a user message carries; its text is the
// prompt or the CLI's own, never the model's.
func (c *claudeDecoder) user(m claudeLine, emit func(Event)) {
	if m.Message == nil {
		return
	}
	for _, b := range claudeBlocks(m.Message.Content) {
		if b.Type == "tool_result" {
			out := blocksText(claudeBlocks(b.Content))
			if out == "" {
				out = jsonText(b.Content)
			}
			emit(Event{Kind: KindToolResult, Tool: c.tools.take(b.ToolUseID), Text: shortResult(out), IsError: b.IsError})
		}
	}
}

func (c *claudeDecoder) result(m claudeLine, emit func(Event)) {
	u := m.Usage
	usage := Event{Kind: KindUsage, Usage: Usage{Input: u.Input, Output: u.Output, CacheRead: u.CacheRead, CacheWrite: u.CacheWrite}}
	if m.TotalCostUSD != nil {
		usage.Cost, usage.HasCost = *m.TotalCostUSD, true
	}
	emit(usage)
	if !m.IsError && m.Subtype == "success" {
		emit(Event{Kind: KindResult, Text: m.Result})
		return
	}
	msg := m.Result
	if len(m.Errors) > 0 {
		msg = strings.Join(m.Errors, "; ")
	}
	if msg == "" {
		msg = m.Subtype
	}
	emit(c.limitError(msg, claudeCauses.error(m.APIErrorStatus, msg)))
}

// limitError is an error of cause, with when a usage limit resets: as
// the rate_limit_event said, else as the message says
// ("You've hit your session limit · resets 3pm (Europe/Paris)").
func (c *claudeDecoder) limitError(msg string, cause Cause) Event {
	e := Event{Kind: KindError, Text: msg, Cause: cause}
	if cause == CauseUsageLimit {
		e.ResetAt = c.limitResetAt
		if e.ResetAt.IsZero() {
			e.ResetAt = claudeResetAt(msg, clock())
		}
	}
	return e
}

// rateLimit reports a limit the account hit: "rejected" means no request
// goes through until resetsAt.
func (c *claudeDecoder) rateLimit(m claudeLine, emit func(Event)) {
	info := m.RateLimit
	if info == nil || info.Status != "rejected" {
		return
	}
	e := Event{Kind: KindError, Cause: CauseUsageLimit, Text: "usage limit reached"}
	if info.RateLimitType != "" {
		e.Text += " (" + info.RateLimitType + ")"
	}
	if info.ResetsAt > 0 {
		e.ResetAt = time.Unix(int64(info.ResetsAt), 0)
		c.limitResetAt = e.ResetAt
	}
	emit(e)
}

// claudeErrorCause maps the SDK's error names (SDKAssistantMessageError)
// to causes; "" for one it does not know.
func claudeErrorCause(name string) Cause {
	switch name {
	case "authentication_failed", "oauth_org_not_allowed":
		return CauseAuth
	case "billing_error":
		return CauseUsageLimit
	case "rate_limit":
		return CauseRateLimited
	case "overloaded":
		return CauseOverloaded
	case "":
		return ""
	}
	return CauseOther
}

// orOther is c, or CauseOther when c is "".
func orOther(c Cause) Cause {
	if c == "" {
		return CauseOther
	}
	return c
}

// claudeBlocks reads content: an array of blocks, or a plain string as
// one text block.
func claudeBlocks(raw json.RawMessage) []claudeBlock {
	var blocks []claudeBlock
	if json.Unmarshal(raw, &blocks) == nil {
		return blocks
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []claudeBlock{{Type: "text", Text: s}}
	}
	return nil
}

// blocksText joins the text of the text blocks.
func blocksText(blocks []claudeBlock) string {
	var parts []string
	for _, b := range blocks {
		if b.Type == "text" && b.Text != "" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// toolNames remembers the names of the tools called by the ids of their
// calls, so that a result, which carries only the id, is named. It
// forgets everything past a bound: a result unnamed is no harm.
type toolNames map[string]string

const maxToolNames = 256

func (t *toolNames) add(id, name string) {
	if id == "" {
		return
	}
	if *t == nil || len(*t) >= maxToolNames {
		*t = map[string]string{}
	}
	(*t)[id] = name
}

// take returns the name of the tool called id, and forgets it.
func (t toolNames) take(id string) string {
	name := t[id]
	delete(t, id)
	return name
}
