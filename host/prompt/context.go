package prompt

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"

	"rooda/host/files"
)

// ContextValue is one value of the CONTEXT section, and how it is taken.
type ContextValue struct {
	// Value is the text, or the file's path as the working directory
	// sees it.
	Value string
	Kind  ContextKind
}

// ContextKind says whether a context value is text or a file.
type ContextKind int

const (
	// Given is a --context value of the command line: a file when it
	// names one, else text.
	Given ContextKind = iota
	// Text is text, whatever it says: a script's plain string, even one
	// that names a file.
	Text
	// File is a file that must be there: a script's file(path).
	File
	// WorkFile is a file of the work, read from the working directory
	// each time a prompt is composed: a script's file(path, work = True),
	// which an earlier loop may write after the script names it.
	WorkFile
)

// GivenValues are the command line's --context values.
func GivenValues(values []string) []ContextValue {
	out := make([]ContextValue, len(values))
	for i, v := range values {
		out[i] = ContextValue{Value: v, Kind: Given}
	}
	return out
}

// IsFile says whether the value is a file whatever it holds: file(),
// with or without work.
func (v ContextValue) IsFile() bool { return v.Kind == File || v.Kind == WorkFile }

// loadContext turns context values into the blocks of the CONTEXT
// section, in order. A file becomes "Source: <path as given>", a blank
// line and its content; text is kept verbatim: never split, never a
// template.
func loadContext(values []ContextValue) ([]string, error) {
	blocks := make([]string, 0, len(values))
	for i, v := range values {
		block, _, err := contextBlock(context.Background(), v)
		if err != nil {
			return nil, err
		}
		if block == "" {
			return nil, fmt.Errorf("context value %d is empty", i+1)
		}
		blocks = append(blocks, block)
	}
	return blocks, nil
}

// contextBlock returns the block a context value becomes, and whether it
// was read from a file. Reading a pipe ends when ctx does.
func contextBlock(ctx context.Context, v ContextValue) (string, bool, error) {
	switch v.Kind {
	case Text:
		return trimBlankLines(v.Value), false, nil
	case File, WorkFile:
		return fileBlock(ctx, v)
	}
	value := v.Value
	info, err := os.Stat(value)
	if err != nil && LooksLikePath(value) {
		// A mistyped path, far more often than a prompt.
		return "", true, fmt.Errorf("context file not found: %s\n%s For text rather than a file, write a sentence.", value, argTip)
	}
	if err != nil {
		// Not a path that exists (or not a path at all, like most
		// multi-line text): inline content.
		return trimBlankLines(value), false, nil
	}
	if info.IsDir() {
		return "", true, fmt.Errorf("context %s is a directory; give a file or inline text", value)
	}
	return fileBlock(ctx, v)
}

// fileBlock is a context file's block: its "Source:" line and content.
func fileBlock(ctx context.Context, v ContextValue) (string, bool, error) {
	value := v.Value
	info, err := os.Stat(value)
	switch {
	case err != nil && v.Kind == WorkFile:
		return "", true, fmt.Errorf("context file not found: %s\n%s", value, WorkTip)
	case err != nil:
		return "", true, fmt.Errorf("context file not found: %s", value)
	case info.IsDir():
		return "", true, fmt.Errorf("context %s is a directory; give a file or inline text", value)
	}
	data, err := files.ReadContext(ctx, value, files.PromptLimit)
	if err != nil {
		return "", true, fmt.Errorf("context file %s: %v", value, errors.Unwrap(err))
	}
	content := trimBlankLines(string(data))
	if content == "" && files.IsPipe(value) {
		return "", true, emptyPipe("context file", value)
	}
	block := "Source: " + value
	if content != "" {
		block += "\n\n" + content
	}
	return block, true, nil
}

// WorkTip says when a file of the work is read, for an error about one
// that is not there.
const WorkTip = "A file of the work, file(path, work = True), is read from the working directory each time a prompt is composed: something must have written it by then."

// argTip says where a path given on the command line is looked for.
const argTip = "A path on the command line is relative to the working directory."

// fileName is a word with a file's extension: notes.md, go.mod, a.tar.gz.
var fileName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\.[A-Za-z][A-Za-z0-9]{0,7}$`) })

// LooksLikePath says whether text is surely meant as a path: a single
// word with a directory (docs/plan, ./notes) or a file's extension
// (notes.md). Other words ("v1.2", "TODO", a URL) and text with spaces
// are text.
func LooksLikePath(s string) bool {
	if s == "" || strings.ContainsAny(s, " \t\r\n") || strings.Contains(s, "://") {
		return false
	}
	return strings.Contains(s, "/") || fileName().MatchString(s)
}

// emptyPipe is the error of a pipe that gave nothing, or only blank
// lines (see files.ErrEmptyPipe).
func emptyPipe(what, path string) error {
	return fmt.Errorf("%s %s: %w", what, path, files.ErrEmptyPipe)
}

// trimBlankLines drops leading blank lines and trailing white space, and
// keeps everything between, indentation of the first line included.
func trimBlankLines(s string) string {
	s = strings.TrimRight(s, " \t\r\n")
	for {
		line, rest, found := strings.Cut(s, "\n")
		if !found || strings.TrimSpace(line) != "" {
			return s
		}
		s = rest
	}
}

// ContextBlock is a context value as the CONTEXT section shows it — a
// file's "Source:" line and content, read now, or the inline text — and
// whether it came from a file. Reading a pipe ends when ctx does.
func ContextBlock(ctx context.Context, v ContextValue) (block string, fromFile bool, err error) {
	block, fromFile, err = contextBlock(ctx, v)
	if err == nil && block == "" {
		err = fmt.Errorf("context value is empty")
	}
	return block, fromFile, err
}
