package agentstream

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// codexDecoder reads `codex exec --json`: one thread event a line
// (codex-rs/exec/src/exec_events.rs; the names checked in the binary of
// @openai/codex 0.169.0). It reports no model and no cost.
type codexDecoder struct {
	started map[string]bool // items whose call was emitted at item.started
	drift   drift
}

type codexLine struct {
	Type   string     `json:"type"`
	Thread string     `json:"thread_id"` // thread.started
	Item   *codexItem `json:"item"`
	Usage  *struct {
		Input       int64 `json:"input_tokens"`
		CachedInput int64 `json:"cached_input_tokens"`
		Output      int64 `json:"output_tokens"`
	} `json:"usage"`
	Error   *struct{ Message string } `json:"error"`   // turn.failed
	Message string                    `json:"message"` // error
}

// codexItem holds the fields of every item type read.
type codexItem struct {
	ID               string     `json:"id"`
	Type             string     `json:"type"`
	Text             string     `json:"text"`    // agent_message, reasoning
	Message          string     `json:"message"` // error
	Command          string     `json:"command"` // command_execution
	AggregatedOutput string     `json:"aggregated_output"`
	ExitCode         *int       `json:"exit_code"`
	Status           string     `json:"status"`
	Changes          []struct { // file_change
		Path string `json:"path"`
		Kind string `json:"kind"`
	} `json:"changes"`
	Server    string                    `json:"server"` // mcp_tool_call
	Tool      string                    `json:"tool"`
	Arguments json.RawMessage           `json:"arguments"`
	Result    json.RawMessage           `json:"result"`
	Error     *struct{ Message string } `json:"error"`
	Query     string                    `json:"query"` // web_search
}

func (c *codexDecoder) decode(line []byte, emit func(Event)) bool {
	var m codexLine
	if !typed(line) {
		return false
	}
	if json.Unmarshal(line, &m) != nil {
		return true // its JSON, of a shape not known: skipped
	}
	switch m.Type {
	case "thread.started":
		if m.Thread != "" {
			emit(Event{Kind: KindSession, Text: m.Thread})
		}
	case "item.started":
		if m.Item != nil {
			c.itemStarted(*m.Item, emit)
		}
	case "item.completed":
		if m.Item != nil {
			c.itemCompleted(*m.Item, emit)
		}
	case "turn.completed":
		if u := m.Usage; u != nil {
			// OpenAI counts cached tokens inside input_tokens.
			emit(Event{Kind: KindUsage, Usage: Usage{Input: u.Input - u.CachedInput, Output: u.Output, CacheRead: u.CachedInput}})
		}
	case "turn.failed":
		if m.Error != nil {
			emit(codexError(m.Error.Message))
		}
	case "error":
		c.error(m.Message, emit)
	case "turn.started", "item.updated":
		// A turn begins; an item (a plan's list) changed: nothing to read.
	default:
		c.drift.unknown(m.Type, emit)
	}
	return true
}

// itemStarted emits the call of a tool as it starts, so that -v shows a
// long command while it runs.
func (c *codexDecoder) itemStarted(it codexItem, emit func(Event)) {
	call, ok := codexCall(it)
	if !ok {
		return
	}
	if c.started == nil || len(c.started) >= maxToolNames {
		c.started = map[string]bool{}
	}
	c.started[it.ID] = true
	emit(call)
}

func (c *codexDecoder) itemCompleted(it codexItem, emit func(Event)) {
	switch it.Type {
	case "agent_message":
		emit(Event{Kind: KindAssistant, Text: it.Text})
		return
	case "error":
		emit(Event{Kind: KindNote, Text: "warning: " + it.Message})
		return
	case "reasoning":
		emit(Event{Kind: KindProgress})
		return
	}
	call, ok := codexCall(it)
	if !ok {
		return
	}
	result, hasResult := codexResult(it)
	switch {
	case !c.started[it.ID]:
		// A file change is reported once applied: no result follows.
		call.Done = !hasResult
		emit(call)
	case !hasResult:
		// Started, and over: the tool is done, with nothing to show.
		result, hasResult = Event{Kind: KindToolResult, Tool: call.Tool}, true
	}
	delete(c.started, it.ID)
	if hasResult {
		emit(result)
	}
}

// codexCall is the tool call an item is, if it is one.
func codexCall(it codexItem) (Event, bool) {
	call := Event{Kind: KindToolCall}
	switch it.Type {
	case "command_execution":
		call.Tool, call.Args = "shell", oneLine(it.Command, argsWidth)
	case "file_change":
		var changes []string
		for _, ch := range it.Changes {
			changes = append(changes, ch.Kind+" "+ch.Path)
		}
		call.Tool, call.Args = "edit", oneLine(strings.Join(changes, ", "), argsWidth)
	case "mcp_tool_call":
		call.Tool, call.Args = it.Server+"."+it.Tool, shortArgs(it.Arguments)
	case "web_search":
		call.Tool, call.Args = "web_search", oneLine(it.Query, argsWidth)
	default:
		return Event{}, false
	}
	return call, true
}

// codexResult is what a completed tool item returned; file changes and
// searches return nothing worth a line.
func codexResult(it codexItem) (Event, bool) {
	r := Event{Kind: KindToolResult, IsError: it.Status == "failed"}
	switch it.Type {
	case "command_execution":
		r.Tool, r.Text = "shell", shortResult(it.AggregatedOutput)
		if it.ExitCode != nil && *it.ExitCode != 0 {
			r.IsError = true
			r.Text = strings.TrimSpace("exit " + strconv.Itoa(*it.ExitCode) + " " + r.Text)
		}
	case "mcp_tool_call":
		r.Tool = it.Server + "." + it.Tool
		if it.Error != nil {
			r.IsError, r.Text = true, shortResult(it.Error.Message)
		} else {
			r.Text = shortResult(jsonText(it.Result))
		}
	default:
		return Event{}, false
	}
	return r, true
}

