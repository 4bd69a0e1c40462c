package prompt

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFragmentFromArg(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "obs.md")
	os.WriteFile(file, []byte("observe this"), 0o644)
	for _, tc := range []struct {
		value, path, content, err string
	}{
		{value: "builtin:fragments/act/emit_signal.md", path: "builtin:fragments/act/emit_signal.md"},
		{value: file, path: file},
		{value: "Look at the diff only.", content: "Look at the diff only."},
		{value: "notes", content: "notes"},
		{value: dir, err: "is a directory"},
		{value: "prompts/missing.md", err: "fragment file not found: prompts/missing.md"},
		{value: "fragments/act/emit_signal.md", err: "Did you mean: builtin:fragments/act/emit_signal.md"},
		{value: "  \n", err: "empty inline content"},
	} {
		f, err := FragmentFromArg(context.Background(), tc.value)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: error %v, want %q", tc.value, err, tc.err)
			}
			continue
		}
		if err != nil || f.Path != tc.path || f.Content != tc.content {
			t.Errorf("%q: got %+v, %v", tc.value, f, err)
		}
	}
}
