package loop

import (
	"bytes"
	"testing"
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
