package config

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"rooda/host/git"
	"rooda/host/prompt"
)

// WriteYAML writes the merged configuration as YAML that rooda can read
// back, with each value's source as a comment.
func (c *Config) WriteYAML(w io.Writer) error {
	y := &yamlWriter{w: w}
	y.comment(0, "rooda configuration, merged from: "+c.tiersRead())
	y.line(0, "loop:", "")
	y.fields(1, c.Loop.fields(true))
	y.checks(1, c.Loop.Checks)
	y.line(0, "ai_cmd_aliases:", "")
	for _, name := range c.AliasNames() {
		a := c.Aliases[name]
		y.line(1, quote(name)+": "+a.V.yaml(), a.Source.String())
	}
	if len(c.Prices) > 0 {
		y.line(0, "model_prices:", "")
		for _, model := range slices.Sorted(maps.Keys(c.Prices)) {
			p := c.Prices[model]
			y.line(1, quote(model)+": "+p.V.yaml(), p.Source.String())
		}
	}
	if len(c.Libraries) > 0 {
		y.line(0, "libraries:", "")
		for _, name := range slices.Sorted(maps.Keys(c.Libraries)) {
			lib := c.Libraries[name]
			y.line(1, quote(name)+": "+lib.V.yaml(), lib.Source.String())
		}
	}
	y.line(0, "procedures:", "")
	for _, name := range c.ProcedureNames() {
		y.procedure(1, c.Procedures[name])
	}
	return y.err
}

// tiersRead lists the tiers that contributed, lowest first.
func (c *Config) tiersRead() string {
	names := []string{BuiltIn.String()}
	for _, f := range c.Files {
		names = append(names, f.Name)
	}
	return strings.Join(names, ", ")
}

type yamlWriter struct {
	w   io.Writer
	err error
}

// commentColumn is where source comments start, so they line up.
const commentColumn = 48

func (y *yamlWriter) line(depth int, text, comment string) {
	s := strings.Repeat("  ", depth) + text
	if comment != "" {
		s += strings.Repeat(" ", max(1, commentColumn-len(s))) + "# " + comment
	}
	y.write(s + "\n")
}

func (y *yamlWriter) comment(depth int, text string) {
	y.write(strings.Repeat("  ", depth) + "# " + text + "\n")
}

func (y *yamlWriter) write(s string) {
	if y.err == nil {
		_, y.err = io.WriteString(y.w, s)
	}
}

func (y *yamlWriter) fields(depth int, fs []field) {
	for _, f := range fs {
		if f.isSet() {
			y.line(depth, f.key+": "+f.format(), f.origin().String())
		}
	}
}

func (y *yamlWriter) procedure(depth int, p *Procedure) {
	y.line(depth, quote(p.Name)+":", "")
	y.fields(depth+1, p.fields())
	y.checks(depth+1, p.Checks)
	if p.Script.Set {
		y.line(depth+1, "script: "+quote(p.Script.V), p.Script.Source.String())
	}
	for _, ph := range prompt.Phases {
		v := p.Phases[ph]
		if !v.Set {
			continue
		}
		if len(v.V) == 0 {
			y.line(depth+1, ph.String()+": []", v.Source.String())
			continue
		}
		y.line(depth+1, ph.String()+":", v.Source.String())
		for _, f := range v.V {
			y.line(depth+2, "- "+fragmentYAML(f), "")
		}
	}
}

// fragmentYAML writes a fragment as a one-line flow mapping, quoted by
// the YAML encoder so that any text reads back as it was.
func fragmentYAML(f prompt.Fragment) string {
	m := &yaml.Node{Kind: yaml.MappingNode, Style: yaml.FlowStyle}
	add := func(key string, value *yaml.Node) {
		m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: key}, value)
	}
	str := func(s string) *yaml.Node {
		n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
		if strings.ContainsAny(s, "\n\r\t") {
			n.Style = yaml.DoubleQuotedStyle
		}
		return n
	}
	if f.Path != "" {
		add("path", str(f.Path))
	}
	if f.Content != "" {
		add("content", str(f.Content))
	}
	if f.Parameters != nil {
		var params yaml.Node
		if err := params.Encode(f.Parameters); err == nil {
			add("parameters", &params)
		}
	}
	out, err := yaml.Marshal(m)
	if err != nil {
		return "{}"
	}
	return strings.TrimSpace(string(out))
}

