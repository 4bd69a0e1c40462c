package host

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"go.starlark.net/resolve"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"

	"rooda/host/prompt"
	"rooda/host/starfmt"
	"rooda/host/suggest"
)

// Check finds what is wrong with the scripts at paths and every module
// they load, without running any of it: syntax and resolve errors (all
// of them), load() paths that name nothing, load cycles, fragment files
// named by literal paths that do not exist, and calls of builtins that
// cannot work (see calls). A directory stands for every .star file below
// it. A *_test.star file, and what it loads, is checked with the names of
// script tests (assert, fake_agent). It returns the files it checked and
// what it warns of, each "Warning: file:line:col: …" (what works, but most
// likely not as meant: a plain string in context=, a main() never called);
// its error lists every problem, each "Error: file:line:col: …".
func (r *Runtime) Check(paths ...string) (Checked, error) {
	files, err := StarFiles(paths)
	if err != nil {
		return Checked{}, err
	}
	var lines []string
	checked := Checked{Files: files}
	reported := map[string]bool{}
	hints := r.hints()
	// A main() never called is a mistake only if no module checked here
	// takes it with load(): that one is the entry point.
	var idle []idleMain
	loadedMain := map[string]bool{}
	for _, file := range files {
		root, err := r.resolver.root(file)
		if err != nil {
			return Checked{}, err
		}
		c := &checker{r: r, seen: map[string]bool{}, globals: map[string]map[string]bool{}, predeclared: r.opts.Predeclared}
		if strings.HasSuffix(file, "_test.star") && r.opts.TestPredeclared != nil {
			c.predeclared = r.opts.TestPredeclared()
		}
		c.file(root, nil)
		c.loadedNames()
		if c.idle != nil && !strings.HasSuffix(file, "_test.star") {
			idle = append(idle, idleMain{root.key(), *c.idle})
		}
		for _, w := range c.wanted {
			if w.name.Name == "main" {
				loadedMain[w.module.key()] = true
			}
		}
		// A module two scripts load is told once.
		for _, p := range c.problems {
			if line := "Error: " + p.String(); !reported[line] {
				reported[line] = true
				lines = append(lines, line)
				checked.Problems = append(checked.Problems, Problem{Pos: p.pos, Msg: hints.add(p.msg)})
			}
		}
		for _, w := range c.warnings {
			if line := "Warning: " + w.String(); !reported[line] {
				reported[line] = true
				checked.Warnings = append(checked.Warnings, line)
				checked.Problems = append(checked.Problems, Problem{Pos: w.pos, Msg: w.msg, Warning: true})
			}
		}
	}
	for _, m := range idle {
		if !loadedMain[m.module] {
			checked.Warnings = append(checked.Warnings, "Warning: "+m.String())
			checked.Problems = append(checked.Problems, Problem{Pos: m.pos, Msg: m.msg, Warning: true})
		}
	}
	if len(lines) == 0 {
		return checked, nil
	}
	text := hints.add(strings.Join(lines, "\n"))
	return checked, &Error{text: text, err: fmt.Errorf("%d problems", len(lines))}
}

// Checked is what Check found: the files it checked, its warnings as
// text, and every problem and warning as a Problem, for tools that
// report them in a format of their own (script lint).
type Checked struct {
	Files    []string
	Warnings []string
	Problems []Problem
}

// Problem is one thing Check found, where it is; Pos is not valid for a
// file that could not be read. A Warning works, but most likely not as
// meant.
type Problem struct {
	Pos     syntax.Position
	Msg     string
	Warning bool
}

// Findings are the problems as script lint reports them.
func (c Checked) Findings() []starfmt.Finding {
	var out []starfmt.Finding
	for _, p := range c.Problems {
		category := starfmt.Check
		if p.Warning {
			category = starfmt.CheckWarning
		}
		out = append(out, starfmt.Finding{File: p.Pos.Filename(), Line: int(p.Pos.Line), Col: int(p.Pos.Col), Category: category, Message: p.Msg})
	}
	return out
}

// StarFiles are the scripts paths name: a file as it is, a directory as
// the .star files below it; a directory without one is a mistake.
func StarFiles(paths []string) ([]string, error) {
	var files []string
	for _, p := range paths {
		found, err := scriptsUnder([]string{p}, ".star")
		if err != nil {
			return nil, err
		}
		if len(found) == 0 {
			return nil, fmt.Errorf("no .star files in %s", p)
		}
		files = append(files, found...)
	}
	slices.Sort(files)
	return slices.Compact(files), nil
}

