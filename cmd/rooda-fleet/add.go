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
		ArgsUsage: "PROCEDURE|SCRIPT [ARGS…]",
		Description: `Queues a run of PROCEDURE (as rooda run takes it) or SCRIPT (a .star file, as
rooda script run takes it) with ARGS, which go to it as they are: give
add's own flags before PROCEDURE. The run works in a git worktree of the
checkout add runs in, at its HEAD (or --ref), in the same directory of it;
its commits go to the branch rooda/fleet/NAME of that checkout. It prints
the run's name.

Examples:
  rooda fleet add build -n 5 --ai-cmd-alias codex
  rooda fleet add --name auth-audit audit-impl -c "focus on auth"
  rooda fleet add nightly.star --max-cost-usd 5
  rooda fleet add --ref main build`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "name", Usage: "the run's `NAME` in the fleet (default: the procedure's, the time and a suffix)"},
			&cli.StringFlag{Name: "ref", Value: "HEAD", Usage: "the commit, branch or tag the run's workspace starts at, `REF`"},
			serverFlag(), storeFlag(),
		},
		Action: addAction,
	}
}

func addAction(c *cli.Context) error {
	if c.NArg() == 0 {
		return errors.New("fleet add needs the PROCEDURE or SCRIPT to run\nRun 'rooda fleet add --help' for usage.")
	}
	target, args := c.Args().First(), c.Args().Tail()
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	run, err := newRun(c, target, args)
	if err != nil {
		return err
	}
	f, err := fleet.Connect(c.Context, c.String("server"), c.String("store"))
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := f.Add(c.Context, run); err != nil {
		return err
	}
	fmt.Fprintln(c.App.Writer, run.Name)
	return nil
}

// newRun is the run of target with args, from the checkout and the
// directory add runs in.
func newRun(c *cli.Context, target string, args []string) (fleet.Run, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return fleet.Run{}, err
	}
	top, commit, err := fleet.ResolveRef(c.Context, cwd, c.String("ref"))
	if err != nil {
		return fleet.Run{}, err
	}
	sub, err := filepath.Rel(top, cwd)
	if err != nil || strings.HasPrefix(sub, "..") {
		sub = "."
	}
	name := c.String("name")
	if name == "" {
		name = defaultName(target)
	}
	if err := fleet.CheckName(name); err != nil {
		return fleet.Run{}, err
	}
	return fleet.Run{Name: name, Argv: fleet.RoodaArgs(target, args), Dir: top, Ref: commit, Subdir: sub}, nil
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
