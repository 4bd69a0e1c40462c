package config

import "rooda/host/prompt"

// merge lays o, a higher tier, over c: a value o sets wins, field by field.
// A procedure o names merges into the one c has; a phase o gives replaces
// that whole phase, and a script replaces the phases (and phases a script).
func (c *Config) merge(o *Config) {
	mergeFields(c.Loop.fields(true), o.Loop.fields(true))
	c.Loop.Checks.override(o.Loop.Checks)
	for alias, cmd := range o.Aliases {
		c.Aliases[alias] = cmd
	}
	for name, dir := range o.Libraries {
		c.Libraries[name] = dir
	}
	for model, price := range o.Prices {
		c.Prices[model] = price
	}
	for name, op := range o.Procedures {
		p := c.Procedures[name]
		if p == nil {
			p = &Procedure{Name: name}
			c.Procedures[name] = p
		}
		p.merge(op)
	}
	c.Files = append(c.Files, o.Files...)
}

func (p *Procedure) merge(o *Procedure) {
	mergeFields(p.fields(), o.fields())
	p.Checks.override(o.Checks)
	if o.Script.Set {
		p.Phases = [len(p.Phases)]Value[[]prompt.Fragment]{}
	}
	if o.HasPhases() {
		p.Script = Value[string]{}
	}
	for i := range p.Phases {
		p.Phases[i].override(o.Phases[i])
	}
	p.Script.override(o.Script)
}

func newConfig() *Config {
	return &Config{Aliases: map[string]Value[Alias]{}, Procedures: map[string]*Procedure{}, Libraries: map[string]Value[Library]{}, Prices: map[string]Value[Price]{}}
}