// scriptsUnder lists the files paths name, sorted, each once: a file as
// it is, a directory as the files below it whose names end in suffix,
// not in hidden directories.
func scriptsUnder(paths []string, suffix string) ([]string, error) {
	seen := map[string]bool{}
	var files []string
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil {
			return nil, fmt.Errorf("cannot read %s: %v", p, errors.Unwrap(err))
		}
		err := filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			switch {
			case err != nil:
				return err
			case d.IsDir() && path != p && strings.HasPrefix(d.Name(), "."):
				return filepath.SkipDir
			case !d.IsDir() && (path == p || strings.HasSuffix(path, suffix)) && !seen[path]:
				seen[path] = true
				files = append(files, path)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	sort.Strings(files)
	return files, nil
}

type checker struct {
	r        *Runtime
	seen     map[string]bool
	problems []problem
	// warnings are what works, but most likely not as its author meant.
	warnings []problem
	// predeclared are the names the scripts being checked see.
	predeclared starlark.StringDict
	// globals are the names each module defines, by its key; wanted the
	// names load() statements take from them.
	globals map[string]map[string]bool
	wanted  []wantedName
	// defs are the defs of the module being checked, by their names'
	// identifiers, which a name's binding leads to.
	defs map[*syntax.Ident]*syntax.DefStmt
	// idle is the warning of a script checked that defines main() and
	// does nothing at its top level: run, it does nothing (uncalledMain).
	idle *problem
}

// idleMain is a script's main() that nothing calls, by the module's key.
type idleMain struct {
	module string
	problem
}

// wantedName is a name a load() statement takes from a module.
type wantedName struct {
	module Location
	name   *syntax.Ident
}

// problem is one thing wrong, where it is; a problem without a position
// is a file that could not be read.
type problem struct {
	pos syntax.Position
	msg string
}

func (p problem) String() string {
	if !p.pos.IsValid() {
		return p.msg
	}
	return fmt.Sprintf("%s: %s", p.pos, p.msg)
}

func (c *checker) add(pos syntax.Position, format string, args ...any) {
	c.problems = append(c.problems, problem{pos, fmt.Sprintf(format, args...)})
}

// file checks one module, then those it loads; stack is the chain of
// modules that led here, for cycles.
func (c *checker) file(loc Location, stack []Location) {
	if c.seen[loc.key()] {
		return
	}
	c.seen[loc.key()] = true
	src, err := c.r.resolver.read(Context(c.r.thread), loc)
	if err != nil {
		c.problems = append(c.problems, problem{msg: err.Error()})
		return
	}
	start := len(c.problems)
	f, _, err := starlark.SourceProgramOptions(FileOptions, loc.Display, src, c.predeclares)
	if f != nil {
		c.globals[loc.key()] = definedNames(f)
	}
	switch e := err.(type) {
	case syntax.Error:
		c.add(e.Pos, "%s", e.Msg)
		return
	case resolve.ErrorList:
		for _, re := range e {
			c.add(re.Pos, "%s", re.Msg)
		}
	}
	if len(stack) == 0 {
		// A module another loads is a library: its functions are for
		// the loader to call.
		c.idle = uncalledMain(f)
	}
	stack = append(stack, loc)
	c.fragments(f, loc)
	c.calls(f)
	next := c.loads(f, loc, stack)
	own := c.problems[start:]
	sort.SliceStable(own, func(i, j int) bool { return own[i].pos.Line < own[j].pos.Line })
	for _, n := range next {
		c.file(n, stack)
	}
}

// predeclares says whether the modules being checked see name: the
// names of the scripts being checked, and __main__.
func (c *checker) predeclares(name string) bool {
	return name == mainName || c.predeclared.Has(name)
}

// loads checks a module's load statements and returns the modules they
// name, to be checked after this one, so that problems are told file by
// file.
func (c *checker) loads(f *syntax.File, loc Location, stack []Location) []Location {
	var next []Location
	for _, stmt := range f.Stmts {
		load, ok := stmt.(*syntax.LoadStmt)
		if !ok {
			continue
		}
		module, _ := load.Module.Value.(string)
		target, err := c.r.resolver.resolve(loc, module)
		if err != nil {
			c.add(load.Load, "cannot load %s: %v", module, err)
			continue
		}
		if chain := cycleIn(stack, target); chain != "" {
			c.add(load.Load, "cannot load %s: load cycle: %s", module, chain)
			continue
		}
		if _, err := c.r.resolver.read(Context(c.r.thread), target); err != nil {
			c.add(load.Load, "cannot load %s: %v", module, err)
			continue
		}
		next = append(next, target)
		for _, name := range load.From {
			c.wanted = append(c.wanted, wantedName{target, name})
		}
	}
	return next
}

// definedNames are the names a module exports: its globals, less those
// that start with _.
func definedNames(f *syntax.File) map[string]bool {
	names := map[string]bool{}
	if m, ok := f.Module.(*resolve.Module); ok {
		for _, b := range m.Globals {
			if b.First != nil && !strings.HasPrefix(b.First.Name, "_") {
				names[b.First.Name] = true
			}
		}
	}
	return names
}

// loadedNames reports the names load() statements take from modules that
// do not define them.
func (c *checker) loadedNames() {
	for _, w := range c.wanted {
		defined, ok := c.globals[w.module.key()]
		// The resolver reports names with a leading _ itself.
		if !ok || defined[w.name.Name] || strings.HasPrefix(w.name.Name, "_") {
			continue
		}
		msg := fmt.Sprintf("%s does not define %s", w.module.Display, w.name.Name)
		if near := suggest.Closest(w.name.Name, slices.Sorted(maps.Keys(defined))); near != "" {
			msg += fmt.Sprintf(" (did you mean %s?)", near)
		}
		c.add(w.name.NamePos, "%s", msg)
	}
}

// cycleIn returns the chain "a.star → b.star → a.star" when target is in
// stack, the modules being loaded, outermost first; else "".
func cycleIn(stack []Location, target Location) string {
	for i, l := range stack {
		if l.key() == target.key() {
			var names []string
			for _, m := range stack[i:] {
				names = append(names, m.Display)
			}
			return strings.Join(append(names, target.Display), " → ")
		}
	}
	return ""
}

// fragments checks the fragment files a module names by literal paths:
// fragment("x.md"), fragment(path="x.md"), and the strings in compose()'s
// and with_phases()'s phase lists.
func (c *checker) fragments(f *syntax.File, loc Location) {
	syntax.Walk(f, func(n syntax.Node) bool {
		call, ok := n.(*syntax.CallExpr)
		if !ok {
			return true
		}
		switch calledName(call) {
		case "fragment":
			c.fragmentCall(call, loc)
		case "file":
			// A file of the work may be written by an earlier loop: only
			// a file beside the script must be there now.
			if lit := pathArg(call); lit != nil && besideTheScript(call) {
				c.contextFile(lit, loc)
			}
		case "iterate", "render":
			c.contextStrings(keywordArg(call, "context"), loc)
		case "compose", "with_phases":
			for _, arg := range call.Args {
				if kw, ok := arg.(*syntax.BinaryExpr); ok && kw.Op == syntax.EQ {
					if list, ok := kw.Y.(*syntax.ListExpr); ok {
						for _, e := range list.List {
							if lit, ok := e.(*syntax.Literal); ok && lit.Token == syntax.STRING {
								c.fragment(lit, loc)
							}
						}
					}
				}
			}
		}
		return true
	})
}

// calledName is "fragment" for fragment(…) and "with_phases" for
// p.with_phases(…).
func calledName(call *syntax.CallExpr) string {
	switch fn := call.Fn.(type) {
	case *syntax.Ident:
		return fn.Name
	case *syntax.DotExpr:
		return fn.Name.Name
	}
	return ""
}

// pathArg is the literal path of a fragment() call: its first positional
// argument or path=.
func pathArg(call *syntax.CallExpr) *syntax.Literal {
	if e := keywordArg(call, "path"); e != nil {
		lit, _ := e.(*syntax.Literal)
		return lit
	}
	if len(call.Args) > 0 {
		if lit, ok := call.Args[0].(*syntax.Literal); ok && lit.Token == syntax.STRING {
			return lit
		}
	}
	return nil
}

// contextStrings looks at the literal strings of a context= argument:
// each is text, and one that looks meant as a file is warned of. file()
// calls in it are checked as every call is.
func (c *checker) contextStrings(e syntax.Expr, loc Location) {
	items := []syntax.Expr{e}
	if list, ok := e.(*syntax.ListExpr); ok {
		items = list.List
	}
	for _, item := range items {
		if lit, ok := item.(*syntax.Literal); ok && lit.Token == syntax.STRING {
			value, _ := lit.Value.(string)
			if msg := c.r.PlainContext(loc, value); msg != "" {
				c.warnings = append(c.warnings, problem{lit.TokenPos, msg})
			}
		}
	}
}

// contextFile checks the path of file(…): a file beside the script.
func (c *checker) contextFile(lit *syntax.Literal, loc Location) {
	value, _ := lit.Value.(string)
	if _, err := c.r.contextFile(loc, value); err != nil {
		c.add(lit.TokenPos, "%s", strings.ReplaceAll(err.Error(), "\n", "; "))
	}
}

// besideTheScript says whether a file() call names a file beside the
// script: it gives no work=, or work = False.
func besideTheScript(call *syntax.CallExpr) bool {
	work := keywordArg(call, "work")
	if work == nil && len(call.Args) > 1 {
		if kw, isKeyword := call.Args[1].(*syntax.BinaryExpr); !isKeyword || kw.Op != syntax.EQ {
			work = call.Args[1]
		}
	}
	id, ok := work.(*syntax.Ident)
	return work == nil || ok && id.Name == "False"
}

// fragmentCall checks a fragment() call as far as its literal arguments
// tell: the file its literal path names exists, and, when params is a
// dict with literal keys, the template prints no name it lacks.
func (c *checker) fragmentCall(call *syntax.CallExpr, loc Location) {
	path := pathArg(call)
	names, ok := literalKeys(keywordArg(call, "params"))
	if !ok {
		if path != nil {
			c.fragment(path, loc)
		}
		return
	}
	f := prompt.Fragment{Parameters: names}
	if path != nil {
		f.Path, _ = path.Value.(string)
	}
	if content, ok := keywordArg(call, "content").(*syntax.Literal); ok {
		f.Content, _ = content.Value.(string)
	}
	f, err := c.r.place(loc, f)
	if err == nil {
		err = prompt.CheckParameterNames(f)
	}
	if err != nil {
		pos, _ := call.Span()
		c.add(pos, "%s", strings.Replace(err.Error(), configTip, scriptTip, 1))
	}
}

// keywordArg is the expression a call gives as name=…, or nil.
func keywordArg(call *syntax.CallExpr, name string) syntax.Expr {
	for _, arg := range call.Args {
		if kw, ok := arg.(*syntax.BinaryExpr); ok && kw.Op == syntax.EQ {
			if id, ok := kw.X.(*syntax.Ident); ok && id.Name == name {
				return kw.Y
			}
		}
	}
	return nil
}

// literalKeys are the keys of a dict literal whose keys are all string
// literals, each with no value: the names a template may print. ok is
// false for anything else, which only running the script can tell.
func literalKeys(e syntax.Expr) (names map[string]any, ok bool) {
	dict, isDict := e.(*syntax.DictExpr)
	if !isDict {
		return nil, false
	}
	names = map[string]any{}
	for _, entry := range dict.List {
		key, isLit := entry.(*syntax.DictEntry).Key.(*syntax.Literal)
		if !isLit || key.Token != syntax.STRING {
			return nil, false
		}
		name, _ := key.Value.(string)
		names[name] = nil
	}
	return names, true
}

func (c *checker) fragment(lit *syntax.Literal, loc Location) {
	path, _ := lit.Value.(string)
	if path == "" {
		return
	}
	f, err := c.r.place(loc, prompt.Fragment{Path: path})
	if err == nil {
		err = prompt.CheckFragment(f)
	}
	if err != nil {
		first, _, _ := strings.Cut(err.Error(), "\n")
		c.add(lit.TokenPos, "%s", first)
	}
}

// uncalledMain is the warning of a script whose entry point does not
// run: it defines main(), names it nowhere else, and calls nothing at its
// top level (outside its defs), so that running it runs nothing and
// exits 0. Any call at the top level may be how the script starts (an
// if __main__: block, a loop over tasks), and any other mention of main
// may call it (a callback, a lambda): either keeps the warning away.
func uncalledMain(f *syntax.File) *problem {
	var main *syntax.DefStmt
	for _, stmt := range f.Stmts {
		if def, ok := stmt.(*syntax.DefStmt); ok && def.Name.Name == "main" {
			main = def
		}
	}
	if main == nil || mentions(f, "main", main.Name) {
		return nil
	}
	for _, stmt := range f.Stmts {
		if _, isDef := stmt.(*syntax.DefStmt); !isDef && hasCall(stmt) {
			return nil
		}
	}
	return &problem{main.Name.NamePos, "main() is defined but never called, and nothing else runs at the top level: running the script does nothing. " +
		"Call it at the end: main(), or if __main__: main() to let a test load the script without running it"}
}

// mentions reports whether n names name anywhere but at the identifier
// except.
func mentions(n syntax.Node, name string, except *syntax.Ident) bool {
	found := false
	syntax.Walk(n, func(n syntax.Node) bool {
		id, ok := n.(*syntax.Ident)
		found = found || ok && id.Name == name && id != except
		return !found
	})
	return found
}

// hasCall reports whether n holds a call.
func hasCall(n syntax.Node) bool {
	found := false
	syntax.Walk(n, func(n syntax.Node) bool {
		_, call := n.(*syntax.CallExpr)
		found = found || call
		return !found
	})
	return found
}
