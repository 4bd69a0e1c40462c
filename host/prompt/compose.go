package prompt

import (
	"errors"
	"fmt"
	"strings"
)

// rule is the 63-character double line that frames every section.
var rule = strings.Repeat("═", 63)

// Compose returns the exact prompt for one iteration of p: the preamble,
// the CONTEXT section when context values are given, then each phase that
// has content. The same inputs give the same bytes.
//
// Compose does not re-validate p (Validate does that before a run); it
// reports what it meets, in seed 000's composition-time wording.
func Compose(p Procedure, it Iteration, context []string) (string, error) {
	return ComposeWith(p, it, Sections{Context: GivenValues(context)})
}

// Sections are what a prompt holds besides its preamble and phases, in
// the order they come.
type Sections struct {
	// Context holds the context values: texts and files.
	Context []ContextValue
	// Running holds the blocks of context the user added while the loop
	// runs (seed 004), as they were recorded.
	Running []string
	// Digest states the facts of the previous iteration (seed 003).
	Digest string
	// Promises are the words the preamble asks the agent to signal with;
	// the zero value asks for SUCCESS and FAILURE.
	Promises Promises
}

// ComposeWith is Compose with every section: CONTEXT, CONTEXT ADDED WHILE
// RUNNING, PREVIOUS ITERATION, then the phases. A section with nothing in
// it is left out, so without them the prompt is seed 000's.
func ComposeWith(p Procedure, it Iteration, s Sections) (string, error) {
	var b strings.Builder
	writePreamble(&b, p.Name, it, s.Promises)
	blocks, err := loadContext(s.Context)
	if err != nil {
		return "", fmt.Errorf("failed to load context: %w", err)
	}
	if len(blocks) > 0 {
		writeSection(&b, []string{"CONTEXT"}, strings.Join(blocks, "\n\n"))
	}
	if running := trimmedBlocks(s.Running); len(running) > 0 {
		writeSection(&b, []string{"CONTEXT ADDED WHILE RUNNING"}, strings.Join(running, "\n\n"))
	}
	if digest := trimBlankLines(s.Digest); digest != "" {
		writeSection(&b, []string{"PREVIOUS ITERATION", "Facts observed by rooda, not judgements."}, digest)
	}
	for _, ph := range Phases {
		text, err := composePhase(p, ph)
		if err != nil {
			return "", fmt.Errorf("failed to compose %s phase: %w", ph, err)
		}
		if text != "" {
			title := fmt.Sprintf("PHASE %d: %s", ph.Number(), strings.ToUpper(ph.String()))
			writeSection(&b, []string{title, ph.Directive()}, text)
		}
	}
	return b.String(), nil
}

// writePreamble writes seed 000's preamble with seed 004's iteration line,
// naming the promise words the loop looks for: without custom ones, the
// bytes are seed 000's. It is the host's: nothing a procedure's fragments
// say can change it.
func writePreamble(b *strings.Builder, name string, it Iteration, promises Promises) {
	b.WriteString(rule + "\nROODA PROCEDURE EXECUTION\n" + rule + "\n\n")
	b.WriteString("Procedure: " + name + "\n")
	b.WriteString("Iteration: " + it.String() + "\n\n")
	b.WriteString(`Your Role:
You are an AI coding agent executing a structured OODA loop procedure.
This is NOT a template or example - this is an EXECUTABLE PROCEDURE.
You must complete all phases and produce concrete outputs.

Success Signaling:
- When you complete all tasks successfully, output: ` + tags(promises.SuccessWords()) + `
- If you cannot proceed due to blockers, output: ` + tags(promises.FailureWords()) + `
- Explanations should come AFTER the signal, not embedded in the tag
- The loop orchestrator uses these signals to determine iteration outcome.
`)
}

// String renders the iteration as the preamble shows it: "3 of 10",
// "7 (unlimited)", "2 of 10 (minimum 3)", "2 (unlimited, minimum 3)".
func (it Iteration) String() string {
	switch {
	case it.Max <= 0 && it.Min > 1:
		return fmt.Sprintf("%d (unlimited, minimum %d)", it.Number, it.Min)
	case it.Max <= 0:
		return fmt.Sprintf("%d (unlimited)", it.Number)
	case it.Min > 1:
		return fmt.Sprintf("%d of %d (minimum %d)", it.Number, it.Max, it.Min)
	}
	return fmt.Sprintf("%d of %d", it.Number, it.Max)
}

// writeSection writes a blank line, then the header lines between two
// rules, then the content, which starts right after the closing rule.
func writeSection(b *strings.Builder, header []string, content string) {
	b.WriteString("\n" + rule + "\n")
	for _, line := range header {
		b.WriteString(line + "\n")
	}
	b.WriteString(rule + "\n" + content + "\n")
}

// composePhase returns a phase's fragments, each trimmed, joined by one
// blank line; fragments that are empty after trimming are left out, so
// an all-empty phase gives "".
func composePhase(p Procedure, ph Phase) (string, error) {
	var parts []string
	for i, f := range p.Phases[ph] {
		text, err := f.render(ph)
		if err != nil {
			return "", composeError(p, ph, i, f, err)
		}
		if text = strings.TrimSpace(text); text != "" {
			parts = append(parts, text)
		}
	}
	return strings.Join(parts, "\n\n"), nil
}

// render returns the fragment's text with its template, if any, executed.
func (f Fragment) render(ph Phase) (string, error) {
	text, err := f.text(ph)
	if err != nil || f.Parameters == nil {
		return text, err
	}
	t, err := parseTemplate(text)
	if err != nil {
		return "", err
	}
	return execute(t, text, f.Parameters)
}

// composeError words an error met while composing as seed 000 does, then
// names the fragment on a line of its own, since a phase may have many.
func composeError(p Procedure, ph Phase, i int, f Fragment, err error) error {
	msg := err.Error()
	var te *templateError
	if errors.As(err, &te) {
		msg = "failed to process template: " + te.cause
	} else {
		msg = "failed to load fragment: " + msg
	}
	where := fmt.Sprintf("In procedure %s, %s phase fragment %d (%s)", p.Name, ph, i, f.label())
	if te != nil && te.line != "" {
		where += ", line " + te.line
	}
	return fmt.Errorf("%s\n%s", msg, where)
}

// label names a fragment for messages: its path, or "inline content".
func (f Fragment) label() string {
	if f.Path != "" {
		return f.Path
	}
	return "inline content"
}

func trimmedBlocks(blocks []string) []string {
	var out []string
	for _, b := range blocks {
		if t := trimBlankLines(b); t != "" {
			out = append(out, t)
		}
	}
	return out
}
