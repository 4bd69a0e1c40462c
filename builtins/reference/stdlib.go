package reference

import (
	"errors"
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

// Libraries documents every module of r's libraries from its
// docstrings, as script doc FILE.star does. unready names each git
// library the cache lacks, and why: left out. A library or a module that
// cannot be read is an error, the others documented all the same.
func Libraries(r *host.Runtime) (entries []Entry, unready map[string]string, err error) {
	modules, unready, err := r.LibraryModules()
	errs := []error{err}
	for _, module := range modules {
		display, src, err := r.Source(module)
		if err == nil {
			var found []Entry
			_, found, err = Module(display, src)
			entries = append(entries, found...)
		}
		errs = append(errs, err)
	}
	return entries, unready, errors.Join(errs...)
}
