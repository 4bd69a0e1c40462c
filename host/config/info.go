package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"rooda/host/prompt"
	"rooda/host/shown"
)

// WriteList writes one line per procedure, name and summary, the names
// padded to the longest so the summaries line up. Both come from a
// workspace's configuration: they are shown safe for a terminal.
func (c *Config) WriteList(w io.Writer) error {
	names := c.ProcedureNames()
	width := 0
	for _, n := range names {
		width = max(width, len(shown.Line(n)))
	}
	for _, n := range names {
		if _, err := fmt.Fprintf(w, "%-*s  %s\n", width, shown.Line(n), shown.Line(c.Procedures[n].summary())); err != nil {
			return err
		}
	}
	return nil
}

// SummarizeScripts gives each script procedure that has no summary the
// one doc says of its script (host.Summary: its docstring's first line,
// or its comment header's first sentence), so that list and info show
// what the script says of itself.
func (c *Config) SummarizeScripts(doc func(path string) string) {
	for _, p := range c.Procedures {
		if p.Script.V != "" && p.Summary.V == "" {
			p.Summary.V = doc(p.Script.V)
		}
	}
}

func (p *Procedure) summary() string {
	if p.Summary.V == "" {
		return "(no summary)"
	}
	return p.Summary.V
}

// ProcedureJSON is one procedure in "rooda list --json".
type ProcedureJSON struct {
	Name    string `json:"name"`
	Display string `json:"display,omitempty"`
	Summary string `json:"summary,omitempty"`
	Source  string `json:"source"`
	Script  string `json:"script,omitempty"`
}

// WriteListJSON writes the procedures as a JSON array, sorted by name,
// safe for a terminal (shown.JSON).
func (c *Config) WriteListJSON(w io.Writer) error {
	out := []ProcedureJSON{}
	for _, n := range c.ProcedureNames() {
		p := c.Procedures[n]
		out = append(out, ProcedureJSON{n, p.Display.V, p.Summary.V, p.definedIn(), p.Script.V})
	}
	var data bytes.Buffer
	enc := json.NewEncoder(&data)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		return err
	}
	_, err := w.Write(shown.JSON(data.Bytes()))
	return err
}

// WriteInfo describes a procedure: what it is for, the fragments of each
// phase, the settings a run would use and where each came from, and how
// to run it. Problems with its fragments are described after, and returned.
// All of it comes from a workspace's configuration or script: it is shown
// safe for a terminal, each one-line field on its one line.
// A script procedure is described by script, which writes what the
// script says of itself and of each loop it runs, in place of settings
// that the script's own iterate() calls may override.
func (c *Config) WriteInfo(w io.Writer, name string, script func(w io.Writer, path string) error) error {
	s, err := c.Resolve(name)
	if err != nil {
		return err
	}
	p := s.Procedure
	b := &strings.Builder{}
	fmt.Fprintf(b, "Procedure: %s\n", shown.Line(p.Name))
	fmt.Fprintf(b, "Display Name: %s\n", shown.Line(or(p.Display.V, p.Name)))
	fmt.Fprintf(b, "Summary: %s\n", shown.Line(p.summary()))
	fmt.Fprintf(b, "Defined in: %s\n", p.definedIn())
	if p.Description.V != "" {
		fmt.Fprintf(b, "\nDescription:\n%s\n", indent(shown.Wrap(p.Description.V, 76), "  "))
	}
	var scriptErr error
	if p.Script.Set {
		fmt.Fprintf(b, "\nScript: %s (%s)\n", shown.Line(p.Script.V), p.Script.Source)
		scriptErr = script(b, p.Script.V)
	} else {
		b.WriteString("\nPhases:\n")
		for _, ph := range prompt.Phases {
			writePhase(b, ph, p.Phases[ph])
		}
		b.WriteString("\nSettings:\n")
		for _, l := range s.Lines() {
			b.WriteString("  " + shown.Line(l) + "\n")
		}
		if note := AliasNote(s.AIAlias); note != "" {
			fmt.Fprintf(b, "  Note: %s\n", note)
		}
	}
	b.WriteString("\nRun it:\n")
	if !s.AICommand.Set {
		fmt.Fprintf(b, "  rooda run %s --ai-cmd-alias NAME    (aliases: %s)\n", shown.Line(p.Name), shown.Line(strings.Join(c.AliasNames(), ", ")))
	} else {
		fmt.Fprintf(b, "  rooda run %s\n", shown.Line(p.Name))
	}
	fmt.Fprintf(b, "  rooda run %s --dry-run              (show the prompt, run nothing)\n", shown.Line(p.Name))
	if _, err := io.WriteString(w, shown.Text(b.String())); err != nil {
		return err
	}
	if scriptErr != nil {
		return scriptErr
	}
	return c.Check(name)
}

func writePhase(b *strings.Builder, ph prompt.Phase, v Value[[]prompt.Fragment]) {
	if !v.Set || len(v.V) == 0 {
		fmt.Fprintf(b, "  %s: (none)\n", ph)
		return
	}
	fmt.Fprintf(b, "  %s (%s):\n", ph, v.Source)
	for _, f := range v.V {
		b.WriteString("    " + fragmentLabel(f) + "\n")
	}
}

// fragmentLabel is a fragment in one line: its path, or the start of its
// inline content, and the names of its parameters.
func fragmentLabel(f prompt.Fragment) string {
	label := shown.Line(f.Path)
	if f.Content != "" {
		first, _, more := strings.Cut(strings.TrimSpace(f.Content), "\n")
		if len(first) > 60 {
			first, more = first[:57], true
		}
		if more {
			first += "…"
		}
		label = fmt.Sprintf("content: %q", first)
	}
	if f.Parameters != nil {
		label += fmt.Sprintf(" (template; parameters: %s)", shown.Line(strings.Join(slices.Sorted(maps.Keys(f.Parameters)), ", ")))
	}
	return label
}

// definedIn lists the tiers that shaped the procedure, lowest first.
func (p *Procedure) definedIn() string {
	var names []string
	add := func(s Source) {
		if str := s.String(); !slices.Contains(names, str) {
			names = append(names, str)
		}
	}
	for _, f := range p.fields() {
		if f.isSet() {
			add(f.origin())
		}
	}
	for _, ph := range p.Phases {
		if ph.Set {
			add(ph.Source)
		}
	}
	if p.Script.Set {
		add(p.Script.Source)
	}
	return strings.Join(names, ", ")
}

func or(s, dflt string) string {
	if s == "" {
		return dflt
	}
	return s
}

func indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}

// AliasNote is what a user must know about a built-in alias before it
// works, or "".
func AliasNote(alias string) string {
	return aliasNotes[alias]
}
