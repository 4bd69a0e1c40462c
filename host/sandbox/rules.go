package sandbox

import (
	"cmp"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"rooda/host/files"
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
// declares them: MakeDirs makes them first, so they are named whether
// they exist yet or not, and a dry run lists what the first iteration
// applies), the caches, the devices, and those the user adds. Each of
// state, the caches and extra is expanded (Expand), and one that names a
// variable not set is left out. Each path is made absolute (from rooda's
// working directory) and real (its links followed), as the trampoline
// compares it with what it hides.
func Paths(workspace, tmp string, state, extra []string) []string {
	var real []string
	add := func(p string, ok bool) {
		if ok && !slices.Contains(real, p) {
			real = append(real, p)
		}
	}
	// What git writes for a worktree outside it, GuardGit grants, from
	// the repository rooda recorded: never from the .git file, which an
	// agent rewrites.
	for _, p := range []string{workspace, tmp} {
		add(existing(p))
	}
	var made []string
	for _, p := range expanded(state) {
		to := ToBe(p)
		made = append(made, to)
		add(to, true)
	}
	for _, p := range expanded(slices.Concat(caches, devices, extra)) {
		add(existingOnceMade(p, made))
	}
	return real
}

// existingOnceMade is path absolute and real if it exists, or will once
// the directories made are (MakeDirs makes an agent's state directories
// before it starts): ~/.cache, made with ~/.cache/opencode. A dry run,
// which makes nothing, so names what the first iteration's agent writes.
func existingOnceMade(path string, made []string) (string, bool) {
	if real, ok := existing(path); ok {
		return real, true
	}
	// ToBe resolves each parent in turn: an iteration asks this of each
	// missing cache.
	if len(made) == 0 {
		return "", false
	}
	to := ToBe(path)
	for _, dir := range made {
		if _, within := files.Within(to, dir); within {
			return to, true
		}
	}
	return "", false
}

// expanded are paths expanded (Expand), without those that name a
// variable not set.
func expanded(paths []string) []string {
	var out []string
	for _, p := range paths {
		if p, ok := Expand(strings.TrimSpace(p)); ok && p != "" {
			out = append(out, p)
		}
	}
	return out
}

// existing is path absolute and real, if it exists.
func existing(path string) (string, bool) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", false
	}
	real, err := filepath.EvalSymlinks(abs)
	return real, err == nil
}

// ToBe is path absolute and real as far as it exists, the rest as it
// is: the real path it will have once made.
func ToBe(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return path
	}
	rest := ""
	for dir := abs; ; dir = filepath.Dir(dir) {
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(real, rest)
		}
		if dir == filepath.Dir(dir) {
			return abs
		}
		rest = filepath.Join(filepath.Base(dir), rest)
	}
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
// directory for a leading ~/, or a ~ alone. ok is false when a variable without a
// default is unset or empty: "$CACHE/" would otherwise be "/".
func Expand(path string) (expanded string, ok bool) {
	ok = true
	path = os.Expand(path, func(name string) string {
		name, otherwise, hasDefault := strings.Cut(name, ":-")
		value := cmp.Or(os.Getenv(name), otherwise)
		ok = ok && (value != "" || hasDefault)
		return value
	})
	if path == "~" {
		path = "~/"
	}
	if rest, found := strings.CutPrefix(path, "~/"); found {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, rest), ok
		}
	}
	return path, ok
}
