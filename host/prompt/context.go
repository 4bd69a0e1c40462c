package prompt

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"

	"rooda/host/files"
)

// loadContext turns --context values into the blocks of the CONTEXT
// section, in order. A value naming an existing file becomes
// "Source: <value as given>", a blank line and the file's content; any other
// value is inline text, kept verbatim: never split, never a template.
func loadContext(values []string) ([]string, error) {
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
func contextBlock(ctx context.Context, value string) (string, bool, error) {
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

// argTip says where a path given on the command line is looked for.
const argTip = "A path on the command line is relative to the working directory."

// fileName is a word with a file's extension: notes.md, go.mod, a.tar.gz.
var fileName = regexp.MustCompile(`\.[A-Za-z][A-Za-z0-9]{0,7}$`)

// LooksLikePath says whether text is surely meant as a path: a single
// word with a directory (docs/plan, ./notes) or a file's extension
// (notes.md). Other words ("v1.2", "TODO", a URL) and text with spaces
// are text.
func LooksLikePath(s string) bool {
	if s == "" || strings.ContainsAny(s, " \t\r\n") || strings.Contains(s, "://") {
		return false
	}
	return strings.Contains(s, "/") || fileName.MatchString(s)
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
func ContextBlock(ctx context.Context, value string) (block string, fromFile bool, err error) {
	block, fromFile, err = contextBlock(ctx, value)
	if err == nil && block == "" {
		err = fmt.Errorf("context value is empty")
	}
	return block, fromFile, err
}
