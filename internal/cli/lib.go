package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"rooda/host/config"
	"rooda/host/interrupt"
	"rooda/host/libs"
)

func libCommand() *cli.Command {
	return &cli.Command{
		Name:  "lib",
		Usage: "list, fetch and update the Starlark libraries of the configuration",
		Description: `A library is a directory, or a git source that rooda fetches into the cache
($XDG_CACHE_HOME/rooda) and pins in rooda.lock beside the configuration:

  libraries:
    team: {git: https://example.org/team-procedures.git, ref: v1, path: star}

Scripts load its files as @team//path. The first use pins the ref's commit
and a SHA-256 of git's files; later runs use the cache and check the hash.
Cached files edited since are refused until rooda lib fetch restores them.
A ref that has moved is found as a hash mismatch until rooda lib update.
A library's symbolic links must stay inside it. A password or token in a
URL is used to fetch, never shown or kept: rooda.lock and the cache hold the
URL with *** in its place. One rooda at a time uses the cache; another waits,
saying for whom, until Ctrl+C.`,
		Subcommands: []*cli.Command{{
			Name:  "list",
			Usage: "every library: where it is, its pin, whether it is cached",
			Description: `Examples:
  rooda lib list`,
			Action: func(c *cli.Context) error {
				return libAction(c, func(ctx context.Context, m *libs.Manager, cfgLibs map[string]config.Value[config.Library]) ([]string, error) {
					return m.List(cfgLibs)
				})
			},
		}, {
			Name:  "fetch",
			Usage: "fetch every git library, pin new ones, check the pinned ones",
			Description: `Examples:
  rooda lib fetch`,
			Action: func(c *cli.Context) error {
				return libAction(c, func(ctx context.Context, m *libs.Manager, cfgLibs map[string]config.Value[config.Library]) ([]string, error) {
					return m.Fetch(ctx, cfgLibs)
				})
			},
		}, {
			Name:      "update",
			Usage:     "move the pins to what the refs give now",
			ArgsUsage: "[NAME...]",
			Description: `Fetches the named git libraries (all of them by default), and pins each to
the commit its ref names now. Prints old → new commit.

Examples:
  rooda lib update
  rooda lib update team`,
			Action: func(c *cli.Context) error {
				args, after := splitArgs(c)
				return libAction(c, func(ctx context.Context, m *libs.Manager, cfgLibs map[string]config.Value[config.Library]) ([]string, error) {
					return m.Update(ctx, cfgLibs, append(args, after...))
				})
			},
		}},
	}
}

// libAction loads the configuration, runs fn with the library manager and
// prints its lines. An interrupt ends fn's context: what it waits for,
// the cache's lock or git, is stopped.
func libAction(c *cli.Context, fn func(context.Context, *libs.Manager, map[string]config.Value[config.Library]) ([]string, error)) error {
	cfg, err := loadConfig(c)
	if err != nil {
		return err
	}
	m, err := libraryManager(c, cfg)
	if err != nil {
		return err
	}
	ctx, watch := interrupt.Watch(c.Context)
	defer watch.Stop()
	lines, err := fn(ctx, m, cfg.Libraries)
	if len(lines) > 0 {
		fmt.Fprintln(c.App.Writer, strings.Join(lines, "\n"))
	}
	return err
}
