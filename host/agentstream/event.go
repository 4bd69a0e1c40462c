package agentstream

import (
	"fmt"
	"time"
)

// A Kind says what an Event is.
type Kind uint8

// The kinds of events, whatever the CLI.
const (
	// KindOutput is a line that is not part of the CLI's JSON stream (a
	// warning on stderr, a stack trace), in Text; in the Text format, a
	// chunk of the output as it came.
	KindOutput Kind = iota
	// KindAssistant is text the model wrote, in Text. Continues is true
	// when it goes on from the previous assistant text without a break (a
	// streamed delta).
	KindAssistant
	// KindToolCall is a tool the agent called: Tool and Args, one short line.
	KindToolCall
	// KindToolResult is what a tool returned, shortened to one line in
	// Text; IsError when the tool failed.
	KindToolResult
	// KindRetry is a failed request the CLI retries itself: Retry.
	KindRetry
	// KindUsage is tokens spent, and the cost when HasCost, to add to the
	// iteration's totals.
	KindUsage
	// KindResult is the CLI's final text, in Text.
	KindResult
	// KindError is an error the CLI reported: Text, Cause, and ResetAt when
	// the CLI says when a limit resets.
	KindError
	// KindModel is the name of the model, in Text.
	KindModel
	// KindNote is a remark that is neither the model's nor an error: a
	// warning of the CLI's, or the decoder's own note of a line it dropped.
	KindNote
	// KindProgress is work the transcript does not show: the model's
	// thinking, a piece of a message or a tool's output still coming. It
	// says the agent is working (ShowsWork), nothing more.
	KindProgress
	// KindSession is the CLI's id of its session (claude's and gemini's
	// session_id, codex's thread_id, opencode's sessionID, copilot's
	// sessionId), in Text: gen_ai.conversation.id in the trace.
	KindSession
)

var kindNames = [...]string{"output", "assistant", "tool_call", "tool_result", "retry", "usage", "result", "error", "model", "note", "progress", "session"}

// String returns the kind's name, as in "tool_call".
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", k)
}

// An Event is one thing a CLI reported. Which fields are set depends on
// its Kind.
type Event struct {
	Kind      Kind
	Text      string
	Continues bool   // KindAssistant: continues the previous text
	Tool      string // KindToolCall, KindToolResult when known
	Args      string // KindToolCall: the arguments, one short line
	// Done is set on a KindToolCall reported once the tool is done: no
	// KindToolResult follows it (codex's file changes).
	Done    bool
	IsError bool // KindToolResult: the tool failed
	Retry   Retry
	Usage   Usage
	Cost    float64 // KindUsage: dollars, when HasCost
	HasCost bool
	Cause   Cause     // KindError
	ResetAt time.Time // KindError: when the limit resets, if the CLI said
	// ResetEarliest is, for a CLI that names its reset rounded (codex, to
	// the minute), the earliest the limit may reset: ResetAt is then the
	// latest. Zero when ResetAt is exact.
	ResetEarliest time.Time
}

// Usage counts tokens. Input excludes the tokens read from or written to
// the prompt cache, which are counted apart, so the four add up to what
// the model read and wrote.
type Usage struct {
	Input      int64
	Output     int64
	CacheRead  int64
	CacheWrite int64
}

// Add returns the sum of u and v.
func (u Usage) Add(v Usage) Usage {
	return Usage{u.Input + v.Input, u.Output + v.Output, u.CacheRead + v.CacheRead, u.CacheWrite + v.CacheWrite}
}

// IsZero reports whether no token was counted.
func (u Usage) IsZero() bool { return u == Usage{} }

// Retry is a request the CLI retries: the attempt (from 1), the most the
// CLI will make (0 when it did not say), the delay before the next one,
// the HTTP status (0 when the request got no response), the CLI's name of
// the error, and its cause.
type Retry struct {
	Attempt int
	Max     int
	Delay   time.Duration
	Status  int
	Error   string
	Cause   Cause
}

// A Cause is why a request or a run failed, in words a user can act on.
type Cause string

// The causes of errors and retries. The empty Cause is "no error".
const (
	CauseAuth        Cause = "auth"         // not logged in, a wrong or missing key
	CauseRateLimited Cause = "rate_limited" // too many requests for now
	CauseUsageLimit  Cause = "usage_limit"  // a plan's limit or quota: wait for the reset
	CauseNetwork     Cause = "network"      // no answer: the server or the network is down
	CauseOverloaded  Cause = "overloaded"   // the provider is overloaded
	CauseOther       Cause = "other"
)
