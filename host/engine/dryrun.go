package engine

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"rooda/host/config"
	"rooda/host/process"
	"rooda/host/prompt"
	"rooda/host/shown"
)

// ErrDryRunFailed ends a dry run whose checks did not all pass.
var ErrDryRunFailed = errors.New("Dry-run validation failed")

// rule frames the assembled prompt of a dry run.
var rule = strings.Repeat("─", 40)

// DryRun writes seed 002's dry-run report (Examples 7 and 8): the settings
// with their sources, every check, the prompt of iteration 1 with its
// size, and the command that would run it. It starts no agent. When a
// check failed, the prompt is shown only if the agent's checks alone
// failed (no agent chosen or installed yet: a first look at what rooda
// would send needs none), and the failed checks are named again after it.
// command is the command line that would run it for real, its first word
// the program.
// The report is for a person to read: made safe for a terminal
// (shown.Text), the prompt's escapes shown, not obeyed; runs show
// --prompt gives a prompt's exact bytes.
func (p *Plan) DryRun(w io.Writer, command []string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "=== Dry-Run: %s ===\n\nConfiguration:\n", shown.Line(p.Procedure.Name))
	p.writeSettings(&b, "  ")
	b.WriteString(p.turnsText())
	b.WriteString("\nValidation:\n")
	var failed []string
	onlyAgent := true
	for _, c := range p.Checks {
		mark := "✓"
		if c.Warning {
			mark = "!"
		}
		if !c.OK {
			mark = "✗"
			failed = append(failed, c.Text)
			onlyAgent = onlyAgent && c.Agent
		}
		fmt.Fprintf(&b, "  %s %s\n", mark, c.Text)
		if c.Detail != "" {
			b.WriteString(indent(c.Detail, "    ") + "\n")
		}
	}
	if onlyAgent {
		p.rehearsing = true
		text, err := p.Prompt(prompt.Iteration{Number: 1, Max: p.Settings.MaxIterations.V, Min: config.MinIterations.In(p.Settings).V})
		if err != nil {
			fmt.Fprintf(&b, "  ✗ Prompt assembly failed\n%s\n", indent(err.Error(), "    "))
			return write(w, b.String(), ErrDryRunFailed)
		}
		fmt.Fprintf(&b, "\nAssembled Prompt (%s bytes):\n%s\n%s%s\n\n", shown.Thousands(int64(len(text))), rule, text, rule)
		if len(failed) > 0 {
			b.WriteString("Not ready to execute; mend what the ✗ lines above say:\n")
			for _, f := range failed {
				b.WriteString("  ✗ " + f + "\n")
			}
		}
	}
	if len(failed) > 0 {
		return write(w, b.String(), ErrDryRunFailed)
	}
	fmt.Fprintf(&b, "Dry-run complete. Ready to execute: %s\n", shellLine(command))
	return write(w, b.String(), nil)
}

// write writes report to w, safe for a terminal, and returns err unless
// the writing failed.
func write(w io.Writer, report string, err error) error {
	if _, werr := io.WriteString(w, shown.Text(report)); werr != nil {
		return werr
	}
	return err
}

// Describe writes the plan in a few lines for `rooda info`: the
// procedure, where the script asked for it, the settings the dry run
// would show and the checks that fail, which a run would have to mend.
func (p *Plan) Describe(w io.Writer, pos string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "  iterate() at %s: procedure %s\n", pos, shown.Line(p.Procedure.Name))
	p.writeSettings(&b, "    ")
	for _, c := range p.Checks {
		switch {
		case !c.OK:
			fmt.Fprintf(&b, "    ✗ %s\n", c.Text)
		case c.Warning:
			fmt.Fprintf(&b, "    ! %s\n", c.Text)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeSettings writes the settings a run would use, each with its
// source, a line each.
func (p *Plan) writeSettings(b *strings.Builder, prefix string) {
	for _, l := range p.Settings.Lines() {
		b.WriteString(prefix + l + "\n")
	}
}

func indent(s, prefix string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = prefix + l
		}
	}
	return strings.Join(lines, "\n")
}

// shellLine writes a command as a user would type it in a POSIX shell,
// naming the program rooda.
func shellLine(command []string) string {
	return strings.TrimSpace("rooda " + process.Join(command[min(1, len(command)):]))
}

// turnsText names, for a rotation, every agent that takes a turn, and
// each turn's procedure when they have roles: "Agents: [a, b]".
func (p *Plan) turnsText() string {
	var b strings.Builder
	if len(p.Agents) > 1 {
		fmt.Fprintf(&b, "  Agents: [%s] (taking turns, one per iteration)\n", strings.Join(p.Agents, ", "))
	}
	if p.Choose != nil {
		fmt.Fprintf(&b, "  Agents: chosen by %s before each iteration (iteration 1: %s)\n", p.Chooser, p.Agents[0])
	}
	if p.Promises.Success != nil || p.Promises.Failure != nil {
		fmt.Fprintf(&b, "  Promises: success %s, failure %s\n", strings.Join(p.Promises.SuccessWords(), " or "), strings.Join(p.Promises.FailureWords(), " or "))
	}
	if len(p.Roles) > 0 {
		names := make([]string, len(p.Roles))
		for i, r := range p.Roles {
			names[i] = r.Name
		}
		fmt.Fprintf(&b, "  Roles: [%s] (each agent's procedure, in the same order)\n", strings.Join(names, ", "))
	}
	return b.String()
}
