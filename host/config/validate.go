package config

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"slices"
	"strings"

	"rooda/host/prompt"
	"rooda/host/suggest"
)

// validate checks what only the merged configuration can tell: that every
// alias named anywhere exists, and that every procedure has something to
// run. Values were range-checked as they were read.
func (c *Config) validate() error {
	var problems prompt.Problems
	problems.Add(c.checkAlias(AICmdAlias.In(&c.Run), ""))
	problems.Add(c.checkAlias(AICmdAlias.In(&c.Loop), "loop.ai_cmd_alias"))
	for _, name := range c.ProcedureNames() {
		p := c.Procedures[name]
		problems.Add(c.checkAlias(AICmdAlias.In(&p.Limits), "procedures."+name+".ai_cmd_alias"))
		if !p.HasPhases() && !p.Script.Set {
			problems.Add(fmt.Errorf("%s: procedures.%s has no phases and no script: give it observe, orient, decide and act fragments, or a script",
				p.firstPlace(), name))
		}
	}
	if len(problems) > 0 {
		return problems
	}
	return nil
}

func (c *Config) checkAlias(ref Value[string], key string) error {
	if !ref.Set {
		return nil
	}
	for _, name := range AliasNames(ref.V) {
		if _, ok := c.Aliases[name]; ok {
			continue
		}
		names := c.AliasNames()
		msg := fmt.Sprintf("unknown AI command alias %q", name)
		if near := suggest.Closest(name, names); near != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", near)
		}
		msg += "\nAvailable aliases: " + strings.Join(names, ", ")
		return fmt.Errorf("%s: %s", where(ref, key), msg)
	}
	return nil
}

// where locates a value for an error: "file:line: key" for a file,
// otherwise the variable or flag that set it.
func where[T any](v Value[T], key string) string {
	if v.Line > 0 && key != "" {
		return v.Where() + ": " + key
	}
	if v.Source.Name != "" {
		return v.Source.Name
	}
	return v.Source.String() + " " + key
}

// firstSet is the first field of the procedure a tier set; p has one,
// since a tier that names a procedure gives it a field.
func (p *Procedure) firstSet() field {
	for _, f := range p.fields() {
		if f.isSet() {
			return f
		}
	}
	return p.fields()[0]
}

// firstPlace is where the procedure's first setting was written, for messages.
func (p *Procedure) firstPlace() string { return p.firstSet().where() }

// Check validates a procedure that is about to run: every fragment loads
// and every template parses and executes (seed 000's messages, each with
// the file and line that defined the fragment), or its script exists.
func (c *Config) Check(name string) error {
	p, err := c.Procedure(name)
	if err != nil {
		return err
	}
	if p.Script.Set {
		return checkScript(p)
	}
	return prompt.Validate(p.Prompt())
}

func checkScript(p *Procedure) error {
	info, err := os.Stat(p.Script.V)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s: procedures.%s.script: file not found: %s", p.Script.Where(), p.Name, p.Script.V)
	case err != nil:
		return fmt.Errorf("%s: procedures.%s.script: %w", p.Script.Where(), p.Name, unwrapPath(err))
	case info.IsDir():
		return fmt.Errorf("%s: procedures.%s.script: %s is a directory, not a .star file", p.Script.Where(), p.Name, p.Script.V)
	}
	return nil
}

// Procedure returns the named procedure, or an error that lists where to
// find the names, with a suggestion when one is close.
func (c *Config) Procedure(name string) (*Procedure, error) {
	if p, ok := c.Procedures[name]; ok {
		return p, nil
	}
	msg := fmt.Sprintf("unknown procedure '%s'", name)
	if near := suggest.Closest(name, c.ProcedureNames()); near != "" {
		msg += fmt.Sprintf("\n\nDid you mean: %s", near)
	}
	return nil, errors.New(msg + "\n\nRun 'rooda list' to see available procedures")
}

// ProcedureNames returns the names of every procedure, sorted.
func (c *Config) ProcedureNames() []string {
	return slices.Sorted(maps.Keys(c.Procedures))
}

// AliasNames returns the names of every AI command alias, sorted.
func (c *Config) AliasNames() []string {
	return slices.Sorted(maps.Keys(c.Aliases))
}
