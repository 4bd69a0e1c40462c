package agentstream

import "fmt"

// drift notes, once in a run, an event type a decoder does not know: the
// CLIs move (claude and codex publish a version a week), and a type that
// is new is the first sign that a decoder reads a CLI newer than the one
// it was written for. Once, because a CLI that prints a new type prints
// it on every turn; the types a decoder knows and skips stay silent.
type drift struct {
	cli     string      // "claude"
	written *causeTable // the CLI and version the decoder was written for
	version string      // the CLI's version, when it named it (claude's init)
	told    bool
}

// unknown notes typ, an event type the decoder does not know, unless a
// type was noted already in this run.
func (d *drift) unknown(typ string, emit func(Event)) {
	if d.told {
		return
	}
	d.told = true
	emit(Event{Kind: KindNote, Text: d.note(typ)})
}

// note is the line -v shows: "claude 2.1.332 printed an event type rooda
// does not know, "xyz": its decoder was written for
// @anthropic-ai/claude-code@2.1.332 and may be older than this CLI".
func (d *drift) note(typ string) string {
	who := d.cli
	if d.version != "" {
		who += " " + d.version
	}
	return fmt.Sprintf("%s printed an event type rooda does not know, %q: its decoder was written for %s and may be older than this CLI",
		who, oneLine(typ, 80), d.written.source)
}
