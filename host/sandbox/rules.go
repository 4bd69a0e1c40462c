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
var stateDirs = map[string][]string{
	"claude-stream-json": {"~/.claude"},
	"codex-json":         {"~/.codex"},
	"gemini-stream-json": {"~/.gemini"},
	"opencode-json":      {"~/.config/opencode", "~/.local/share/opencode", "~/.local/state/opencode", "~/.cache/opencode", "~/.npm"},
	"copilot-json":       {"~/.copilot", "~/.cache/copilot", "~/.cache/Microsoft"},
}

// caches are the package and build caches an agent's commands write:
// Go's, npm's, pip's, cargo's, and ~/.cache where most others go.
var caches = []string{"~/.cache", "~/go/pkg/mod", "~/.npm", "~/.cargo/registry", "~/.cargo/git"}

// devices are the files any program writes.
var devices = []string{"/dev/null", "/dev/zero", "/dev/full"}

// Paths are the paths an agent may write under a sandbox: its workspace
// (and, for a git worktree, what git writes in the repository for it),
// its own temporary directory, its CLI's state directories (format
// names the CLI), the caches, the devices, and those the user adds.
// Directories of the CLI's and the caches are made if need be.
func Paths(workspace, tmp, format string, extra []string) []string {
	home, _ := os.UserHomeDir()
	paths := []string{workspace, tmp}
	paths = append(paths, worktreeGit(workspace)...)
	for _, dir := range append(append([]string{}, stateDirs[format]...), caches...) {
		dir = expand(dir, home)
		os.MkdirAll(dir, 0o755)
		paths = append(paths, dir)
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
