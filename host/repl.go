package host

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"

	"rooda/host/files"
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
	// load() binds its names in the session, as a user at a prompt means.
	opts := *FileOptions
	opts.LoadBindsGlobally = true
	if !prompt {
		// Piped input is a script: blank lines inside a def are fine.
		return r.evaluateAll(ctx, &opts, in, globals, out)
	}
	var failed error
	lines := lineReader(ctx, in, &failed)
	for ctx.Err() == nil {
		if prompt {
			fmt.Fprint(out, ">>> ")
		}
		eof := false
		f, err := opts.ParseCompoundStmt("<stdin>", continuation(lines, out, prompt, &eof))
		if eof && (err != nil || len(f.Stmts) == 0) {
			fmt.Fprintln(out)
			break
		}
		if err != nil {
			fmt.Fprintln(out, format(err, r.hints()))
			continue
		}
		r.evaluate(f, globals, out)
	}
	if ctx.Err() != nil {
		return StopCause(ctx)
	}
	return failed
}

// lineReader reads lines in a goroutine of its own, so that a session
// waiting for input still ends at an interrupt: the function it returns
// gives the next line, or io.EOF at the end of the input or of ctx. A
// line too long to read ends the input early, and *failed says so once
// io.EOF has been given.
func lineReader(ctx context.Context, in io.Reader, failed *error) func() ([]byte, error) {
	ch := make(chan []byte)
	go func() {
		defer close(ch)
		br := bufio.NewReader(in)
		for {
			line, err := readLine(br)
			var tooLarge *files.TooLargeError
			if errors.As(err, &tooLarge) {
				*failed = err
				return
			}
			if len(line) > 0 {
				select {
				case ch <- line:
				case <-ctx.Done():
					return
				}
			}
			if err != nil {
				return
			}
		}
	}()
	return func() ([]byte, error) {
		select {
		case line, ok := <-ch:
			if !ok {
				return nil, io.EOF
			}
			return line, nil
		case <-ctx.Done():
			return nil, io.EOF
		}
	}
}

// readLine reads a line, '\n' included. One longer than
// files.ScriptLimit is refused: nobody types it, and /dev/zero, which
// passes for a terminal, has no end of line.
func readLine(br *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(line)+len(chunk) > files.ScriptLimit {
			return nil, files.TooLarge("a line of standard input", files.ScriptLimit)
		}
		line = append(line, chunk...)
		if err != bufio.ErrBufferFull {
			return line, err
		}
	}
}

// continuation reads the lines of one input, prompting "... " for every
// line after the first.
func continuation(next func() ([]byte, error), out io.Writer, prompt bool, eof *bool) func() ([]byte, error) {
	first := true
	return func() ([]byte, error) {
		if !first && prompt {
			fmt.Fprint(out, "... ")
		}
		first = false
		line, err := next()
		if err == io.EOF {
			*eof = true
		} else if len(line) > 0 && line[len(line)-1] != '\n' {
			line = append(line, '\n')
		}
		return line, err
	}
}

// evaluateAll runs piped input as the session would run it typed: each
// top-level statement in turn, an expression's value printed to out. The
// input is parsed whole, so blank lines inside a def are fine. An error
// goes to stderr and the session goes on; the result says how many
// statements failed.
func (r *Runtime) evaluateAll(ctx context.Context, opts *syntax.FileOptions, in io.Reader, globals starlark.StringDict, out io.Writer) error {
	src, err := files.ReadAll(in, "standard input", files.ScriptLimit)
	if err != nil {
		return err
	}
	f, err := opts.Parse("<stdin>", src, 0)
	if err != nil {
		return newError(err, r.hints())
	}
	failed := 0
	for _, stmt := range f.Stmts {
		if ctx.Err() != nil {
			return StopCause(ctx)
		}
		one := &syntax.File{Path: f.Path, Stmts: []syntax.Stmt{stmt}, Options: f.Options}
		if err := r.evaluateOne(one, globals, out); err != nil {
			if ctx.Err() != nil {
				return StopCause(ctx)
			}
			fmt.Fprintln(r.opts.Stderr, format(err, r.hints()))
			failed++
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of the %d statements of standard input failed", failed, len(f.Stmts))
	}
	return nil
}

// evaluate runs one typed input, its error printed where the prompt is.
func (r *Runtime) evaluate(f *syntax.File, globals starlark.StringDict, out io.Writer) {
	if err := r.evaluateOne(f, globals, out); err != nil {
		fmt.Fprintln(out, format(err, r.hints()))
	}
}

// evaluateOne runs one input: an expression's value is printed, statements
// change the globals.
func (r *Runtime) evaluateOne(f *syntax.File, globals starlark.StringDict, out io.Writer) error {
	if len(f.Stmts) == 1 {
		if stmt, ok := f.Stmts[0].(*syntax.ExprStmt); ok {
			v, err := starlark.EvalExprOptions(f.Options, r.thread, stmt.X, globals)
			if err == nil && v != starlark.None {
				fmt.Fprintln(out, v)
			}
			return err
		}
	}
	return starlark.ExecREPLChunk(f, r.thread, globals)
}
