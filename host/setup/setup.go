// Package setup sets a repository up for rooda (rooda init): it chooses
// the agent among the CLIs installed, writes a commented rooda-config.yml
// that names it, and an AGENTS.md skeleton for the built-in procedures to
// read unless there is one. It replaces nothing unless forced, and never
// an AGENTS.md.
package setup

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"rooda/host/agents"
	"rooda/host/files"
	"rooda/host/suggest"
)

// AgentsFile is the file the built-in procedures read first.
const AgentsFile = "AGENTS.md"

// Choice is what the agent is chosen from.
type Choice struct {
	// Asked is --agent: an alias, "" when not given.
	Asked string
	// Found are the aliases whose CLI is installed.
	Found []agents.Found
	// Aliases names every alias, installed or not.
	Aliases []string
	// NoneFound says that none is installed and how to install one.
	NoneFound string
	// Ask, when set (stdin is a terminal), asks the user to pick among
	// several; nil when no one can be asked.
	Ask func([]agents.Found) (agents.Found, error)
}

// Choose picks the agent: the one asked for, which must be installed;
// else the only one installed; else, when someone can be asked, the one
// they pick.
func Choose(c Choice) (agents.Found, error) {
	if c.Asked != "" {
		return c.asked()
	}
	switch {
	case len(c.Found) == 0:
		return agents.Found{}, fmt.Errorf("no agent CLI to set up\n%s", c.NoneFound)
	case len(c.Found) == 1:
		return c.Found[0], nil
	case c.Ask != nil:
		return c.Ask(c.Found)
	}
	names := agents.Names(c.Found)
	return agents.Found{}, fmt.Errorf("several agent CLIs are on PATH: %s\nChoose one with --agent, as in: rooda init --agent %s", strings.Join(names, ", "), names[0])
}

// asked is the agent --agent names, if it is installed.
func (c Choice) asked() (agents.Found, error) {
	for _, f := range c.Found {
		if f.Alias == c.Asked {
			return f, nil
		}
	}
	known := false
	for _, a := range c.Aliases {
		known = known || a == c.Asked
	}
	if !known {
		msg := fmt.Sprintf("--agent %s: rooda knows no such agent", c.Asked)
		if near := suggest.Closest(c.Asked, c.Aliases); near != "" {
			msg += fmt.Sprintf(" (did you mean %s?)", near)
		}
		return agents.Found{}, fmt.Errorf("%s\nThe agents rooda knows: %s", msg, strings.Join(c.Aliases, ", "))
	}
	if len(c.Found) == 0 {
		return agents.Found{}, fmt.Errorf("--agent %s: it is not installed (not on PATH)\n%s", c.Asked, c.NoneFound)
	}
	names := agents.Names(c.Found)
	return agents.Found{}, fmt.Errorf("--agent %s: it is not installed (not on PATH)\nFound on PATH: %s\nInstall %s first, or choose one of those: rooda init --agent %s", c.Asked, strings.Join(names, ", "), c.Asked, names[0])
}

// Ask asks on out which of found to use, and reads the answer, a number,
// from in; it asks again after an answer that is none of them.
func Ask(in io.Reader, out io.Writer) func([]agents.Found) (agents.Found, error) {
	return func(found []agents.Found) (agents.Found, error) {
		fmt.Fprintln(out, "Agent CLIs found on PATH:")
		for i, f := range found {
			fmt.Fprintf(out, "  %d) %-14s %s\n", i+1, f.Alias, f.Path)
		}
		lines := bufio.NewScanner(in)
		for {
			fmt.Fprintf(out, "Which one should rooda run? [1-%d]: ", len(found))
			if !lines.Scan() {
				fmt.Fprintln(out)
				return agents.Found{}, errors.New("no agent chosen; rooda init --agent NAME chooses one without asking")
			}
			n, err := strconv.Atoi(strings.TrimSpace(lines.Text()))
			if err == nil && n >= 1 && n <= len(found) {
				return found[n-1], nil
			}
			fmt.Fprintf(out, "Answer with a number from 1 to %d.\n", len(found))
		}
	}
}

// Existing lists the files Write would replace: the configuration, if it
// is there.
func Existing(configPath string) []string {
	if _, err := os.Lstat(configPath); err == nil {
		return []string{configPath}
	}
	return nil
}

// Written tells what Write did.
type Written struct {
	// AgentsKept is true when an AGENTS.md was there, and left alone.
	AgentsKept bool
}

// Write writes the configuration at configPath, naming agent, and an
// AGENTS.md skeleton in dir unless there is one. It replaces the
// configuration only when force is set.
func Write(dir, configPath string, agent Agent, aliases []string, force bool) (Written, error) {
	var w Written
	if err := writeFile(configPath, ConfigText(agent, aliases), force); err != nil {
		return w, err
	}
	err := writeFile(filepath.Join(dir, AgentsFile), agentsSkeleton, false)
	if errors.Is(err, fs.ErrExist) {
		w.AgentsKept, err = true, nil
	}
	return w, err
}

// writeFile writes content to path, which must not exist unless replace
// is set: a file made meanwhile is not overwritten.
func writeFile(path, content string, replace bool) error {
	if replace {
		// Whole or not at all: a killed init leaves the old file.
		return files.WriteWhole(path, []byte(content))
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, err = f.WriteString(content)
	return errors.Join(err, f.Close())
}
