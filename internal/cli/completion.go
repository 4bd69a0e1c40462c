package cli

import (
	"context"
	_ "embed"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"rooda/host/runlog"
	"rooda/host/session"
)

// completeFlag is the flag urfave/cli's completion scripts add as the last
// argument to ask the program, instead of running, for the words that may
// come next.
const completeFlag = "--generate-bash-completion"

var (
	//go:embed completion/rooda.bash
	bashCompletion string
	//go:embed completion/rooda.zsh
	zshCompletion string
)

// fishDynamic completes what urfave/cli's fish script, which knows only
// the commands and their flags, cannot: procedures after "rooda" and run
// ids after "rooda runs show", asked of rooda as bash and zsh do.
const fishDynamic = `
# Procedures and run ids, asked of rooda itself.
complete -c rooda -n '__fish_use_subcommand' -f -a '(rooda --generate-bash-completion 2>/dev/null)'
complete -c rooda -n '__fish_seen_subcommand_from runs; and __fish_seen_subcommand_from show' -f -a '(rooda runs show --generate-bash-completion 2>/dev/null)'
`

func completionCommand() *cli.Command {
	return &cli.Command{
		Name:      "completion",
		Usage:     "print a shell completion script: commands, procedures and run ids",
		ArgsUsage: "bash|zsh|fish",
		Description: `Prints a script that makes the shell complete rooda's commands, flags, the
procedures after "rooda " and the run ids after "rooda runs show ".

Examples:
  source <(rooda completion bash)                       in ~/.bashrc
  mkdir -p ~/.zfunc && rooda completion zsh > ~/.zfunc/_rooda
                                                        with fpath=(~/.zfunc $fpath) in ~/.zshrc, before compinit
  mkdir -p ~/.config/fish/completions && rooda completion fish > ~/.config/fish/completions/rooda.fish`,
		Action: func(c *cli.Context) error {
			shell, err := oneArgument(c, "shell (bash, zsh or fish)")
			if err != nil {
				return err
			}
			return writeCompletion(c.App.Writer, shell)
		},
	}
}

// writeCompletion prints the completion script for shell.
func writeCompletion(w io.Writer, shell string) error {
	switch shell {
	case "bash":
		_, err := io.WriteString(w, bashCompletion)
		return err
	case "zsh":
		_, err := io.WriteString(w, zshCompletion)
		return err
	case "fish":
		script, err := unrunApp().ToFishCompletion()
		if err != nil {
			return fmt.Errorf("writing the fish completion: %w", err)
		}
		_, err = io.WriteString(w, script+fishDynamic)
		return err
	}
	return fmt.Errorf("rooda completion knows bash, zsh and fish, not %q", shell)
}

// isCompletion reports whether args ask for completions rather than a
// command: urfave/cli's scripts end them with completeFlag.
func isCompletion(args []string) bool {
	return len(args) > 1 && args[len(args)-1] == completeFlag
}

// complete answers a completion request. The arguments go to urfave/cli
// as typed: the "rooda NAME" shorthand and the moving of flags would turn
// "rooda build --generate-bash-completion" into a run of build. After a
// "--" urfave/cli stops completing and would run the command, so
// nothing is offered there.
func complete(ctx context.Context, app *cli.App, args []string) {
	if slices.Contains(args, "--") {
		return
	}
	_ = app.RunContext(ctx, args)
}

// completeTopLevel offers, after "rooda ", the commands and the
// procedures; once a procedure is named, run's flags.
func completeTopLevel(c *cli.Context) {
	if c.NArg() > 0 {
		if run := c.App.Command("run"); run != nil && typingFlag(c) {
			cli.DefaultCompleteWithFlags(run)(c)
		}
		return
	}
	cli.DefaultAppComplete(c)
	cfg, err := loadConfig(c)
	if err != nil {
		return
	}
	for _, name := range cfg.ProcedureNames() {
		if c.App.Command(name) == nil {
			fmt.Fprintln(c.App.Writer, name)
		}
	}
}

// completeRunIDs offers, after "rooda runs show ", "last" and the
// recorded runs, newest first; show's flags to a word that begins with "-".
func completeRunIDs(c *cli.Context) {
	if typingFlag(c) {
		cli.DefaultCompleteWithFlags(c.Command)(c)
		return
	}
	if c.NArg() > 0 {
		return
	}
	cfg, err := loadConfig(c)
	if err != nil {
		return
	}
	ids, _ := runlog.IDs(session.RunsDir(cfg))
	slices.Reverse(ids)
	for _, id := range append([]string{"last"}, ids...) {
		fmt.Fprintln(c.App.Writer, id)
	}
}

// typingFlag reports whether the word being completed begins with "-":
// urfave/cli's scripts then put it just before completeFlag.
func typingFlag(c *cli.Context) bool {
	args, _ := c.App.Metadata["args"].([]string)
	return len(args) > 2 && strings.HasPrefix(args[len(args)-2], "-")
}
