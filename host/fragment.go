package host

import (
	"errors"
	"fmt"
	"strings"

	"go.starlark.net/syntax"

	"rooda/fragments"
	"rooda/host/prompt"
)

// The tip of seed 000's missing-file message, and what it means for a
// fragment a script names.
const (
	configTip = "Paths are resolved relative to the config file directory."
	scriptTip = "Paths are resolved relative to the .star file that names them."
)

// Fragment makes the fragment a script names at pos what the file at pos
// means by it, and checks it: it loads, and a template executes (seed
// 000's messages), so a mistake fails at the call.
func (r *Runtime) Fragment(pos syntax.Position, f prompt.Fragment) (prompt.Fragment, error) {
	f.Origin = fmt.Sprintf("%s:%d", pos.Filename(), pos.Line)
	f, err := r.place(r.files[pos.Filename()], f)
	if err != nil {
		return f, err
	}
	if err := prompt.CheckFragment(f); err != nil {
		return f, errors.New(strings.Replace(err.Error(), configTip, scriptTip, 1))
	}
	return f, nil
}

// place resolves a fragment's relative path against the module at loc:
// from its directory on disk, or, in the embedded standard library, by
// reading it from there. A library's fragment must be a file of the
// library, as its loads must: the file it reads, whose path is a path
// even when it starts with @, as a module's is not.
func (r *Runtime) place(loc Location, f prompt.Fragment) (prompt.Fragment, error) {
	if f.Path == "" || strings.HasPrefix(f.Path, fragments.Prefix) {
		return f, nil
	}
	if loc.library != "" {
		if _, err := r.resolver.ownFile(loc, f.Path); err != nil {
			return f, err
		}
	}
	if loc.Embedded == "" {
		f.Dir = loc.Dir()
		return f, nil
	}
	target, err := r.resolver.resolve(loc, f.Path)
	if err != nil {
		return f, err
	}
	data, err := r.resolver.read(Context(r.thread), target)
	if err != nil {
		return f, fmt.Errorf("fragment file not found: %s", target.Display)
	}
	f.Content, f.Path = string(data), ""
	return f, nil
}