// FormatSize writes a byte count as seed 002 does: 10485760 is "10MB";
// one no unit holds whole is "N bytes".
func FormatSize(n int) string {
	if s, ok := inUnit(n); ok {
		return s
	}
	return strconv.Itoa(n) + " bytes"
}

// inUnit writes n in the largest unit that holds it whole: "10MB", "1GB".
func inUnit(n int) (string, bool) {
	for _, u := range []struct {
		suffix string
		shift  int
	}{{"GB", 30}, {"MB", 20}, {"KB", 10}} {
		if n >= 1<<u.shift && n%(1<<u.shift) == 0 {
			return strconv.Itoa(n>>u.shift) + u.suffix, true
		}
	}
	return "", false
}

// FormatMaxIterations writes a limit of iterations: "5" or "unlimited".
func FormatMaxIterations(n int) string {
	if n == 0 {
		return ModeUnlimited
	}
	return strconv.Itoa(n)
}

// Lines are the resolved settings as "Name: value (source)" lines, in the
// order dry-run and info print them: the agent and the iteration limits,
// the settings every run shows, those shown only when given, and the
// checks.
func (s *Settings) Lines() []string {
	return s.lines(settingLine)
}

// Values are Lines without their sources: the settings a loop runs with,
// whichever tier gave each.
func (s *Settings) Values() []string {
	return s.lines(func(name, value string, _ Source, _ bool) string { return name + ": " + value })
}

func (s *Settings) lines(settingLine func(name, value string, src Source, set bool) string) []string {
	ai := "none"
	if s.AICommand.Set {
		ai = s.AICommand.V
	}
	lines := []string{
		settingLine("AI Command", ai, s.AICommand.Source, s.AICommand.Set),
		settingLine("Max Iterations", FormatMaxIterations(s.MaxIterations.V), s.MaxIterations.Source, true),
	}
	for _, shown := range []Shown{ShownWithMaxIterations, ShownAlways, ShownWhenGiven} {
		for _, row := range table {
			v, ok := s.values[row.Key]
			if row.Shown == shown && (ok || shown == ShownAlways) && (shown != ShownWhenGiven || !isZero(v.v)) {
				lines = append(lines, settingLine(row.Label(), row.show(v.v), v.src, true))
			}
		}
	}
	for _, c := range s.Checks.V {
		lines = append(lines, settingLine("Check "+c.Name, c.Run, s.Checks.Source, true))
	}
	return lines
}

func settingLine(name, value string, src Source, set bool) string {
	if !set {
		return fmt.Sprintf("%s: %s", name, value)
	}
	return fmt.Sprintf("%s: %s (%s)", name, value, src)
}

// checks writes checks: as flow mappings, one a line.
func (y *yamlWriter) checks(depth int, v Value[[]Check]) {
	if !v.Set {
		return
	}
	if len(v.V) == 0 {
		y.line(depth, "checks: []", v.Source.String())
		return
	}
	y.line(depth, "checks:", v.Source.String())
	for _, c := range v.V {
		y.line(depth+1, "- {name: "+quoteFlow(c.Name)+", run: "+quoteFlow(c.Run)+"}", "")
	}
}

// yaml is the alias as ai_cmd_aliases: writes it: its command, or
// {cmd, output, account, sandbox_write} when it declares more.
func (a Alias) yaml() string {
	if a.Output == "" && a.Account == "" && len(a.Writes) == 0 && len(a.Hosts) == 0 {
		return quote(a.Line)
	}
	s := "{cmd: " + quoteFlow(a.Line)
	if a.Output != "" {
		s += ", output: " + quoteFlow(a.Output)
	}
	if a.Account != "" {
		s += ", account: " + quoteFlow(a.Account)
	}
	if len(a.Writes) > 0 {
		var items []string
		for _, w := range a.Writes {
			items = append(items, quoteFlow(w))
		}
		s += ", sandbox_write: [" + strings.Join(items, ", ") + "]"
	}
	return s + aliasHosts(a.Hosts) + "}"
}

// yaml writes a library as rooda-config.yml would: its directory, or its
// git source as a flow mapping, the secret in its URL hidden.
func (l Library) yaml() string {
	if l.Git == "" {
		return quote(l.Dir)
	}
	out := "{git: " + quoteFlow(git.RedactURL(l.Git)) + ", ref: " + quoteFlow(l.Ref)
	if l.Path != "" {
		out += ", path: " + quoteFlow(l.Path)
	}
	return out + "}"
}
