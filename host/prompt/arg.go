package prompt

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"rooda/fragments"
)

// FragmentFromArg reads a fragment given on the command line (--observe
// VALUE): a builtin: reference, an existing file (relative to the working
// directory), or else inline text. A single word that ends in .md but
// names no file is an error, not inline text: it is a mistyped path far
// more often than a prompt.
func FragmentFromArg(value string) (Fragment, error) {
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
		return Fragment{Path: value}, nil
	}
	if looksLikePath(value) {
		hint := notFoundHint(value)
		if strings.HasPrefix(hint, "Tip:") {
			hint = "Tip: A path on the command line is relative to the working directory."
		}
		return Fragment{}, fmt.Errorf("fragment file not found: %s\n\n%s", value, hint)
	}
	return Fragment{Content: value}, nil
}

func looksLikePath(value string) bool {
	return !strings.ContainsAny(value, " \t\n") && strings.EqualFold(filepath.Ext(value), ".md")
}
