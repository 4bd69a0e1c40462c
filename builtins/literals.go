package builtins

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"go.starlark.net/starlark"

	"rooda/host"
	"rooda/host/config"
	"rooda/host/loop"
	"rooda/host/session"
	"rooda/host/suggest"
)

// literalRules are how rooda script check reads the string literals of
// the calls it checks, by the run's own rules, so that a typo costs no
// iteration: the agent's alias and the procedure's name against cfg (nil
// checks neither), a setting's text by its parser, and the verdicts an
// on_iteration returns.
func literalRules(cfg *config.Config, name string, p *host.Param) {
	switch {
	case cfg != nil && (name == "iterate" && p.Name == "agent" || name == "agent" && p.Name == "alias_or_cmd"):
		p.Literal = func(s string) error {
			_, err := session.AgentIn(cfg, s, false)
			return err
		}
	case cfg != nil && name == "procedure" && p.Name == "name":
		p.Literal = func(s string) error { return knownProcedure(cfg, s) }
	case name == "iterate" && p.Name == "on_iteration":
		p.Returns = verdictLiteral
	case name == "iterate":
		if k, ok := config.KeywordNamed(p.Name); ok {
			p.Literal = func(s string) error { return settingLiteral(k, s) }
		}
	}
}

// knownProcedure is procedure(name)'s rule: a configured procedure that
// is not itself a script.
func knownProcedure(cfg *config.Config, name string) error {
	p, ok := cfg.Procedures[name]
	if !ok {
		msg := fmt.Sprintf("unknown procedure %q", name)
		if near := suggest.Closest(name, cfg.ProcedureNames()); near != "" {
			msg += fmt.Sprintf(" (did you mean %s?)", near)
		}
		return fmt.Errorf("%s; rooda list shows them", msg)
	}
	if p.Script.Set {
		return fmt.Errorf("procedure %s is itself a script (%s): load() what you need from it instead", name, p.Script.V)
	}
	return nil
}

// verdictLiteral is what on_iteration may return, as a literal.
func verdictLiteral(s string) error {
	if slices.Contains(loop.Verdicts, loop.Outcome(s)) {
		return nil
	}
	msg := fmt.Sprintf("returns %q, which is no verdict", s)
	if near := loop.NearestVerdict(s); near != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", near)
	}
	return fmt.Errorf("%s: the verdicts are None, %s", msg, suggest.OneOf(quoted(loop.VerdictNames())))
}

func quoted(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = fmt.Sprintf("%q", n)
	}
	return out
}

// settingLiteral reads s, given for a setting's keyword, as iterate()
// does: converted by the keyword's type, then parsed by the setting.
func settingLiteral(k config.Keyword, s string) error {
	arg, err := newKeywordArg(k)
	if err != nil {
		return nil
	}
	kwargs := []starlark.Tuple{{starlark.String(k.Name), starlark.String(s)}}
	if err := starlark.UnpackArgs("iterate", nil, kwargs, k.Name+arg.kind.optional, arg.target); err != nil {
		// The checker names the function itself.
		return errors.New(strings.TrimPrefix(err.Error(), "iterate: "))
	}
	given, err := assignments([]*keywordArg{arg})
	if err != nil {
		return err
	}
	var limits config.Limits
	return limits.Assign(given, config.Source{})
}
