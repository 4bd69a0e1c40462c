package config

import "fmt"

// Tier is a level of configuration. A higher tier overrides a lower one.
type Tier int

const (
	BuiltIn Tier = iota
	Global
	Workspace
	Env
	// Script is what a Starlark script passes to iterate(): above the
	// configuration files, below the command line.
	Script
	CLI
)

var tierNames = [...]string{"built-in", "global", "workspace", "env", "script", "cli"}

func (t Tier) String() string { return tierNames[t] }

// Source says where a value came from: its tier and, within it, the file
// (as the user would write it), the environment variable or the flag.
type Source struct {
	Tier Tier
	Name string
}

// String is the provenance as rooda prints it: "built-in",
// "workspace: ./rooda-config.yml", "env: ROODA_LOG_LEVEL",
// "cli: --max-iterations".
func (s Source) String() string {
	if s.Name == "" {
		return s.Tier.String()
	}
	return fmt.Sprintf("%s: %s", s.Tier, s.Name)
}

// Value is one setting: whether any tier set it, its value, and where the
// value came from. Set distinguishes "not given" from a zero value, so a
// workspace "show_ai_output: false" overrides a global true.
type Value[T any] struct {
	V      T
	Set    bool
	Source Source
	// Line is the line in Source's file where the value was written, 0 when
	// it did not come from a file.
	Line int
}

// override replaces v with o when o was set: o is from a higher tier.
func (v *Value[T]) override(o Value[T]) {
	if o.Set {
		*v = o
	}
}

// Where is the value's source with its line, for error messages:
// "./rooda-config.yml:12" or "env ROODA_LOOP_FAILURE_THRESHOLD".
func (v Value[T]) Where() string {
	switch {
	case v.Line > 0:
		return fmt.Sprintf("%s:%d", v.Source.Name, v.Line)
	case v.Source.Name != "":
		return v.Source.String()
	}
	return v.Source.Tier.String()
}
