package reference

import (
	"io/fs"
	"path"
	"strings"

	"go.starlark.net/starlark"

	"rooda/host"
)

// Stdlib loads every module of the embedded standard library (its
// top-level .star files but the tests) with r, by the name scripts load
// it by.
func Stdlib(r *host.Runtime, files fs.FS) (map[string]starlark.StringDict, error) {
	names, err := fs.Glob(files, "*.star")
	if err != nil {
		return nil, err
	}
	out := map[string]starlark.StringDict{}
	for _, name := range names {
		if strings.HasSuffix(name, "_test.star") {
			continue
		}
		module := "@rooda//" + path.Clean(name)
		globals, err := r.Load(module)
		if err != nil {
			return nil, err
		}
		out[module] = globals
	}
	return out, nil
}
