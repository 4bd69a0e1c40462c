package loop

import (
	"bytes"
	"strings"
	"testing"

	"rooda/host/prompt"
)

var (
	successSignal = []byte("<promise>SUCCESS</promise>")
	failureSignal = []byte("<promise>FAILURE</promise>")
)

func TestScan(t *testing.T) {
	for in, want := range map[string]Signals{
		"":                           {},
		"<promise>SUCCESS</promise>": {Success: true},
		"done\n<promise>SUCCESS</promise> because":             {Success: true},
		"<promise>FAILURE</promise>":                           {Failure: true},
		"<promise>FAILURE</promise><promise>SUCCESS</promise>": {Success: true, Failure: true},
		"<promise>success</promise>":                           {},
		"<promise> SUCCESS</promise>":                          {},
		"<promise>SUCCESS</promise":                            {},
	} {
		if got := Scan([]byte(in), ""); got != want {
			t.Errorf("%q: got %+v want %+v", in, got, want)
		}
	}
}

// FuzzScan: a signal is found wherever it stands in any output, and no
// signal is found in output that does not hold one.
func FuzzScan(f *testing.F) {
	f.Add([]byte("before"), []byte("after"))
	f.Add([]byte("<promise>SUCC"), []byte("ESS</promise>"))
	f.Add([]byte{}, []byte("<promise>FAILURE</promise>"))
	f.Fuzz(func(t *testing.T, before, after []byte) {
		for _, sig := range [][]byte{successSignal, failureSignal} {
			out := append(append(append([]byte{}, before...), sig...), after...)
			got := Scan(out, "")
			if bytes.Equal(sig, successSignal) && !got.Success || bytes.Equal(sig, failureSignal) && !got.Failure {
				t.Fatalf("%q not found in %q", sig, out)
			}
		}
		joined := append(append([]byte{}, before...), after...)
		if !bytes.Contains(joined, []byte("</promise>")) {
			if got := Scan(joined, ""); got.Success || got.Failure {
				t.Fatalf("signal found in %q", joined)
			}
		}
		// Output that only echoes its prompt holds no signal.
		prompt := string(before) + "\nSignal:\n- output: <promise>SUCCESS</promise>\nEnd.\n" + string(after)
		if got := Scan([]byte(prompt), prompt); got.Success || got.Failure {
			t.Fatalf("an echo of %q counted: %+v", prompt, got)
		}
	})
}

// TestEchoedPromptIsNoSignal: the preamble's own lines, echoed, are not
// signals; the same tag on a line of the agent's own is.
func TestEchoedPromptIsNoSignal(t *testing.T) {
	prompt := "Success Signaling:\n- When you complete all tasks successfully, output: <promise>SUCCESS</promise>\n- If you cannot proceed due to blockers, output: <promise>FAILURE</promise>\n"
	for out, want := range map[string]Signals{
		prompt:                     {},
		"  " + prompt + "\ndone\n": {},
		prompt + "\n<promise>SUCCESS</promise>\n":       {Success: true},
		"I will output: <promise>SUCCESS</promise> now": {Success: true},
	} {
		if got := Scan([]byte(out), prompt); got != want {
			t.Errorf("%q: got %+v want %+v", out, got, want)
		}
	}
}

// TestBareSignalCounts: a prompt that shows the bare tag on a line of its
// own (emit_success) does not hide the agent's own bare signal; the whole
// prompt echoed back still holds none.
func TestBareSignalCounts(t *testing.T) {
	prompt := "When done, output exactly:\n\n<promise>SUCCESS</promise>\n\nThen explain.\n"
	for out, want := range map[string]Signals{
		"All done.\n<promise>SUCCESS</promise>\nThe tests pass.\n": {Success: true},
		"<promise>SUCCESS</promise>":                               {Success: true},
		prompt:                                                     {},
		"intro\n" + prompt + "outro\n":                             {},
	} {
		if got := Scan([]byte(out), prompt); got != want {
			t.Errorf("%q: got %+v want %+v", out, got, want)
		}
	}
}

