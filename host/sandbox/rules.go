package sandbox

import (
	"os"
	"path/filepath"
	"strings"
)

// stateDirs are, by the format of a CLI's output (which names the CLI),
// the directories of its home that it writes its state to, as measured
// under Landlock: without them it fails, or its every tool call does.
// Each is made before the agent starts: a rule holds only a directory
// that exists.
var stateDirs = map[string][]place{
	"claude-stream-json": {{"CLAUDE_CONFIG_DIR", "", "~/.claude"}},
	"codex-json":         {{"CODEX_HOME", "", "~/.codex"}},
	"gemini-stream-json": {{"", "", "~/.gemini"}},
	"opencode-json": {{"XDG_CONFIG_HOME", "opencode", "~/.config/opencode"}, {"XDG_DATA_HOME", "opencode", "~/.local/share/opencode"},
		{"XDG_STATE_HOME", "opencode", "~/.local/state/opencode"}, {"XDG_CACHE_HOME", "opencode", "~/.cache/opencode"}, {"", "", "~/.npm"}},
	"copilot-json": {{"COPILOT_HOME", "", "~/.copilot"}, {"XDG_CACHE_HOME", "copilot", "~/.cache/copilot"}, {"XDG_CACHE_HOME", "Microsoft", "~/.cache/Microsoft"}},
}

// caches are the package and build caches an agent's commands write:
// ~/.cache (Go's build cache, pip's and most others'), Go's modules,
// npm's, cargo's.
var caches = []place{{"XDG_CACHE_HOME", "", "~/.cache"}, {"GOMODCACHE", "", "~/go/pkg/mod"}, {"npm_config_cache", "", "~/.npm"},
	{"CARGO_HOME", "registry", "~/.cargo/registry"}, {"CARGO_HOME", "git", "~/.cargo/git"}}

// place is a directory the environment may move: below, in the directory
// the variable env names when it is set, else otherwise.
type place struct{ env, below, otherwise string }

// path is where the place is, home being the home directory.
func (p place) path(home string) string {
	if dir := os.Getenv(p.env); p.env != "" && dir != "" {
		return filepath.Join(dir, p.below)
	}
	return expand(p.otherwise, home)
}

// devices are the files any program writes.
var devices = []string{"/dev/null", "/dev/zero", "/dev/full"}

// Paths are the paths an agent may write under a sandbox: its workspace
// (and, for a git worktree, what git writes in the repository for it),
// its own temporary directory, its CLI's state directories (format
// names the CLI), the caches, the devices, and those the user adds.
// The CLI's directories are made if need be: a rule holds only what
// exists, and the CLI could not make them itself.
func Paths(workspace, tmp, format string, extra []string) []string {
	home, _ := os.UserHomeDir()
	paths := []string{workspace, tmp}
	paths = append(paths, worktreeGit(workspace)...)
	for _, p := range stateDirs[format] {
		dir := p.path(home)
		os.MkdirAll(dir, 0o755)
		paths = append(paths, dir)
	}
	// The caches are not made: one not there yet is the rule's to skip,
	// and rooda leaves no ~/.cargo where there is no cargo.
	for _, p := range caches {
		paths = append(paths, p.path(home))
	}
	paths = append(paths, devices...)
	for _, p := range extra {
		if p = strings.TrimSpace(p); p != "" {
			paths = append(paths, expand(p, home))
		}
	}
	return paths
}

// expand puts the home directory for a leading ~/.
func expand(path, home string) string {
	if rest, ok := strings.CutPrefix(path, "~/"); ok && home != "" {
		return filepath.Join(home, rest)
	}
	return path
}

// worktreeGit is what git writes for a commit in a worktree, outside it:
// the worktree's own directory in the repository's .git, and the
// objects, refs and logs the worktrees share — not .git's hooks or
// config, through which the agent would reach outside the sandbox.
func worktreeGit(workspace string) []string {
	data, err := os.ReadFile(filepath.Join(workspace, ".git"))
	if err != nil {
		return nil // a directory, inside the workspace, or none
	}
	gitdir, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir: ")
	if !ok {
		return nil
	}
	common := filepath.Join(gitdir, "..", "..")
	return []string{gitdir, filepath.Join(common, "objects"), filepath.Join(common, "refs"), filepath.Join(common, "logs"), filepath.Join(common, "packed-refs")}
}
