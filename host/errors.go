package host

import (
	"fmt"
	"io/fs"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"

	"go.starlark.net/resolve"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"

	"rooda/host/suggest"
)

// Error is a script's failure as the user reads it: every syntax and
// resolve error with file:line:col, or the deepest backtrace (so that an
// error inside a loaded library shows the library's line), with hints.
// It wraps the original error, so typed outcomes (a budget, an
// interrupt) still decide the exit code.
type Error struct {
	text string
	err  error
}

func (e *Error) Error() string  { return e.text }
func (e *Error) Unwrap() error  { return e.err }
func (e *Error) Report() string { return e.text }

func newError(err error, h hints) *Error {
	return &Error{text: format(err, h), err: err}
}

// ParallelError is the error of one function of parallel(), which ran on
// a thread of its own: its traceback starts in the function, so the
// message says which it was.
type ParallelError struct {
	Index int // from 1
	Name  string
	Err   error
}

func (e *ParallelError) Error() string {
	return fmt.Sprintf("parallel(): function %d (%s) failed: %v", e.Index, e.Name, e.Err)
}
func (e *ParallelError) Unwrap() error { return e.Err }

// format writes err for the user.
func format(err error, h hints) string {
	h.inParallel = len(parallelFailures(err)) > 0
	return h.add(describe(err))
}

// describe is err without hints: each failure of a parallel() under a
// header naming its function, for each ran on a thread of its own and
// failed on its own, else the one error.
func describe(err error) string {
	if failures := parallelFailures(err); len(failures) > 0 {
		parts := make([]string, len(failures))
		for i, f := range failures {
			parts[i] = fmt.Sprintf("parallel(): function %d (%s) failed:\n%s", f.Index, f.Name, describe(f.Err))
		}
		return strings.Join(parts, "\n")
	}
	if b := budget(err); b != nil && b.Untraced {
		return "Error: " + at(deepest(err)) + b.Error()
	}
	var lines []string
	if ev := deepest(err); ev != nil {
		bt := strings.TrimRight(ev.Backtrace(), "\n")
		lines = append(lines, strings.Split(collapseName(bt), "\n")...)
	}
	for _, e := range static(err) {
		lines = append(lines, "Error: "+e)
	}
	if len(lines) == 0 {
		lines = append(lines, "Error: "+err.Error())
	}
	if b := budget(err); b != nil {
		lines[len(lines)-1] = "Error: " + b.Error()
	}
	return strings.Join(lines, "\n")
}

// at is where the script was when ev happened, as a message begins with
// it: "main.star:3:8: "; "" when no line of the script is known.
func at(ev *starlark.EvalError) string {
	if ev == nil {
		return ""
	}
	for i := len(ev.CallStack) - 1; i >= 0; i-- {
		if pos := ev.CallStack[i].Pos; pos.IsValid() && pos.Filename() != "<builtin>" {
			return pos.String() + ": "
		}
	}
	return ""
}

// parallelFailures are the failures of the first parallel() in err's
// chain, every one of them: parallel() joins them (errors.Join).
func parallelFailures(err error) []*ParallelError {
	for e := err; e != nil; e = unwrapFirst(e) {
		if p, ok := e.(*ParallelError); ok {
			return []*ParallelError{p}
		}
		joined, ok := e.(interface{ Unwrap() []error })
		if !ok {
			continue
		}
		var failures []*ParallelError
		for _, each := range joined.Unwrap() {
			if p, ok := each.(*ParallelError); ok {
				failures = append(failures, p)
			}
		}
		if len(failures) > 0 {
			return failures
		}
	}
	return nil
}

// deepest is the innermost *starlark.EvalError in err's chain: for an
// error in a loaded module, the one whose backtrace reaches into it.
func deepest(err error) *starlark.EvalError {
	var found *starlark.EvalError
	for err != nil {
		if ev, ok := err.(*starlark.EvalError); ok {
			found = ev
		}
		err = unwrapFirst(err)
	}
	return found
}

func unwrapFirst(err error) error {
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		return u.Unwrap()
	case interface{ Unwrap() []error }:
		if errs := u.Unwrap(); len(errs) > 0 {
			return errs[0]
		}
	}
	return nil
}

// static returns the syntax and resolve errors in err's chain, each with
// its position: all of a resolve list, where its Error shows only the
// first. For an error met while loading a module, the first is already in
// the backtrace's message and only the others are returned.
func static(err error) []string {
	inLoad := deepest(err) != nil
	for e := err; e != nil; e = unwrapFirst(e) {
		switch s := e.(type) {
		case resolve.ErrorList:
			var out []string
			for i, r := range s {
				if i > 0 || !inLoad {
					out = append(out, r.Error())
				}
			}
			return out
		case syntax.Error:
			if inLoad {
				return nil
			}
			return []string{s.Error()}
		}
	}
	return nil
}

