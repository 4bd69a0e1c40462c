package config

import (
	"fmt"
	"strings"
)

// Reference is docs/settings.md: every row of the table of settings, as a
// user looks it up.
func Reference() string {
	b := &strings.Builder{}
	b.WriteString(`# Settings

<!-- Generated from the table of settings (host/config/settings.go) by
     go test ./host/config -update. Do not edit. -->

Every setting is a key of ` + "`loop:`" + ` in rooda-config.yml and may come from the environment. One
that a procedure can override is a key of ` + "`procedures.NAME`" + ` too, and its flag and its
` + "`iterate()`" + ` keyword, where it has them, override it for one run or one loop; a loop-wide one holds
for the whole run. The README's Configuration section says which tier wins.

| Key | Scope | Accepts | Built-in default | Environment | Flags | ` + "`iterate()`" + ` |
|---|---|---|---|---|---|---|
`)
	defaults := builtInDefaults()
	for _, row := range table {
		cells := []string{"`" + row.Key + "`", row.scopeText(), row.accepts, defaults[row.Key], codes(row.EnvNames()), row.flagsText(), row.keywordText()}
		for i, c := range cells {
			// A | in a cell, as in a keyword's type, would end the cell.
			cells[i] = strings.ReplaceAll(c, "|", `\|`)
		}
		fmt.Fprintf(b, "| %s |\n", strings.Join(cells, " | "))
	}
	b.WriteString("\n")
	for _, row := range table {
		fmt.Fprintf(b, "- `%s`: %s.\n", row.Key, row.Doc)
	}
	return b.String()
}

// builtInDefaults are the built-in tier's loop values, as rooda-config.yml
// writes them; "none" for a key it does not set.
func builtInDefaults() map[string]string {
	cfg, err := builtIn()
	if err != nil {
		panic("config: " + err.Error())
	}
	out := map[string]string{}
	for _, f := range cfg.Loop.fields(true) {
		out[f.key] = "—"
		if f.isSet() {
			out[f.key] = "`" + f.format() + "`"
		}
	}
	return out
}

func (s *Setting) scopeText() string {
	if s.Scope == LoopWide {
		return "loop-wide"
	}
	return "per procedure"
}

func (s *Setting) flagsText() string {
	var flags []string
	for _, f := range s.Flags {
		text := "`--" + f.Name + "`"
		if f.Alias != "" {
			text += ", `-" + f.Alias + "`"
		}
		if f.Sets != "" {
			text += " (sets " + f.Sets + ")"
		}
		flags = append(flags, text)
	}
	return or(strings.Join(flags, "; "), "—")
}

func (s *Setting) keywordText() string {
	k := s.Keyword
	switch {
	case k == nil:
		return "—"
	case k.Type == "bool":
		return fmt.Sprintf("`%s=True` (sets %s)", k.Name, or(k.Sets, "true"))
	}
	return fmt.Sprintf("`%s` (%s)", k.Name, k.Type)
}

func codes(names []string) string {
	return "`" + strings.Join(names, "`, `") + "`"
}
