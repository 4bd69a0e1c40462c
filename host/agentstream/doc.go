// Package agentstream decodes what an AI coding CLI prints into one model of
// events, whatever the CLI: assistant text, tool calls and their results,
// retries, token usage and cost, the final text, errors with a cause, the
// model's name.
//
// Each CLI has a structured output of its own — claude's stream-json,
// codex's exec JSON, gemini's stream-json, opencode's and copilot's JSON
// events — and a plain text one. A Decoder is the io.Writer the agent's
// output is copied into as it arrives, in chunks of any size: it splits
// lines itself, keeps a line that is not JSON (a warning on stderr, a
// stack trace) as output, and drops, with a note, a line longer than its
// bound, so that its memory does not grow with what the agent prints. It
// renders a readable transcript as events arrive (for -v and the record)
// and keeps a Summary the host reads once the agent has exited: the
// decoded assistant text, in which the promise signals are looked for (an
// escaped "\u003cpromise\u003e" in a JSON string is decoded; a tool result
// or the prompt echoed back is not assistant text), the tokens, the cost
// when the CLI reports one, the retries, and the last error with its cause
// and, when the CLI says it, when a usage limit resets.
//
// The shapes decoded were read in the CLIs' own code and typings:
// @anthropic-ai/claude-code 2.1.197, @openai/codex 0.169.0,
// @google/gemini-cli 0.61.0, opencode-ai 1.18.33; @github/copilot 1.0.102's
// from real runs against a local server. Fields a CLI adds later
// are ignored; a line whose shape is unknown is skipped, not an error.
package agentstream