// collapseName removes the builtin's name that an argument error repeats
// after the backtrace's "Error in NAME:".
func collapseName(bt string) string {
	return repeatedName().ReplaceAllStringFunc(bt, func(m string) string {
		parts := repeatedName().FindStringSubmatch(m)
		if parts[1] != parts[2] {
			return m
		}
		return "Error in " + parts[1] + ": "
	})
}

var repeatedName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^Error in ([\w.]+): ([\w.]+): `) })

var (
	undefined = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`undefined: (\w+)$`) })
	// frozenValue matches the interpreter's words for a change to a frozen
	// value: "cannot append to frozen list", "cannot insert into frozen
	// hash table", "frozen set".
	frozenValue = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^Error.*\bfrozen (list|hash table|dict|set)\b`) })
	literals    = map[string]string{"true": "True", "false": "False", "null": "None", "nil": "None", "none": "None"}
	// pythonOnly are Python's builtins that Starlark lacks, and what a
	// script writes instead.
	pythonOnly = map[string]string{
		"round": "math.round(x)", "pow": "math.pow(x, y)", "divmod": "(a // b, a % b)",
		"isinstance": `type(x) == "int"`, "open": `file("x.md"), or run("cat x.md").output`,
	}
)

// hints are what a script's error can be helped with: the names every
// script knows, and the names the standard library's modules define.
type hints struct {
	known []string
	// library maps a name to the standard library module that defines
	// it: "until_command" → "@rooda//termination.star". It parses every
	// module of the library, so it is asked only of an undefined name,
	// not by every script check that finds nothing.
	library func() map[string]string
	// inParallel is set for an error of a function parallel() ran, which
	// a frozen value has another reason than a loaded module.
	inParallel bool
}

// hints are this runtime's: its predeclared names and its standard
// library's.
func (r *Runtime) hints() hints {
	return hints{known: names(r.opts.Predeclared), library: r.libraryNames}
}

// add adds what is cheap to know: the standard library module that
// defines an undefined name, the predeclared name it is close to,
// Python's spellings of True/False/None, and why a value is frozen.
func (h hints) add(text string) string {
	lines := strings.Split(text, "\n")
	for i, line := range lines {
		m := undefined().FindStringSubmatch(line)
		if m == nil {
			continue
		}
		if module, ok := h.library()[m[1]]; ok {
			lines[i] += fmt.Sprintf(" (%s defines it: load(%q, %q))", module, module, m[1])
		} else if fix, ok := literals[m[1]]; ok {
			lines[i] += fmt.Sprintf(" (did you mean %s?)", fix)
		} else if instead, ok := pythonOnly[m[1]]; ok {
			lines[i] += fmt.Sprintf(" (Starlark has no %s: write %s)", m[1], instead)
		} else if near := suggest.Closest(m[1], h.known); near != "" {
			lines[i] += fmt.Sprintf(" (did you mean %s?)", near)
		}
	}
	text = strings.Join(lines, "\n")
	if frozenValue().MatchString(text) {
		if h.inParallel {
			text += "\nHint: a function parallel() runs shares every value it can reach with the others, frozen: return what it makes, and collect from parallel()'s results."
		} else {
			text += "\nHint: a module's values are frozen once it has loaded: a library cannot change them, nor can a script change what it loaded. Build new lists and dicts in a function and return them."
		}
	}
	return text
}

// names are the names every script knows: the predeclared ones and the
// universe's.
func names(predeclared starlark.StringDict) []string {
	out := slices.AppendSeq(slices.Collect(maps.Keys(predeclared)), maps.Keys(starlark.Universe))
	slices.Sort(out)
	return out
}

// libraryNames maps each name the standard library's modules define to
// the module, so that an undefined until_command can say where it is.
// The modules are parsed once per runtime, when an error first needs them.
func (r *Runtime) libraryNames() map[string]string {
	r.libraryOnce.Do(func() {
		r.library = map[string]string{}
		for _, module := range r.resolver.modules() {
			loc, err := r.resolver.resolve(Location{}, module)
			if err != nil {
				continue
			}
			src, err := fs.ReadFile(r.resolver.embedded, loc.Embedded)
			if err != nil {
				continue
			}
			f, err := FileOptions.Parse(module, src, 0)
			if err != nil {
				continue
			}
			for _, name := range topLevelNames(f) {
				if _, taken := r.library[name]; !taken {
					r.library[name] = module
				}
			}
		}
	})
	return r.library
}

// topLevelNames are the names a parsed (unresolved) module defines at its
// top level and exports: its defs and assigned names, less those that
// start with _.
func topLevelNames(f *syntax.File) []string {
	var out []string
	for _, stmt := range f.Stmts {
		var id *syntax.Ident
		switch s := stmt.(type) {
		case *syntax.DefStmt:
			id = s.Name
		case *syntax.AssignStmt:
			id, _ = s.LHS.(*syntax.Ident)
		}
		if id != nil && !strings.HasPrefix(id.Name, "_") {
			out = append(out, id.Name)
		}
	}
	return out
}
