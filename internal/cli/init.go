package cli

import (
	"cmp"
	"fmt"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"rooda/host/agents"
	"rooda/host/config"
	"rooda/host/setup"
	"rooda/host/statusline"
)

func initCommand() *cli.Command {
	return &cli.Command{
		Name:  "init",
		Usage: "set a repository up: a rooda-config.yml naming an installed agent, and an AGENTS.md",
		Description: `Looks for the agent CLIs rooda has aliases for (claude, codex, gemini,
opencode, copilot, cursor-agent, kiro-cli, amp) on PATH, and writes in the
current directory:

  rooda-config.yml  naming the agent chosen, with the settings a first run
                    may want shown, commented out
  AGENTS.md         a skeleton with the sections the built-in procedures
                    read; an AGENTS.md already there is left as it is

--agent chooses the agent; without it, the only one installed is chosen,
and with several, init asks which when stdin is a terminal and fails
otherwise. --ai-cmd sets up an agent of your own instead: its command
line, which must start a program on PATH (or a path), read as a CLI's JSON
stream when it asks a known CLI for one, else as text; with --agent NAME
too, it is written as your alias NAME. It replaces an existing rooda-config.yml only with --force, and
never an AGENTS.md; --config FILE writes FILE instead. Then it prints the
commands to run next.

Examples:
  rooda init                    choose among the agents installed
  rooda init --agent codex      no question: codex, which must be on PATH
  rooda init --agent claude --force
                                replace the rooda-config.yml there is
  rooda init --ai-cmd "./my-agent.sh --headless"
                                an agent of your own
  rooda init --ai-cmd "claude -p --output-format stream-json --verbose --model opus" --agent opus
                                your own alias, opus, read as claude's stream`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "agent", Usage: "use the agent `NAME`, an alias (claude, codex, ...) whose CLI is on PATH; with --ai-cmd, the name of your own alias"},
			&cli.StringFlag{Name: "ai-cmd", Usage: "use your own agent: its `COMMAND` line, given the prompt on stdin"},
			&cli.BoolFlag{Name: "force", Usage: "replace an existing rooda-config.yml (AGENTS.md is never replaced)"},
		},
		Action: initAction,
	}
}

func initAction(c *cli.Context) error {
	if err := noArguments(c); err != nil {
		return err
	}
	path := cmp.Or(c.String("config"), config.FileName)
	if existing := setup.Existing(path); len(existing) > 0 && !c.Bool("force") {
		return fmt.Errorf("%s exists; rooda init replaces nothing without --force\nRun 'rooda init --force' to replace it (an AGENTS.md is kept whatever you choose).", strings.Join(existing, ", "))
	}
	cfg, err := config.Load(config.Options{NoWorkspaceFile: true})
	if err != nil {
		return err
	}
	agent, what, err := chosenAgent(c, cfg)
	if err != nil {
		return err
	}
	written, err := setup.Write(".", path, agent, cfg.AliasNames(), c.Bool("force"))
	if err != nil {
		return fmt.Errorf("rooda init: %w", err)
	}
	w := c.App.Writer
	fmt.Fprintf(w, "Wrote %s: the agent is %s.\n", path, what)
	if written.AgentsKept {
		fmt.Fprintf(w, "Kept %s as it is: rooda agents-sync brings it up to date.\n", setup.AgentsFile)
	} else {
		fmt.Fprintf(w, "Wrote %s: a skeleton of the sections the procedures read; rooda agents-sync fills it in.\n", setup.AgentsFile)
	}
	fmt.Fprintf(w, `
Next:
  rooda agents-sync --dry-run   the prompt agents-sync would send, and its checks; runs nothing
  rooda agents-sync             %s fills AGENTS.md in: commands, layout, work tracking
  rooda build --dry-run         the prompt of build, which implements the tasks of your work tracking
  rooda list                    every procedure; rooda info NAME tells what one does
`, cmp.Or(agent.Alias, "your agent"))
	return nil
}

// chosenAgent is the agent init sets up, and how to name it to the user:
// --ai-cmd's command line, else an alias chosen among those installed.
func chosenAgent(c *cli.Context, cfg *config.Config) (setup.Agent, string, error) {
	if line := c.String("ai-cmd"); line != "" {
		own, err := setup.OwnAgent(line, c.String("agent"))
		if err != nil {
			return setup.Agent{}, "", fmt.Errorf("--ai-cmd %q: %w", line, err)
		}
		return own.Agent, own.Said(), nil
	}
	choice := setup.Choice{Asked: c.String("agent"), Found: agents.Installed(cfg.Aliases), Aliases: cfg.AliasNames(), NoneFound: agents.NoneFound(cfg.Aliases)}
	if statusline.IsTerminal(os.Stdin) {
		choice.Ask = setup.Ask(os.Stdin, c.App.ErrWriter)
	}
	found, err := setup.Choose(choice)
	if err != nil {
		return setup.Agent{}, "", err
	}
	return setup.Agent{Alias: found.Alias}, fmt.Sprintf("%s (%s)", found.Alias, found.Path), nil
}
