package prompt

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"text/template"

	"rooda/host/suggest"
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
	t, text, err := f.parse(ph)
	if err != nil || t == nil {
		return err
	}
	if _, err := execute(t, text, f.Parameters); err != nil {
		return fmt.Errorf("template execution error: %w%s", err, f.atLine(err))
	}
	return nil
}

// parse loads the fragment and, when it is a template, parses it and
// checks that it prints no name its parameters lack; t is nil for plain
// text.
func (f Fragment) parse(ph Phase) (t *template.Template, text string, err error) {
	text, err = f.text(ph)
	if err != nil || f.Parameters == nil {
		return nil, text, err
	}
	if t, err = parseTemplate(text); err != nil {
		return nil, text, fmt.Errorf("template parse error: %w%s", err, f.atLine(err))
	}
	if unknown := unknownParameters(t, f.Parameters); len(unknown) > 0 {
		return nil, text, unknownParameterError(unknown, f.Parameters)
	}
	return t, text, nil
}

// CheckParameterNames checks what can be known of f when only the names
// of its parameters are, not their values (a script's check, which runs
// nothing): it loads, its template parses, and it prints no name its
// parameters lack.
func CheckParameterNames(f Fragment) error {
	_, _, err := f.parse(f.phase())
	return err
}

// unknownParameterError tells each name a template prints that its
// parameters lack, with the one it most likely meant, and how to say that
// a parameter is optional.
func unknownParameterError(unknown []string, params map[string]any) error {
	given := slices.Sorted(maps.Keys(params))
	have := "it gives none"
	if len(given) > 0 {
		have = "it gives " + strings.Join(given, ", ")
	}
	var lines []string
	for _, name := range unknown {
		line := fmt.Sprintf("template parameter error: {{.%s}} is not a parameter of this fragment (%s)", name, have)
		if near := suggest.Closest(name, given); near != "" {
			line += fmt.Sprintf("; did you mean .%s?", near)
		}
		lines = append(lines, line)
	}
	return fmt.Errorf("%s\nGive it in the parameters (null or None prints nothing), or test it with {{if .%s}} to make it optional.", strings.Join(lines, "\n"), unknown[0])
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
func CheckFragment(f Fragment) error { return f.check(f.phase()) }

// phase is the phase whose embedded library a builtin: reference names,
// Observe for any other fragment.
func (f Fragment) phase() Phase {
	if p, ok := ParsePhase(refPhase(f.Path)); ok {
		return p
	}
	return Observe
}
