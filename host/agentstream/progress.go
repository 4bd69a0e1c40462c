package agentstream

// What an event says of the agent's state, for the watch that stops an
// agent which waits too long or cannot succeed: the bytes a CLI prints
// say little (codex writes "Reconnecting..." every minute with its server
// down), its events say what it is doing.

// ShowsWork reports whether e shows the agent at work: text, thinking, a
// tool called or done, tokens counted, a final answer. A retry, a
// reconnect, a warning, the model's name or a line outside the CLI's JSON
// does not: a CLI that prints only those is waiting, not working.
func (e Event) ShowsWork() bool {
	switch e.Kind {
	case KindAssistant, KindToolCall, KindToolResult, KindUsage, KindResult, KindProgress:
		return true
	}
	return false
}

// Fatal reports whether e says the agent cannot succeed in this run,
// whatever it does next: its login was refused (claude's api_retry with a
// 401 or 403, an auth_status error, any CLI's authentication error). A
// CLI that retries such a refusal only spends time: claude tries ten
// times over three minutes.
func (e Event) Fatal() bool {
	switch e.Kind {
	case KindRetry:
		return e.Retry.Cause == CauseAuth
	case KindError:
		return e.Cause == CauseAuth
	}
	return false
}

// OpensTool reports whether e is a tool call whose result is still to
// come: the agent now waits on the tool, not on the model.
func (e Event) OpensTool() bool { return e.Kind == KindToolCall && !e.Done }

// ClosesTool reports whether e is a tool's result.
func (e Event) ClosesTool() bool { return e.Kind == KindToolResult }
