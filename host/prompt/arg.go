package prompt

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"rooda/fragments"
	"rooda/host/files"
)

// FragmentFromArg reads a fragment given on the command line (--observe
// VALUE): a builtin: reference, an existing file (relative to the working
// directory), or else inline text. A single word that ends in .md but
// names no file is an error, not inline text: it is a mistyped path far
// more often than a prompt. A pipe, such as --observe <(cmd), is read
// now and kept as the fragment's content: it gives its content once.
// Reading a pipe ends when ctx does.
func FragmentFromArg(ctx context.Context, value string) (Fragment, error) {
	switch {
	case strings.TrimSpace(value) == "":
		return Fragment{}, fmt.Errorf("empty inline content is not a fragment")
	case strings.HasPrefix(value, fragments.Prefix):
		return Fragment{Path: value}, nil
	}
	if info, err := os.Stat(value); err == nil {
		if info.IsDir() {
			return Fragment{}, fmt.Errorf("%s is a directory; give a fragment file or inline text", value)
		}
		if files.IsPipe(value) {
			return pipedFragment(ctx, value)
		}
		return Fragment{Path: value}, nil
	}
	if looksLikePath(value) {
		hint := notFoundHint(value)
		if strings.HasPrefix(hint, "Tip:") {
			hint = "Tip: " + argTip
		}
		return Fragment{}, fmt.Errorf("fragment file not found: %s\n\n%s", value, hint)
	}
	return Fragment{Content: value}, nil
}

// pipedFragment is the content a pipe gives now. A named pipe no one
// writes to gives nothing, which is no fragment.
func pipedFragment(ctx context.Context, path string) (Fragment, error) {
	data, err := files.ReadContext(ctx, path, files.PromptLimit)
	switch {
	case errors.Is(err, files.ErrEmptyPipe), err == nil && strings.TrimSpace(string(data)) == "":
		return Fragment{}, emptyPipe("fragment file", path)
	case err != nil:
		return Fragment{}, fmt.Errorf("cannot read fragment file %s: %v", path, errors.Unwrap(err))
	}
	return Fragment{Content: string(data)}, nil
}

func looksLikePath(value string) bool {
	return !strings.ContainsAny(value, " \t\n") && strings.EqualFold(filepath.Ext(value), ".md")
}
