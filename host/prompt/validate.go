package prompt

import (
	"fmt"
	"strings"
)

// Validate checks, before anything runs, that every fragment of p can be
// loaded and that every template parses and executes with its parameters.
// It reports every problem, not just the first, each naming the procedure,
// the phase and the fragment's index, in seed 000's words.
func Validate(p Procedure) error {
	var problems Problems
	for _, c := range CheckFragments(p) {
		if c.Err != nil {
			problems = append(problems, fmt.Errorf("procedure %s: %s phase fragment %d%s: %w", p.Name, c.Phase, c.Index, c.Fragment.origin(), c.Err))
		}
	}
	if len(problems) == 0 {
		return nil
	}
	return problems
}

// FragmentCheck is what checking one fragment found.
type FragmentCheck struct {
	Phase    Phase
	Index    int
	Fragment Fragment
	Err      error
}

// Label names the checked fragment: its path, or "inline content".
func (c FragmentCheck) Label() string { return c.Fragment.label() }

// CheckFragments checks every fragment of p, in phase order, and says of
// each whether it loads and, for a template, executes: a dry run lists
// them one by one.
func CheckFragments(p Procedure) []FragmentCheck {
	var checks []FragmentCheck
	for _, ph := range Phases {
		for i, f := range p.Phases[ph] {
			checks = append(checks, FragmentCheck{Phase: ph, Index: i, Fragment: f, Err: f.check(ph)})
		}
	}
	return checks
}

// check loads the fragment and tries its template. Parameters are fixed
// before the run starts, so executing here finds at load time what would
// otherwise fail at the first iteration.
func (f Fragment) check(ph Phase) error {
	text, err := f.text(ph)
	if err != nil || f.Parameters == nil {
		return err
	}
	t, err := parseTemplate(text)
	if err != nil {
		return fmt.Errorf("template parse error: %w%s", err, f.atLine(err))
	}
	if _, err := execute(t, text, f.Parameters); err != nil {
		return fmt.Errorf("template execution error: %w%s", err, f.atLine(err))
	}
	return nil
}

// origin returns " (file:line)" for a fragment defined in a file.
func (f Fragment) origin() string {
	if f.Origin == "" {
		return ""
	}
	return " (" + f.Origin + ")"
}

// atLine returns "\nAt line N of <fragment>" for an error in a template of
// several lines, and "" otherwise.
func (f Fragment) atLine(err error) string {
	te, ok := err.(*templateError)
	if !ok || te.line == "" {
		return ""
	}
	return fmt.Sprintf("\nAt line %s of %s", te.line, f.label())
}

// Problems is every problem Validate found, told one after another with a
// blank line between.
type Problems []error

func (ps Problems) Error() string {
	msgs := make([]string, len(ps))
	for i, p := range ps {
		msgs[i] = p.Error()
	}
	return strings.Join(msgs, "\n\n")
}

// Add appends err to ps: each of its problems if it is Problems itself, so
// that lists gathered from several places stay flat. A nil err is nothing.
func (ps *Problems) Add(err error) {
	if many, ok := err.(Problems); ok {
		*ps = append(*ps, many...)
	} else if err != nil {
		*ps = append(*ps, err)
	}
}

// Unwrap lets errors.Is and errors.As see each problem.
func (ps Problems) Unwrap() []error { return ps }

// CheckFragment checks one fragment as Validate does, before it is used:
// it loads, and a template parses and executes with its parameters.
func CheckFragment(f Fragment) error {
	ph := Observe
	if p, ok := ParsePhase(refPhase(f.Path)); ok {
		ph = p
	}
	return f.check(ph)
}
