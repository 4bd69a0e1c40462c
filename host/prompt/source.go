package prompt

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"rooda/fragments"
	"rooda/host/files"
	"rooda/host/suggest"
)

// text returns the fragment's raw text, before any template runs. phase is
// where the fragment is used; it picks the list of alternatives shown when a
// builtin reference names nothing.
func (f Fragment) text(phase Phase) (string, error) {
	switch {
	case f.Content != "" && f.Path != "":
		return "", errors.New("cannot specify both content and path")
	case f.Content == "" && f.Path == "":
		return "", errors.New("must specify either content or path")
	case f.Content != "":
		return f.Content, nil
	case strings.HasPrefix(f.Path, fragments.Prefix):
		return readBuiltin(f.Path, phase)
	default:
		return readFile(f.Path, f.Dir)
	}
}

// readBuiltin reads a reference into the embedded library.
func readBuiltin(ref string, phase Phase) (string, error) {
	if text, ok := fragments.Read(ref); ok {
		return text, nil
	}
	// List the phase the reference points into, if it names one: that is
	// where the user was looking.
	listed := phase.String()
	if p, ok := ParsePhase(refPhase(ref)); ok {
		listed = p.String()
	}
	names := fragments.Names(listed)
	var b strings.Builder
	fmt.Fprintf(&b, "embedded fragment not found: %s\n\nAvailable builtin fragments for %s phase:", ref, listed)
	for _, name := range names {
		b.WriteString("\n  " + name)
	}
	if near := suggest.Closest(filepath.Base(ref), names); near != "" {
		fmt.Fprintf(&b, "\n\nDid you mean: %s", fragments.Ref(listed, near))
	}
	return "", errors.New(b.String())
}

// refPhase returns the phase directory a builtin reference names, if any.
func refPhase(ref string) string {
	rest := strings.TrimPrefix(ref, fragments.Prefix)
	rest = strings.TrimPrefix(rest, "fragments/")
	phase, _, _ := strings.Cut(rest, "/")
	return phase
}

// readFile reads a fragment file; a relative path is taken from dir.
func readFile(path, dir string) (string, error) {
	resolved := resolve(path, dir)
	data, err := files.Read(resolved, files.PromptLimit)
	if err == nil {
		return string(data), nil
	}
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("fragment file not found: %s\nResolved to: %s\n\n%s", path, resolved, notFoundHint(path))
	}
	if info, statErr := os.Stat(resolved); statErr == nil && info.IsDir() {
		return "", fmt.Errorf("fragment path is a directory, not a file: %s\nResolved to: %s", path, resolved)
	}
	return "", fmt.Errorf("cannot read fragment file %s: %v", path, errors.Unwrap(err))
}

// resolve makes path absolute, relative paths being taken from dir.
func resolve(path, dir string) string {
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return path
}

// notFoundHint explains a missing fragment file. A path that would have
// been a builtin with the prefix spelt right, or present at all, gets the
// correct spelling; anything else gets the general tip.
func notFoundHint(path string) string {
	if prefix := fragments.Prefix; len(path) >= len(prefix) && strings.EqualFold(path[:len(prefix)], prefix) {
		hint := "Note: The builtin: prefix is case-sensitive and must be lowercase."
		if fixed := prefix + path[len(prefix):]; isBuiltin(fixed) {
			hint = "Did you mean: " + fixed + "\n" + hint
		}
		return hint
	}
	if fixed := fragments.Prefix + path; isBuiltin(fixed) {
		return "Did you mean: " + fixed + "\nNote: Fragments of the embedded library need the builtin: prefix."
	}
	return "Tip: Check that the file exists and the path is correct.\n" +
		"     Paths are resolved relative to the config file directory."
}

func isBuiltin(ref string) bool {
	_, ok := fragments.Read(ref)
	return ok
}
