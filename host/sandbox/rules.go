package sandbox

import (
	"cmp"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// caches are the package and build caches an agent's commands write:
// ~/.cache (Go's build cache, pip's and most others'), Go's modules,
// npm's, cargo's.
var caches = []string{"${XDG_CACHE_HOME:-~/.cache}", "${GOMODCACHE:-~/go/pkg/mod}", "${npm_config_cache:-~/.npm}",
	"${CARGO_HOME:-~/.cargo}/registry", "${CARGO_HOME:-~/.cargo}/git"}

// devices are the files any program writes.
var devices = []string{"/dev/null", "/dev/zero", "/dev/full"}

// Paths are the paths an agent may write under a sandbox, those that
// exist: a rule holds only what exists. They are its workspace (and, for
// a git worktree, what git writes in the repository for it), its own
// temporary directory, its CLI's state directories (state, as its alias
// declares them: MakeDirs makes them first), the caches, the devices,
// and those the user adds. Each of state, the caches and extra is
// expanded (Expand), and one that names a variable not set is left out.
// Each path is made absolute (from rooda's working directory) and real
// (its links followed), as the trampoline compares it with what it hides.
func Paths(workspace, tmp string, state, extra []string) []string {
	// What git writes for a worktree outside it, GuardGit grants, from
	// the repository rooda recorded: never from the .git file, which an
	// agent rewrites.
	paths := []string{workspace, tmp}
	for _, p := range slices.Concat(state, caches, devices, extra) {
		if p, ok := Expand(strings.TrimSpace(p)); ok && p != "" {
			paths = append(paths, p)
		}
	}
	var real []string
	for _, p := range paths {
		if p, err := filepath.Abs(p); err == nil {
			if p, err = filepath.EvalSymlinks(p); err == nil && !slices.Contains(real, p) {
				real = append(real, p)
			}
		}
	}
	return real
}

// MakeDirs makes the directories dirs (expanded): a CLI's state
// directories, which it could not make itself, its home being closed to
// it. The caches are not made: rooda leaves no ~/.cargo where there is
// no cargo.
func MakeDirs(dirs []string) {
	for _, dir := range dirs {
		if dir, ok := Expand(dir); ok && dir != "" {
			os.MkdirAll(dir, 0o755)
		}
	}
}

// Expand puts in path the variables it names, $VAR or ${VAR}, with
// ${VAR:-default} for one that is unset or empty, then the home
// directory for a leading ~/. ok is false when a variable without a
// default is unset or empty: "$CACHE/" would otherwise be "/".
func Expand(path string) (expanded string, ok bool) {
	ok = true
	path = os.Expand(path, func(name string) string {
		name, otherwise, hasDefault := strings.Cut(name, ":-")
		value := cmp.Or(os.Getenv(name), otherwise)
		ok = ok && (value != "" || hasDefault)
		return value
	})
	if rest, found := strings.CutPrefix(path, "~/"); found {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, rest), ok
		}
	}
	return path, ok
}
