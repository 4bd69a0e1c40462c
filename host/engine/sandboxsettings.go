package engine

import (
	"fmt"
	"os"
	"strings"

	"rooda/host/config"
	"rooda/host/files"
	"rooda/host/sandbox"
)

// The sandbox's settings say what they do: under sandbox: off each is
// said to do nothing; a sandbox_write path that voids the sandbox is
// refused unless forced (forced), one that does not exist, or names a
// variable not set, is warned about, as is a sandbox_hide path that
// does not exist.

// forced begins a sandbox_write path given though it voids the sandbox.
const forced = "!"

// unforced are paths without their forced mark.
func unforced(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = strings.TrimPrefix(strings.TrimSpace(p), forced)
	}
	return out
}

// sandboxGiven names each setting that applies only under a sandbox and
// is given, with where: "sandbox_net (cli: --sandbox-net)", so that
// sandbox: off says it does nothing.
func (p *Plan) sandboxGiven() []string {
	s := p.Settings
	w, h, n, hosts := config.SandboxWrite.In(s), config.SandboxHide.In(s), config.SandboxNet.In(s), config.SandboxHosts.In(s)
	var given []string
	for _, g := range []struct {
		key   string
		set   bool
		where string
	}{
		{config.SandboxWrite.Key, w.V != "", w.Where()},
		{config.SandboxHide.Key, h.V != "", h.Where()},
		{config.SandboxNet.Key, len(n.V) > 0, n.Where()},
		{config.SandboxHosts.Key, len(hosts.V) > 0, hosts.Where()},
	} {
		if g.set {
			given = append(given, fmt.Sprintf("%s (%s)", g.key, g.where))
		}
	}
	return given
}

// offWarnings say that each sandbox setting given does nothing under
// sandbox: off.
func (p *Plan) offWarnings() []string {
	var out []string
	for _, g := range p.sandboxGiven() {
		out = append(out, g+" has no effect under sandbox: off")
	}
	return out
}

// pathWarnings are what a sandbox_write or sandbox_hide path does not do
// as written: it names a variable not set (left out), or it does not
// exist. A sandbox_write path inside one the agent writes anyway (its
// workspace) is not warned about: the agent may make it; nor one that
// voids the sandbox (voided).
func (p *Plan) pathWarnings() []string {
	write, hide := config.SandboxWrite.In(p.Settings), config.SandboxHide.In(p.Settings)
	base := sandbox.Paths(workspaceOf(""), "", nil, nil)
	var out []string
	for _, raw := range unforced(sandboxList(write)) {
		path, ok := sandbox.Expand(raw)
		switch {
		case ok && path != "" && p.voids(sandbox.ToBe(path)) != "":
			// Refused, or forced: said already, or meant.
		case !ok:
			out = append(out, fmt.Sprintf("sandbox_write: %s (%s) names a variable that is not set: left out", raw, write.Where()))
		case path != "" && !exists(path) && !insideAny(sandbox.ToBe(path), base):
			out = append(out, fmt.Sprintf("sandbox_write: %s (%s) does not exist: the agent cannot make it; made by another while the run goes on, it is the agent's to write from the next iteration on", raw, write.Where()))
		}
	}
	for _, raw := range sandboxList(hide) {
		path, ok := sandbox.Expand(strings.TrimSpace(raw))
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("sandbox_hide: %s (%s) names a variable that is not set: left out", raw, hide.Where()))
		case path != "" && !exists(path):
			out = append(out, fmt.Sprintf("sandbox_hide: %s (%s) does not exist: nothing to hide; made while the run goes on, it is hidden from the next iteration on", raw, hide.Where()))
		}
	}
	return out
}

// voided refuses each sandbox_write path that voids the sandbox, unless
// forced.
func (p *Plan) voided() {
	write := config.SandboxWrite.In(p.Settings)
	for _, raw := range sandboxList(write) {
		raw = strings.TrimSpace(raw)
		if strings.HasPrefix(raw, forced) {
			continue
		}
		path, ok := sandbox.Expand(raw)
		if !ok || path == "" {
			continue
		}
		if why := p.voids(sandbox.ToBe(path)); why != "" {
			p.fail("", fmt.Errorf("sandbox_write: %s (%s) is refused: %s, so the sandbox would hold nothing; to give it anyway, write it %q", raw, write.Where(), why, forced+raw))
		}
	}
}

// voids says why letting the agent write path would void the sandbox,
// "" when it would not: path is /, or holds the home directory or the
// configuration directory (the shell's startup files, git's and
// systemd's user configuration: commands run as the user, outside the
// sandbox), or is rooda's records or inside them (a resume replays
// them).
func (p *Plan) voids(path string) string {
	home, _ := os.UserHomeDir()
	configDir, _ := sandbox.Expand("${XDG_CONFIG_HOME:-~/.config}")
	runs := RunsDir(&p.Settings.Limits)
	switch {
	case path == "/":
		return "it is / (every file you may write)"
	case home != "" && holds(path, home):
		return "it holds your home directory " + home + ", whose startup files run commands as you, outside the sandbox"
	case configDir != "" && holds(path, configDir):
		return "it holds " + configDir + ", whose configuration (git's, systemd's user units) runs commands as you, outside the sandbox"
	case holds(sandbox.ToBe(runs), path):
		return "it lies in rooda's records " + runs + ", which a resume replays"
	}
	return ""
}

// holds says whether path is dir or a directory above it, both made
// real as far as they exist.
func holds(path, dir string) bool {
	_, ok := files.Within(sandbox.ToBe(path), sandbox.ToBe(dir))
	return ok
}

// insideAny says whether path lies in one of dirs.
func insideAny(path string, dirs []string) bool {
	for _, d := range dirs {
		if _, ok := files.Within(d, path); ok {
			return true
		}
	}
	return false
}

// exists says whether path exists.
func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