// codexReconnect is how codex reports a request it retries:
// "Reconnecting... 2/5 (stream disconnected before completion: …)", or,
// with no network, "Reconnecting... waiting for network" once a minute
// without end, and no count.
var codexReconnect = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^Reconnecting\.\.\.(?: (\d+)/(\d+))?`) })

// error is a top-level error event: a retry when it says it reconnects.
func (c *codexDecoder) error(msg string, emit func(Event)) {
	m := codexReconnect().FindStringSubmatch(msg)
	if m == nil {
		emit(codexError(msg))
		return
	}
	attempt, _ := strconv.Atoi(m[1])
	most, _ := strconv.Atoi(m[2])
	why := strings.TrimSpace(msg[len(m[0]):])
	if strings.HasPrefix(why, "(") {
		why = strings.TrimSuffix(why[1:], ")")
	}
	r := Retry{Attempt: attempt, Max: most, Error: why}
	if status, reason, ok := codexLastStatus(why); ok {
		r.Status, r.Error = status, reason
	}
	r.Cause = codexCauses.error(r.Status, why)
	if r.Cause == CauseOther {
		r.Cause = CauseNetwork // it reconnects: the stream was cut
	}
	emit(Event{Kind: KindRetry, Retry: r})
}

// codexRetryLimit is how codex words a request whose own retries are
// spent, "exceeded retry limit, last status: 429 Too Many Requests",
// inside a "Reconnecting... 1/5 (…)" after which it tries again (and may
// well succeed).
var codexRetryLimit = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^exceeded retry limit, last status: (\d{3})\s*([^,]*)`)
})

// codexLastStatus reads the HTTP status and its reason out of why, when
// it says a request's retries were spent: the retry's line then reads
// "retry 1/5: 429 Too Many Requests", not "exceeded retry limit", which
// looks like the end of the run though codex goes on.
func codexLastStatus(why string) (status int, reason string, ok bool) {
	m := codexRetryLimit().FindStringSubmatch(why)
	if m == nil {
		return 0, "", false
	}
	status, _ = strconv.Atoi(m[1])
	return status, strings.TrimSpace(m[2]), true
}

// codexError is an error codex reported, with when its limit resets if
// it says: "You've hit your usage limit. … try again at 3:05 PM."
func codexError(msg string) Event {
	e := Event{Kind: KindError, Text: msg, Cause: codexCauses.text(msg)}
	if e.Cause == CauseUsageLimit || e.Cause == CauseRateLimited {
		e.ResetEarliest, e.ResetAt = codexTryAgainAt(msg, clock())
	}
	return e
}

// codexTryAgain is the time codex says to come back at: the reset's time
// on the local clock cut to its minute ("%-I:%M %p", 0.169.0 to 0.171.0),
// with the day before it when that is not today ("%b %-d" and the day's
// suffix, ", %Y %-I:%M %p": "Nov 24th, 2026 9:00 AM").
var codexTryAgain = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`try again at (?:([A-Z][a-z]{2}) (\d{1,2})(?:st|nd|rd|th), (\d{4}) )?(\d{1,2}):(\d{2})\s*([AP]M)`)
})

// codexTryAgainAt is the minute msg names, on the local clock codex
// prints it in: the limit resets from its start (codex cuts the reset's
// seconds off) and is surely over at its end. Without a day, it is the
// next time the clock shows that minute after now; both are zero when msg
// names none.
func codexTryAgainAt(msg string, now time.Time) (from, by time.Time) {
	m := codexTryAgain().FindStringSubmatch(msg)
	if m == nil {
		return time.Time{}, time.Time{}
	}
	hour, minute, ok := clock12(m[4], m[5], m[6] == "PM")
	if !ok {
		return time.Time{}, time.Time{}
	}
	if m[1] == "" {
		by = nextEndOfMinute(now, hour, minute, now.Location())
		return by.Add(-time.Minute), by
	}
	month, err := time.Parse("Jan", m[1])
	day, _ := strconv.Atoi(m[2])
	year, _ := strconv.Atoi(m[3])
	if err != nil || day < 1 || day > 31 {
		return time.Time{}, time.Time{}
	}
	from = time.Date(year, month.Month(), day, hour, minute, 0, 0, now.Location())
	return from, from.Add(time.Minute)
}

// clock12 reads a time of a 12-hour clock, "3" "05" pm, as the hour and
// minute of a 24-hour one; ok is false for no such time.
func clock12(hourText, minuteText string, pm bool) (hour, minute int, ok bool) {
	hour, _ = strconv.Atoi(hourText)
	minute, _ = strconv.Atoi(minuteText)
	if hour < 1 || hour > 12 || minute > 59 {
		return 0, 0, false
	}
	hour %= 12
	if pm {
		hour += 12
	}
	return hour, minute, true
}

// nextEndOfMinute is the end of the minute hour:minute in loc next shows
// after now (today's, unless it was more than five minutes ago): a CLI
// names its reset to the minute, so the limit may last into it.
func nextEndOfMinute(now time.Time, hour, minute int, loc *time.Location) time.Time {
	local := now.In(loc)
	at := time.Date(local.Year(), local.Month(), local.Day(), hour, minute, 0, 0, loc)
	if at.Before(now.Add(-5 * time.Minute)) {
		at = at.AddDate(0, 0, 1)
	}
	return at.Add(time.Minute)
}
