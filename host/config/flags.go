package config

import (
	"fmt"

	"rooda/host/prompt"
)

// flagKeys maps each command-line flag that carries a setting to its key.
// A switch sets a fixed value. Flags of loop-wide keys (log level, AI
// output) override the loop; the others override the run, above any
// procedure.
var flagKeys = map[string]struct{ key, value string }{
	"max-iterations":    {key: "default_max_iterations"},
	"unlimited":         {key: "iteration_mode", value: ModeUnlimited},
	"iteration-timeout": {key: "iteration_timeout"},
	"max-output-buffer": {key: "max_output_buffer"},
	"failure-threshold": {key: "failure_threshold"},
	"min-iterations":    {key: "min_iterations"},
	"digest":            {key: "digest", value: "true"},
	"ai-cmd":            {key: "ai_cmd"},
	"ai-cmd-alias":      {key: "ai_cmd_alias"},
	"log-level":         {key: "log_level"},
	"log-format":        {key: "log_format"},
	"quiet":             {key: "log_level", value: "warn"},
	"verbose":           {key: "show_ai_output", value: "true"},
	"max-memory":        {key: "max_memory"},
}

// FlagNames lists the flags Load understands, for the command line to
// pass on.
func FlagNames() []string {
	names := make([]string, 0, len(flagKeys))
	for name := range flagKeys {
		names = append(names, name)
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
		fk, ok := flagKeys[fl.Name]
		if !ok {
			problems.Add(fmt.Errorf("config: unknown flag --%s", fl.Name))
			continue
		}
		value := fl.Value
		if fk.value != "" {
			if value != "true" {
				continue // a switch turned off sets nothing
			}
			value = fk.value
		}
		key := fk.key
		if key == "iteration_mode" || key == "default_max_iterations" {
			key = "max iterations"
		}
		if first, dup := setBy[key]; dup && first != fl.Name {
			problems.Add(fmt.Errorf("--%s and --%s cannot be used together", first, fl.Name))
			continue
		}
		setBy[key] = fl.Name
		if err := c.flagField(fk.key).assign(value, Source{CLI, "--" + fl.Name}, 0); err != nil {
			problems.Add(fmt.Errorf("--%s %v", fl.Name, err))
		}
	}
	if len(problems) > 0 {
		return problems
	}
	return nil
}

// flagField is the field a flag's key sets: the run's for a key a
// procedure can override, the loop's for a loop-wide one (log level, AI
// output, memory).
func (c *Config) flagField(key string) field {
	for _, f := range c.Run.fields() {
		if f.key == key {
			return f
		}
	}
	return fieldNamed(c.Loop.fields(), key)
}