// TestEchoIsJudgedByItsLineAndNeighbours: only the lines holding a tag
// are looked at, each whole, however long, and an echo is told by either
// neighbour; the scan finds the same as a split into lines would.
func TestEchoIsJudgedByItsLineAndNeighbours(t *testing.T) {
	prompt := "Signal:\n- output: <promise>SUCCESS</promise>\nEnd.\n"
	long := strings.Repeat("x", 1<<20)
	pad := strings.Repeat(" \t", 1<<19)
	for _, c := range []struct {
		name, out string
		want      Signals
	}{
		{"the line after is the prompt's", "my notes\n- output: <promise>SUCCESS</promise>\n\nEnd.", Signals{}},
		{"the line before is", "Signal:\n\n  - output: <promise>SUCCESS</promise>\nmine", Signals{}},
		{"neither is", "mine\n- output: <promise>SUCCESS</promise>\nmine", Signals{Success: true}},
		{"a megabyte before the tag, on its line", long + "<promise>SUCCESS</promise>", Signals{Success: true}},
		{"a megabyte line before", "Signal:\n" + long + "\n- output: <promise>SUCCESS</promise>\n", Signals{Success: true}},
		{"a megabyte of blanks before an echo", "Signal:\n" + pad + "- output: <promise>SUCCESS</promise>" + pad + "\nEnd.", Signals{}},
		{"a second tag line after an echo", prompt + long + "\n<promise>FAILURE</promise> " + long, Signals{Failure: true}},
	} {
		if got := Scan([]byte(c.out), prompt); got != c.want {
			t.Errorf("%s: got %+v want %+v", c.name, got, c.want)
		}
	}
}

// TestCustomPromiseWords: with custom words, the scanner looks for those
// the preamble names, and only those: the default word of a kind given
// others is no signal, the other kind keeps its default, and the
// preamble that names them, echoed back, holds no signal.
func TestCustomPromiseWords(t *testing.T) {
	words, err := prompt.NewPromises([][2]string{{"COMPLETE", "success"}, {"DONE", "success"}, {"STUCK", "failure"}})
	if err != nil {
		t.Fatal(err)
	}
	onlySuccess, _ := prompt.NewPromises([][2]string{{"COMPLETE", "success"}})
	text, err := prompt.ComposeWith(prompt.Procedure{Name: "p"}, prompt.Iteration{Number: 1, Max: 3}, prompt.Sections{Promises: words})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		promises prompt.Promises
		out      string
		want     Signals
	}{
		{words, "<promise>COMPLETE</promise>", Signals{Success: true}},
		{words, "ok <promise>DONE</promise>", Signals{Success: true}},
		{words, "<promise>STUCK</promise>", Signals{Failure: true}},
		{words, "<promise>SUCCESS</promise>\n<promise>FAILURE</promise>", Signals{}},
		{words, text, Signals{}},
		{words, text + "\nAll done.\n<promise>COMPLETE</promise>\n", Signals{Success: true}},
		{onlySuccess, "<promise>FAILURE</promise>", Signals{Failure: true}},
		{onlySuccess, "<promise>SUCCESS</promise>", Signals{}},
	} {
		if got := ScanFor([]byte(c.out), text, c.promises); got != c.want {
			t.Errorf("%+v, %q: got %+v want %+v", c.promises, c.out, got, c.want)
		}
	}
}

// BenchmarkScan: the scan of a flood's kept 10 MiB, in lines of 80 bytes
// and as one line, with the signal last (docs/performance.md, "The
// capture of 8 KiB pieces").
//
//	go test ./host/loop -run '^$' -bench Scan
func BenchmarkScan(b *testing.B) {
	prompt := "Signal:\n- output: <promise>SUCCESS</promise>\nEnd.\n"
	for name, line := range map[string]string{"lines": strings.Repeat("x", 79) + "\n", "one-line": "x"} {
		out := []byte(strings.Repeat(line, (10<<20)/len(line)) + "<promise>SUCCESS</promise>")
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(out)))
			for b.Loop() {
				if !Scan(out, prompt).Success {
					b.Fatal("no signal found")
				}
			}
		})
	}
}
