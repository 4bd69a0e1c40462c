package host

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"rooda/host/files"
	"rooda/host/libs"
	"rooda/host/suggest"
)

// stdlib is the name under which the embedded standard library loads:
// load("@rooda//lib.star", …).
const stdlib = "rooda"

// Location is where a module's source is: a file on disk, or a file of the
// embedded standard library.
type Location struct {
	// Display is the name positions and messages show: a path relative to
	// the working directory, or "@rooda//x.star", "@team//x.star".
	Display string
	// Path is the file's absolute path; "" for an embedded file.
	Path string
	// Embedded is the file's path in the standard library's file system.
	Embedded string
	// library and rel place a library file: load("@team//rel").
	library, rel string
	// canonical is Path with symbolic links resolved, when they can be:
	// one file reached by two paths is one module.
	canonical string
}

// onDisk is the location of the file at abs.
func onDisk(display, abs string) Location {
	return Location{Display: display, Path: abs, canonical: files.Canonical(abs)}
}

// key is the location's identity in the module cache.
func (l Location) key() string {
	if l.Path != "" {
		return l.canonical
	}
	return "@" + stdlib + "//" + l.Embedded
}

// Dir is the directory a relative path in the module is taken from: an
// absolute directory, or "" for an embedded module.
func (l Location) Dir() string {
	if l.Path == "" {
		return ""
	}
	return filepath.Dir(l.Path)
}

// resolver turns load() strings into locations.
type resolver struct {
	workDir   string
	libraries map[string]string // name → absolute directory
	unready   map[string]string // name → why it cannot be loaded now
	embedded  fs.FS
}

// root is the location of the script a run starts with.
func (r *resolver) root(file string) (Location, error) {
	abs, err := filepath.Abs(file)
	if err != nil {
		return Location{}, err
	}
	return onDisk(r.display(abs), abs), nil
}

// resolve finds module as load() names it from the module at from: a
// path relative to from, @rooda//path in the standard library, or
// @name//path in a configured library.
func (r *resolver) resolve(from Location, module string) (Location, error) {
	if strings.HasPrefix(module, "@") {
		name, rel, ok := strings.Cut(module[1:], "//")
		if !ok || name == "" || rel == "" {
			return Location{}, fmt.Errorf("%q is not a module: write a path relative to this file, @rooda//path or @library//path", module)
		}
		return r.inLibrary(name, rel)
	}
	switch {
	case module == "" || strings.HasSuffix(module, "/"):
		return Location{}, fmt.Errorf("%q is not a module: write a path relative to this file, @rooda//path or @library//path", module)
	case from.Embedded != "":
		return r.inLibrary(stdlib, path.Join(path.Dir(from.Embedded), module))
	case from.library != "":
		return r.ownFile(from, module)
	}
	abs := module
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(filepath.Dir(from.Path), module)
	}
	return onDisk(r.display(abs), abs), nil
}

// ownFile is the file at rel, relative to from, in from's library: a
// library names only its own files. rel is a path, even when it starts
// with @.
func (r *resolver) ownFile(from Location, rel string) (Location, error) {
	if filepath.IsAbs(rel) {
		return Location{}, fmt.Errorf("%s is an absolute path: a library names its own files by paths relative to them", rel)
	}
	return r.inLibrary(from.library, path.Join(path.Dir(from.rel), filepath.ToSlash(rel)))
}

// inLibrary is rel in the named library.
func (r *resolver) inLibrary(name, rel string) (Location, error) {
	rel = path.Clean(rel)
	if rel == ".." || strings.HasPrefix(rel, "../") || path.IsAbs(rel) {
		return Location{}, fmt.Errorf("@%s//%s leaves the library %s: a library names only its own files", name, rel, name)
	}
	display := "@" + name + "//" + rel
	if name == stdlib {
		return Location{Display: display, Embedded: rel}, nil
	}
	dir, ok := r.libraries[name]
	if why, unready := r.unready[name]; !ok && unready {
		return Location{}, errors.New(why)
	}
	if !ok {
		return Location{}, r.unknownLibrary(name)
	}
	l := onDisk(display, filepath.Join(dir, filepath.FromSlash(rel)))
	l.library, l.rel = name, rel
	// A library's files are its own: a link out of it would load what no
	// pin covers and no reviewer of the library saw.
	if target, out := libs.Outside(dir, l.Path); out {
		return Location{}, fmt.Errorf("%s leads through a symbolic link to %s, outside the library %s (%s); a library's links must stay inside it: point the link into the library, or copy the file in",
			display, target, name, dir)
	}
	return l, nil
}

func (r *resolver) unknownLibrary(name string) error {
	names := append(slices.Collect(maps.Keys(r.libraries)), stdlib)
	slices.Sort(names)
	msg := fmt.Sprintf("unknown library @%s (libraries: @%s); name it in rooda-config.yml (libraries: {%s: path}) or with --lib %s=DIR",
		name, strings.Join(names, ", @"), name, name)
	if near := suggest.Closest(name, names); near != "" {
		msg += fmt.Sprintf("; did you mean @%s?", near)
	}
	return errors.New(msg)
}

// read returns the module's source. Reading a pipe ends when ctx does:
// a script may be a named pipe whose writer never writes.
func (r *resolver) read(ctx context.Context, l Location) ([]byte, error) {
	var data []byte
	var err error
	if l.Path == "" {
		data, err = fs.ReadFile(r.embedded, l.Embedded)
	} else {
		data, err = files.ReadContext(ctx, l.Path, files.ScriptLimit)
	}
	if errors.Is(err, fs.ErrNotExist) && l.Path == "" {
		return nil, r.notInStdlib(l)
	}
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("file not found: %s", l.Display)
	}
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %v", l.Display, errors.Unwrap(err))
	}
	return data, nil
}

// display names a file as a user in the working directory would: relative
// when it is below it, absolute otherwise.
func (r *resolver) display(abs string) string { return files.Shown(r.workDir, abs) }

// modules are the standard library's modules, as load() names them: the
// .star files at its top, less tests ("@rooda//termination.star").
func (r *resolver) modules() []string {
	if r.embedded == nil {
		return nil
	}
	found, _ := fs.Glob(r.embedded, "*.star")
	var out []string
	for _, name := range found {
		if !strings.HasSuffix(name, "_test.star") {
			out = append(out, "@"+stdlib+"//"+name)
		}
	}
	return out
}

// notInStdlib is the error for a standard library file that does not
// exist: it lists the modules there are, so that a typo shows itself.
func (r *resolver) notInStdlib(l Location) error {
	return fmt.Errorf("file not found: %s (the standard library has %s)", l.Display, strings.Join(r.modules(), ", "))
}
