package agentstream

import (
	"fmt"
	"io"
	"strings"
	"time"

	"rooda/host/units"
)

// renderer writes the readable transcript: assistant text as it is, every
// other event on a line of its own, the totals at the end.
type renderer struct {
	w         io.Writer
	raw       bool  // the Text format: output is written as it comes
	err       error // the first error writing to w
	midLine   bool  // the last text written did not end its line
	lastError string
	assistant bool // assistant text was written
	// retries is the run of identical retry lines going on: each is
	// shown, the repeats with their count and how long since the first
	// ("(×7, 6m3s)"), so that a CLI that retries without end (codex's
	// "waiting for network") is not a transcript that looks frozen.
	retries struct {
		line  string
		count int
		since time.Time
	}
}

// event writes e's part of the transcript.
func (r *renderer) event(e Event) {
	if e.ShowsWork() {
		r.retries.line, r.retries.count = "", 0
	}
	switch e.Kind {
	case KindOutput:
		if !r.raw {
			r.endLine()
		}
		r.text(e.Text)
	case KindAssistant:
		if !e.Continues {
			r.endLine()
		}
		r.text(e.Text)
		r.assistant = true
	case KindResult:
		// The final text repeats the last message: shown only when
		// there was none.
		if !r.assistant {
			r.line(e.Text)
		}
	case KindUsage, KindProgress, KindSession:
		// The totals come once, at the end; work not shown is not shown.
	case KindRetry:
		r.line(r.retry(describe(e)))
	case KindError:
		// A CLI may say the same error twice (a message, then its result).
		if line := describe(e); line != r.lastError {
			r.line(line)
			r.lastError = line
		}
	default:
		r.line(describe(e))
	}
}

// describe is the one line of an event that is not text.
func describe(e Event) string {
	switch e.Kind {
	case KindToolCall:
		if e.Args == "" {
			return "→ " + e.Tool
		}
		return "→ " + e.Tool + ": " + e.Args
	case KindToolResult:
		switch {
		case e.IsError:
			return "  ← error: " + e.Text
		case e.Text == "":
			return "  ← ok"
		}
		return "  ← " + e.Text
	case KindRetry:
		return e.Retry.Describe()
	case KindError:
		s := fmt.Sprintf("error (%s): %s", e.Cause, oneLine(e.Text, 300))
		if !e.ResetAt.IsZero() {
			s += " · resets " + e.ResetAt.UTC().Format("2006-01-02 15:04 UTC")
		}
		return s
	case KindModel:
		return "model: " + e.Text
	}
	return "[" + e.Text + "]"
}

// retry is a retry's line, with the count of the run of identical ones
// it ends, when it repeats the one before.
func (r *renderer) retry(line string) string {
	now := clock()
	if line != r.retries.line {
		r.retries.line, r.retries.count, r.retries.since = line, 1, now
		return line
	}
	r.retries.count++
	return fmt.Sprintf("%s (×%d, %s)", line, r.retries.count, units.Duration(max(now.Sub(r.retries.since), 0).Round(time.Second)))
}

// Describe is the retry as the transcript shows it: "retry 1/10 in 30s:
// 429 rate_limit"; "retry: waiting for network" when the CLI gave no
// attempt.
func (r Retry) Describe() string {
	s := "retry"
	if r.Attempt > 0 {
		s += fmt.Sprintf(" %d", r.Attempt)
	}
	if r.Max > 0 {
		s += fmt.Sprintf("/%d", r.Max)
	}
	if r.Delay > 0 {
		// A CLI's delays are jittered (542.8ms): a tenth of a second says
		// enough.
		s += " in " + units.Duration(r.Delay.Round(100*time.Millisecond))
	}
	why := strings.TrimSpace(fmt.Sprintf("%s %s", statusText(r.Status), r.Error))
	switch {
	case why == "" && r.Cause == CauseNetwork:
		why = "no response (network)"
	case why == "":
		why = string(r.Cause)
	}
	return s + ": " + oneLine(why, 200)
}

// statusText is an HTTP status as text, "" for none.
func statusText(status int) string {
	if status == 0 {
		return ""
	}
	return fmt.Sprint(status)
}

// totals writes the tokens and the cost, when there were any.
func (r *renderer) totals(s Summary) {
	if s.Usage.IsZero() && !s.CostReported {
		return
	}
	u := s.Usage
	line := fmt.Sprintf("tokens: %d in, %d out, %d cache read, %d cache write", u.Input, u.Output, u.CacheRead, u.CacheWrite)
	if s.CostReported {
		line += " · cost " + units.Dollars(s.CostUSD)
	}
	r.line(line)
}

// line writes s on a line of its own.
func (r *renderer) line(s string) {
	r.endLine()
	r.text(s + "\n")
}

// endLine ends a line left open by text.
func (r *renderer) endLine() {
	if r.midLine {
		r.text("\n")
	}
}

// text writes s as it is.
func (r *renderer) text(s string) {
	if s == "" {
		return
	}
	r.midLine = !strings.HasSuffix(s, "\n")
	if r.err != nil {
		return
	}
	_, r.err = io.WriteString(r.w, s)
}
