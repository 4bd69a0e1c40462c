package config

import (
	"fmt"

	"rooda/host/prompt"
)

// FlagNames lists the flags Load understands, for the command line to
// pass on.
func FlagNames() []string {
	var names []string
	for f := range Flags() {
		names = append(names, f.Name)
	}
	return names
}

// applyFlags lays the command line's settings over the configuration. Two
// flags that set the same thing (--quiet and --log-level, --max-iterations
// and --unlimited) are an error rather than a silent choice.
func (c *Config) applyFlags(flags []Flag) error {
	var problems prompt.Problems
	setBy := map[string]string{}
	for _, fl := range flags {
		row, def := flagOf(fl.Name)
		if def == nil {
			problems.Add(fmt.Errorf("config: unknown flag --%s", fl.Name))
			continue
		}
		value := fl.Value
		if def.Sets != "" {
			if value != "true" {
				continue // a switch turned off sets nothing
			}
			value = def.Sets
		}
		if first, dup := setBy[row.conflictKey()]; dup && first != fl.Name {
			problems.Add(fmt.Errorf("--%s and --%s cannot be used together", first, fl.Name))
			continue
		}
		setBy[row.conflictKey()] = fl.Name
		if err := c.flagField(row).assign(value, Source{CLI, "--" + fl.Name}, 0); err != nil {
			problems.Add(fmt.Errorf("--%s %w", fl.Name, err))
		}
	}
	if len(problems) > 0 {
		return problems
	}
	return nil
}

// flagOf is the row and the flag of a flag's name; nil if none has it.
func flagOf(name string) (*Setting, *FlagDef) {
	for _, row := range table {
		if f := row.flag(name); f != nil {
			return row, f
		}
	}
	return nil, nil
}

// flagField is what a flag of row sets: the run's value for a setting a
// procedure can override, the loop's for a loop-wide one (log level, AI
// output, memory).
func (c *Config) flagField(row *Setting) field {
	if row.Scope == PerProcedure {
		return field{row.Key, slot{&c.Run, row}}
	}
	return field{row.Key, slot{&c.Loop, row}}
}
