package main

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"rooda/host/fleet"
)

func addCommand() *cli.Command {
	return &cli.Command{
		Name:      "add",
		Usage:     "queue a run: a procedure or a script, with its arguments",
		ArgsUsage: "PROCEDURE|SCRIPT [ARGS…] | -f FILE",
		Description: `Queues a run of PROCEDURE (as rooda run takes it) or SCRIPT (a .star file, as
rooda script run takes it) with ARGS, which go to it as they are: give
add's own flags before PROCEDURE. The run works in a git worktree of the
checkout add runs in, at its HEAD (or --ref), in the same directory of it;
its commits go to the branch rooda/fleet/NAME of that checkout. It prints
the run's name.

With --repo URL|PATH, the run works instead in a clone of that
repository (any URL git clones, or a path), made by the worker that takes
it, at the repository's HEAD (or --ref), in its top directory: the
workers push its branch rooda/fleet/NAME there as it goes, so that a
worker on another machine takes the run over where it stopped.

With -f FILE, the runs of a tasks file, each queued as if on its own: a
name the fleet has already is refused, the others are queued.

  runs:
    - name: flaky-login
      run: build
      args: [--max-iterations, "5", --context, tasks/flaky-login.md]
    - run: nightly.star
      ref: main
      repo: https://git.example.org/team/app.git

Examples:
  rooda fleet add build -n 5 --ai-cmd-alias codex
  rooda fleet add --name auth-audit audit-impl -c "focus on auth"
  rooda fleet add nightly.star --max-cost-usd 5
  rooda fleet add --ref main build
  rooda fleet add --repo git@example.org:team/app.git --ref main build
  rooda fleet add -f tasks.yaml`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "name", Usage: "the run's `NAME` in the fleet (default: the procedure's, the time and a suffix)"},
			&cli.StringFlag{Name: "repo", Usage: "clone the run's workspace from the repository at `URL|PATH` (default: a worktree of the checkout add runs in)"},
			&cli.StringFlag{Name: "ref", Value: "HEAD", Usage: "the commit, branch or tag the run's workspace starts at, `REF`"},
			&cli.StringFlag{Name: "file", Aliases: []string{"f"}, Usage: "queue the runs of the tasks file `FILE` (YAML: runs: a list of name, run, args, ref, repo)"},
			serverFlag(), storeFlag(),
		}, credentialFlags()...),
		Action: addAction,
	}
}

func addAction(c *cli.Context) error {
	tasks, err := tasksOf(c)
	if err != nil {
		return err
	}
	var runs []fleet.Run
	for _, t := range tasks {
		run, err := newRun(c, t)
		if err != nil {
			return err
		}
		runs = append(runs, run)
	}
	f, err := connect(c)
	if err != nil {
		return err
	}
	defer f.Close()
	// Each run is queued, or refused, on its own: a file added again
	// queues what it holds that the fleet lacks.
	var refused []error
	for _, run := range runs {
		if _, err := f.Add(c.Context, run); err != nil {
			refused = append(refused, err)
			continue
		}
		fmt.Fprintln(c.App.Writer, run.Name)
	}
	return errors.Join(refused...)
}

// tasksOf are the runs add was asked for: the tasks of -f FILE, or the
// one of its arguments.
func tasksOf(c *cli.Context) ([]fleet.Task, error) {
	if file := c.String("file"); file != "" {
		if c.NArg() > 0 || c.IsSet("name") {
			return nil, errors.New("fleet add -f FILE takes its runs from FILE: no PROCEDURE, SCRIPT or --name beside it")
		}
		return fleet.ReadTasks(file)
	}
	if c.NArg() == 0 {
		return nil, errors.New("fleet add needs the PROCEDURE or SCRIPT to run, or -f FILE\nRun 'rooda fleet add --help' for usage.")
	}
	args := c.Args().Tail()
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	return []fleet.Task{{Name: c.String("name"), Run: c.Args().First(), Args: args}}, nil
}

// newRun is the run of t, at t's ref or --ref: of t's repository or
// --repo, at its top, or else of the checkout and the directory add runs
// in.
func newRun(c *cli.Context, t fleet.Task) (fleet.Run, error) {
	name := t.Name
	if name == "" {
		name = defaultName(t.Run)
	}
	if err := fleet.CheckName(name); err != nil {
		return fleet.Run{}, err
	}
	run := fleet.Run{Name: name, Argv: fleet.RoodaArgs(t.Run, t.Args)}
	ref := t.Ref
	if ref == "" {
		ref = c.String("ref")
	}
	repo := t.Repo
	if repo == "" {
		repo = c.String("repo")
	}
	if repo != "" {
		var err error
		if run.Repo, err = fleet.RepoOf(repo); err == nil {
			run.Ref, err = fleet.ResolveRemoteRef(c.Context, run.Repo, ref)
		}
		return run, err
	}
	cwd, err := os.Getwd()
	if err != nil {
		return fleet.Run{}, err
	}
	top, commit, err := fleet.ResolveRef(c.Context, cwd, ref)
	if err != nil {
		return fleet.Run{}, err
	}
	sub, err := filepath.Rel(top, cwd)
	if err != nil || strings.HasPrefix(sub, "..") {
		sub = "."
	}
	run.Dir, run.Ref, run.Subdir = top, commit, sub
	return run, nil
}

// defaultName is the procedure's or script's name, the time, and a
// random suffix, so that two adds in the same second differ.
func defaultName(target string) string {
	base := strings.TrimSuffix(filepath.Base(target), ".star")
	var clean strings.Builder
	for _, r := range base {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			clean.WriteRune(r)
		}
	}
	prefix := strings.TrimLeft(clean.String(), "-_")
	if prefix == "" {
		prefix = "run"
	}
	suffix := make([]byte, 2)
	rand.Read(suffix)
	return fmt.Sprintf("%s-%s-%s", prefix, time.Now().Format("20060102-150405"), hex.EncodeToString(suffix))
}
