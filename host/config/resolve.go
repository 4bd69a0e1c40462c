package config

import (
	"errors"
	"fmt"
	"strings"
)

// Settings are what one run of a procedure uses, each with its
// provenance: read a setting of the table with its handle
// (IterationTimeout.In(settings)).
type Settings struct {
	Procedure *Procedure
	// MaxIterations, of the iteration mode and count, is 0 for unlimited.
	MaxIterations Value[int]
	// AICommand is the command line of the agent; not Set when nothing
	// names one (see AI). Its source tells the whole chain, such as
	// `cli: --ai-cmd-alias "claude" → built-in alias`.
	AICommand Value[string]
	// AIAlias is the alias AICommand came from, if any; AIAliases all
	// the aliases named, which take turns when there are several.
	AIAlias   string
	AIAliases []string
	// AIOutput is the format of what the agent prints: its alias's, or
	// "" (text) for a command given as it is.
	AIOutput string
	// Limits hold the value of every setting of the table, and the checks.
	Limits
}

// Resolve works out the settings of a run of the named procedure: the
// command line first, then the procedure, then the loop, each already the
// merge of its tiers. A procedure's built-in defaults give way to loop
// settings the user wrote: a workspace "loop.default_max_iterations: 3"
// applies to the built-in build procedure too.
func (c *Config) Resolve(name string) (*Settings, error) {
	p, err := c.Procedure(name)
	if err != nil {
		return nil, err
	}
	return c.ResolveWith(p, Limits{}), nil
}

// ResolveWith works out the settings of a run of p with a script's
// settings (what it passed to iterate()) between the command line and the
// procedure: the command line still wins. A loop-wide setting is the
// loop's.
func (c *Config) ResolveWith(p *Procedure, script Limits) *Settings {
	proc := p.Limits.yieldTo(&c.Loop)
	levels := []*Limits{&c.Run, &script, &proc, &c.Loop}
	s := &Settings{Procedure: p, MaxIterations: maxIterations(levels)}
	for _, row := range table {
		from := levels
		if row.Scope == LoopWide {
			from = levels[len(levels)-1:]
		}
		for _, l := range from {
			if v, ok := l.values[row.Key]; ok {
				s.put(row.Key, v)
				break
			}
		}
	}
	// Each pair resolves as one, into MaxIterations and AICommand: the
	// first value of each of its rows alone would disagree with it (a
	// count below --unlimited), so Settings holds only the pair's result.
	s.Limits = s.Without(IterationMode.Key, DefaultMaxIterations.Key, AICmd.Key, AICmdAlias.Key)
	s.Checks = first(levels, func(l *Limits) Value[[]Check] { return l.Checks })
	s.AICommand, s.AIAliases = c.aiCommand(levels)
	if len(s.AIAliases) > 0 {
		s.AIAlias = s.AIAliases[0]
	}
	s.AIOutput = c.Aliases[s.AIAlias].V.Output
	return s
}

// first returns the value of the highest level that sets it.
func first[T any](levels []*Limits, get func(*Limits) Value[T]) Value[T] {
	for _, l := range levels {
		if v := get(l); v.Set {
			return v
		}
	}
	return Value[T]{}
}

// maxIterations follows seed 002: the first level that says anything
// about iterations decides. Its mode "unlimited" wins over any count; a
// mode "max-iterations" without a count takes the count from below.
func maxIterations(levels []*Limits) Value[int] {
	for i, l := range levels {
		mode, count := IterationMode.In(l), DefaultMaxIterations.In(l)
		switch {
		case mode.Set && mode.V == ModeUnlimited:
			return Value[int]{V: 0, Set: true, Source: mode.Source, Line: mode.Line}
		case count.Set:
			return count
		case mode.Set:
			if below := first(levels[i+1:], func(l *Limits) Value[int] { return DefaultMaxIterations.In(l) }); below.Set {
				return below
			}
		}
	}
	return Value[int]{V: 5, Set: true, Source: Source{Tier: BuiltIn}}
}

// yieldTo returns a copy of l without the built-in values the user
// overrode at loop level. The settings of a group go together: a user who
// sets the iteration mode or count at loop level means both.
func (l Limits) yieldTo(loop *Limits) Limits {
	overridden := map[string]bool{}
	for key, v := range loop.values {
		if v.src.Tier > BuiltIn {
			overridden[conflictKeyOf(key)] = true
		}
	}
	var builtIn []string
	for key, v := range l.values {
		if v.src.Tier == BuiltIn && overridden[conflictKeyOf(key)] {
			builtIn = append(builtIn, key)
		}
	}
	return l.Without(builtIn...)
}

// aiCommand follows seed 002's chain: at each level (command line,
// procedure, loop) a command beats an alias.
// The command of an alias list is its first alias's.
func (c *Config) aiCommand(levels []*Limits) (Value[string], []string) {
	for _, l := range levels {
		if cmd := AICmd.In(l); cmd.Set {
			return cmd, nil
		}
		if ref := AICmdAlias.In(l); ref.Set {
			names := AliasNames(ref.V)
			alias := c.Aliases[names[0]]
			from := "built-in alias"
			if alias.Source.Tier != BuiltIn {
				from = "alias in " + alias.Source.String()
			}
			src := ref.Source
			src.Name = strings.TrimSpace(fmt.Sprintf("%s %q → %s", src.Name, ref.V, from))
			return Value[string]{V: alias.V.Line, Set: true, Source: src, Line: ref.Line}, names
		}
	}
	return Value[string]{}, nil
}

// AI returns the agent's command line, or the error that says every way
// to set one.
func (s *Settings) AI(aliases []string) (string, error) {
	if s.AICommand.Set {
		return s.AICommand.V, nil
	}
	return "", errors.New(`no AI command configured

Set one via:
  --ai-cmd "your-command"           CLI flag (direct command)
  --ai-cmd-alias <name>             CLI flag (alias from config)
  ROODA_LOOP_AI_CMD=your-command    Environment variable
  ROODA_LOOP_AI_CMD_ALIAS=<name>    Environment variable
  loop.ai_cmd or loop.ai_cmd_alias  rooda-config.yml
  procedures.<name>.ai_cmd or .ai_cmd_alias  rooda-config.yml

Available aliases: ` + strings.Join(aliases, ", "))
}
