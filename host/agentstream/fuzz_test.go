package agentstream

import (
	"os"
	"path/filepath"
	"testing"
)

// fuzzDecode checks, for any input split at any point, that decoding
// neither panics nor keeps more than its bounds, and that the split does
// not change what is decoded.
func fuzzDecode(f *testing.F, format Format) {
	files, _ := filepath.Glob(filepath.Join("testdata", string(format), "*.jsonl"))
	for _, file := range files {
		if b, err := os.ReadFile(file); err == nil {
			f.Add(b, uint16(len(b)/2))
		}
	}
	f.Add([]byte("{\"type\":\n\xff\xfe{}\n"), uint16(3))
	f.Fuzz(func(t *testing.T, input []byte, split uint16) {
		cut := int(split) % (len(input) + 1)
		whole := New(format, nil)
		whole.Write(input)
		whole.Close()
		parts := New(format, nil)
		parts.Write(input[:cut])
		if len(parts.line) > MaxLine {
			t.Fatalf("line buffer of %d bytes", len(parts.line))
		}
		parts.Write(input[cut:])
		parts.Close()
		s := parts.Summary()
		if len(s.Text) > MaxText || len(s.Output) > maxOutput || len(s.Err) > maxError || len(s.Result) > maxResult {
			t.Fatalf("summary out of bounds: text %d, output %d, error %d, result %d", len(s.Text), len(s.Output), len(s.Err), len(s.Result))
		}
		if w := whole.Summary(); report("", w) != report("", s) {
			t.Fatalf("split at %d changes the summary:\n%s\nwant\n%s", cut, report("", s), report("", w))
		}
	})
}

func FuzzDecodeText(f *testing.F)     { fuzzDecode(f, Text) }
func FuzzDecodeClaude(f *testing.F)   { fuzzDecode(f, Claude) }
func FuzzDecodeCodex(f *testing.F)    { fuzzDecode(f, Codex) }
func FuzzDecodeGemini(f *testing.F)   { fuzzDecode(f, Gemini) }
func FuzzDecodeOpenCode(f *testing.F) { fuzzDecode(f, OpenCode) }
func FuzzDecodeCopilot(f *testing.F)  { fuzzDecode(f, Copilot) }
