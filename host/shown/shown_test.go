package shown

import (
	"strings"
	"testing"
)

func TestLineEscapesEveryControlCharacter(t *testing.T) {
	for in, want := range map[string]string{
		"plain summary, café ✓":               "plain summary, café ✓",
		"\x1b[2Jcleared":                      `\x1b[2Jcleared`,
		"\x1b]52;c;cm0gLXJm\x07":              `\x1b]52;c;cm0gLXJm\a`,
		"\x1b]0;title\x1b\\":                  `\x1b]0;title\x1b\`,
		"two\nlines\tand\rback":               `two\nlines\tand\rback`,
		"C1 CSI \u009b2J and DEL \x7f":        `C1 CSI \u009b2J and DEL \x7f`,
		"not UTF-8 \x9b2J \xff":               `not UTF-8 \x9b2J \xff`,
		"a real replacement character \uFFFD": "a real replacement character \uFFFD",
	} {
		if got := Line(in); got != want {
			t.Errorf("Line(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTextKeepsLinesAndTabs(t *testing.T) {
	in := "Description:\n\tfirst\x1b[2J\n\tsecond\r\n"
	want := "Description:\n\tfirst\\x1b[2J\n\tsecond\\r\n"
	if got := Text(in); got != want {
		t.Errorf("Text(%q) = %q, want %q", in, got, want)
	}
}

func TestListBoundsItsLength(t *testing.T) {
	items := []string{"a", "b", "c", "d"}
	for limit, want := range map[int]string{
		4: "a, b, c, d",
		9: "a, b, c, d",
		2: "a, b … and 2 more files",
	} {
		if got := List(items, limit, "files"); got != want {
			t.Errorf("List(limit %d) = %q, want %q", limit, got, want)
		}
	}
	many := make([]string, 50_000)
	if got, want := List(many, 0, "files"), " … and 50,000 more files"; got != want {
		t.Errorf("List of 50,000 = %q, want %q", got, want)
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -12450: "-12,450"} {
		if got := Thousands(n); got != want {
			t.Errorf("Thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestJSONEscapesWhatEncodingJSONLeaves(t *testing.T) {
	in := []byte("{\"summary\": \"CSI \u009b2J, DEL \x7f, café\"}\n")
	want := `{"summary": "CSI \u009b2J, DEL \u007f, café"}` + "\n"
	if got := string(JSON(in)); got != want {
		t.Errorf("JSON(%q) = %q, want %q", in, got, want)
	}
}

func TestListShowsEachNameOnItsLine(t *testing.T) {
	got := List([]string{"x\nChecks: passed", "\x1b[2J"}, 5, "files")
	if want := `x\nChecks: passed, \x1b[2J`; got != want {
		t.Errorf("List = %q, want %q", got, want)
	}
}

// TestTextWriterEscapesAcrossWrites: a file streamed in pieces comes out
// as Text of the whole: an escape, a C1 control or a character cut
// between two writes is escaped, or kept, as if written at once.
func TestTextWriterEscapesAcrossWrites(t *testing.T) {
	whole := "line one\n\x1b]52;c;aGk=\x07 \u009b2J héllo \xff end"
	for cut := 0; cut <= len(whole); cut++ {
		var b strings.Builder
		w := &TextWriter{W: &b}
		w.Write([]byte(whole[:cut]))
		w.Write([]byte(whole[cut:]))
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		if b.String() != Text(whole) {
			t.Fatalf("cut at %d: %q, want %q", cut, b.String(), Text(whole))
		}
	}
}
