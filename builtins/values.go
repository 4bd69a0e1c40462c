package builtins

import (
	"fmt"
	"strings"

	"go.starlark.net/starlark"

	"rooda/host/config"
	"rooda/host/prompt"
	"rooda/host/session"
)

// Fragment is a fragment() value: one piece of a phase, immutable.
type Fragment struct{ f prompt.Fragment }

var _ starlark.HasAttrs = (*Fragment)(nil)

func (x *Fragment) String() string {
	if x.f.Path != "" {
		return fmt.Sprintf("fragment(%q)", x.f.Path)
	}
	return fmt.Sprintf("fragment(content=%q)", shorten(x.f.Content))
}
func (x *Fragment) Type() string          { return "fragment" }
func (x *Fragment) Freeze()               {}
func (x *Fragment) Truth() starlark.Bool  { return true }
func (x *Fragment) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable: fragment") }
func (x *Fragment) AttrNames() []string   { return []string{"content", "path"} }
func (x *Fragment) Attr(name string) (starlark.Value, error) {
	switch name {
	case "path":
		return orNone(x.f.Path), nil
	case "content":
		return orNone(x.f.Content), nil
	}
	return nil, nil
}

// Procedure is a compose()d or procedure() value: a name and the
// fragments of each phase, and, for one from the configuration, its
// settings.
type Procedure struct {
	name   string
	phases [len(prompt.Phases)][]prompt.Fragment
	config *config.Procedure // nil for compose()
}

var _ starlark.HasAttrs = (*Procedure)(nil)

func (p *Procedure) String() string        { return fmt.Sprintf("procedure(%q)", p.name) }
func (p *Procedure) Type() string          { return "procedure" }
func (p *Procedure) Freeze()               {}
func (p *Procedure) Truth() starlark.Bool  { return true }
func (p *Procedure) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable: procedure") }
func (p *Procedure) AttrNames() []string   { return []string{"name", "render", "with_phases"} }
func (p *Procedure) prompt() prompt.Procedure {
	return prompt.Procedure{Name: p.name, Phases: p.phases}
}

func (p *Procedure) Attr(name string) (starlark.Value, error) {
	switch name {
	case "name":
		return starlark.String(p.name), nil
	}
	for _, m := range procedureMethods {
		if m.Name == name {
			return starlark.NewBuiltin(name, safe(name, m.fn)).BindReceiver(p), nil
		}
	}
	return nil, nil
}

// asConfig is the procedure as the engine runs it: the configured one
// with these phases, or a new one named by compose().
func (p *Procedure) asConfig() *config.Procedure {
	out := &config.Procedure{Name: p.name}
	if p.config != nil {
		copied := *p.config
		out = &copied
	}
	for i := range out.Phases {
		out.Phases[i] = config.Value[[]prompt.Fragment]{V: p.phases[i], Set: true}
	}
	return out
}

// Agent is an agent() value.
type Agent struct{ a session.Agent }

func (x *Agent) String() string {
	named := ""
	if x.a.Label != "" {
		named = fmt.Sprintf(", name=%q", x.a.Label)
	}
	if x.a.Alias != "" {
		return fmt.Sprintf("agent(%q%s)", x.a.Alias, named)
	}
	return fmt.Sprintf("agent(cmd=%q%s)", x.a.Line, named)
}
func (x *Agent) Type() string          { return "agent" }
func (x *Agent) Freeze()               {}
func (x *Agent) Truth() starlark.Bool  { return true }
func (x *Agent) Hash() (uint32, error) { return starlark.String(x.a.Line).Hash() }

func orNone(s string) starlark.Value {
	if s == "" {
		return starlark.None
	}
	return starlark.String(s)
}

func shorten(s string) string {
	s = strings.TrimSpace(s)
	if first, _, more := strings.Cut(s, "\n"); more || len(first) > 40 {
		return first[:min(len(first), 40)] + "…"
	}
	return s
}

// toGo converts a template parameter to the Go value text/template sees.
func toGo(v starlark.Value) (any, error) {
	switch x := v.(type) {
	case starlark.NoneType:
		return nil, nil
	case starlark.Bool:
		return bool(x), nil
	case starlark.String:
		return string(x), nil
	case starlark.Int:
		n, ok := x.Int64()
		if !ok {
			return nil, fmt.Errorf("integer %s is too large", x)
		}
		return n, nil
	case starlark.Float:
		return float64(x), nil
	case *starlark.List, starlark.Tuple:
		var out []any
		for e := range starlark.Elements(x.(starlark.Iterable)) {
			g, err := toGo(e)
			if err != nil {
				return nil, err
			}
			out = append(out, g)
		}
		return out, nil
	case *starlark.Dict:
		return dictToGo(x)
	}
	return nil, fmt.Errorf("a template parameter must be None, a bool, number, string, list or dict, got %s", v.Type())
}

func dictToGo(d *starlark.Dict) (map[string]any, error) {
	out := map[string]any{}
	for _, item := range d.Items() {
		k, ok := starlark.AsString(item[0])
		if !ok {
			return nil, fmt.Errorf("template parameter names must be strings, got %s", item[0].Type())
		}
		v, err := toGo(item[1])
		if err != nil {
			return nil, fmt.Errorf("parameter %s: %w", k, err)
		}
		out[k] = v
	}
	return out, nil
}

// strings converts a str or a list of str.
func stringList(v starlark.Value, what string) ([]string, error) {
	if s, ok := starlark.AsString(v); ok {
		return []string{s}, nil
	}
	iter, ok := v.(starlark.Iterable)
	if !ok || v.Type() == "dict" {
		return nil, fmt.Errorf("%s must be a string or a list of strings, got %s", what, v.Type())
	}
	var out []string
	for e := range starlark.Elements(iter) {
		s, ok := starlark.AsString(e)
		if !ok {
			return nil, fmt.Errorf("%s must hold strings, got %s", what, e.Type())
		}
		out = append(out, s)
	}
	return out, nil
}
