package host

import (
	"fmt"
	"sort"
	"strings"

	"go.starlark.net/resolve"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"

	"rooda/fragments"
	"rooda/host/prompt"
)

// Check finds what is wrong with the script at path and every module it
// loads, without running any of it: syntax and resolve errors (all of
// them), load() paths that name nothing, load cycles, and fragment files
// named by literal paths that do not exist. Its error lists every
// problem, each with file:line:col.
func (r *Runtime) Check(path string) error {
	root, err := r.resolver.root(path)
	if err != nil {
		return err
	}
	c := &checker{r: r, seen: map[string]bool{}}
	c.file(root, nil)
	if len(c.problems) == 0 {
		return nil
	}
	var lines []string
	for _, p := range c.problems {
		lines = append(lines, p.String())
	}
	text := addHints(strings.Join(lines, "\n"), names(r.opts.Predeclared))
	return &Error{text: text, err: fmt.Errorf("%d problems", len(c.problems))}
}

type checker struct {
	r        *Runtime
	seen     map[string]bool
	problems []problem
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
	src, err := c.r.resolver.read(loc)
	if err != nil {
		c.problems = append(c.problems, problem{msg: err.Error()})
		return
	}
	start := len(c.problems)
	f, _, err := starlark.SourceProgramOptions(FileOptions, loc.Display, src, c.r.opts.Predeclared.Has)
	switch e := err.(type) {
	case syntax.Error:
		c.add(e.Pos, "%s", e.Msg)
		return
	case resolve.ErrorList:
		for _, re := range e {
			c.add(re.Pos, "%s", re.Msg)
		}
	}
	stack = append(stack, loc)
	c.fragments(f, loc)
	next := c.loads(f, loc, stack)
	own := c.problems[start:]
	sort.SliceStable(own, func(i, j int) bool { return own[i].pos.Line < own[j].pos.Line })
	for _, n := range next {
		c.file(n, stack)
	}
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
		if _, err := c.r.resolver.read(target); err != nil {
			c.add(load.Load, "cannot load %s: %v", module, err)
			continue
		}
		next = append(next, target)
	}
	return next
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
			if lit := pathArg(call); lit != nil {
				c.fragment(lit, loc)
			}
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
	for i, arg := range call.Args {
		if kw, ok := arg.(*syntax.BinaryExpr); ok && kw.Op == syntax.EQ {
			if id, ok := kw.X.(*syntax.Ident); ok && id.Name == "path" {
				lit, _ := kw.Y.(*syntax.Literal)
				return lit
			}
			continue
		}
		if lit, ok := arg.(*syntax.Literal); ok && i == 0 && lit.Token == syntax.STRING {
			return lit
		}
	}
	return nil
}

func (c *checker) fragment(lit *syntax.Literal, loc Location) {
	path, _ := lit.Value.(string)
	if path == "" {
		return
	}
	var err error
	switch {
	case strings.HasPrefix(path, fragments.Prefix) || loc.Embedded == "":
		err = prompt.CheckFragment(prompt.Fragment{Path: path, Dir: loc.Dir()})
	default:
		_, err = c.r.ReadStdlib(StdlibRel(loc.Embedded, path))
	}
	if err != nil {
		first, _, _ := strings.Cut(err.Error(), "\n")
		c.add(lit.TokenPos, "%s", first)
	}
}

// StdlibRel is rel taken from the directory of the embedded file from.
func StdlibRel(from, rel string) string {
	return from[:strings.LastIndex(from, "/")+1] + rel
}
