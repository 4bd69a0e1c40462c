package host

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"path/filepath"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// REPL reads Starlark from in a statement or an expression at a time, runs
// it on the run's thread with the globals kept from one input to the
// next, and prints the value of each expression; an error is printed and
// the session goes on. help, when not nil, is the session's help().
// Prompts (">>> ", "... ") are written when prompt is set: in a terminal.
func (r *Runtime) REPL(ctx context.Context, in io.Reader, out io.Writer, prompt bool, help *starlark.Builtin) error {
	r.thread.SetLocal(contextKey, ctx)
	stop := context.AfterFunc(ctx, func() { r.thread.Cancel("interrupted") })
	defer stop()
	loc := onDisk("<stdin>", filepath.Join(r.opts.WorkDir, "<stdin>"))
	r.files[loc.Display] = loc
	globals := r.predeclared(loc)
	if help != nil {
		globals["help"] = help
	}
	lines := bufio.NewReader(in)
	// load() binds its names in the session, as a user at a prompt means.
	opts := *FileOptions
	opts.LoadBindsGlobally = true
	for ctx.Err() == nil {
		if prompt {
			fmt.Fprint(out, ">>> ")
		}
		eof := false
		f, err := opts.ParseCompoundStmt("<stdin>", continuation(lines, out, prompt, &eof))
		if eof && (err != nil || len(f.Stmts) == 0) {
			if prompt {
				fmt.Fprintln(out)
			}
			return nil
		}
		if err != nil {
			fmt.Fprintln(out, format(err, names(r.opts.Predeclared)))
			continue
		}
		r.evaluate(f, globals, out)
	}
	return stopCause(ctx)
}

// continuation reads the lines of one input, prompting "... " for every
// line after the first.
func continuation(lines *bufio.Reader, out io.Writer, prompt bool, eof *bool) func() ([]byte, error) {
	first := true
	return func() ([]byte, error) {
		if !first && prompt {
			fmt.Fprint(out, "... ")
		}
		first = false
		line, err := lines.ReadBytes('\n')
		if err == io.EOF {
			*eof = true
			if len(line) > 0 {
				return append(line, '\n'), nil
			}
		}
		return line, err
	}
}

// evaluate runs one input: an expression's value is printed, statements
// change the globals.
func (r *Runtime) evaluate(f *syntax.File, globals starlark.StringDict, out io.Writer) {
	if len(f.Stmts) == 1 {
		if stmt, ok := f.Stmts[0].(*syntax.ExprStmt); ok {
			v, err := starlark.EvalExprOptions(f.Options, r.thread, stmt.X, globals)
			switch {
			case err != nil:
				fmt.Fprintln(out, format(err, names(r.opts.Predeclared)))
			case v != starlark.None:
				fmt.Fprintln(out, v)
			}
			return
		}
	}
	if err := starlark.ExecREPLChunk(f, r.thread, globals); err != nil {
		fmt.Fprintln(out, format(err, names(r.opts.Predeclared)))
	}
}
