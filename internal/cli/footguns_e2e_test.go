package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestScriptPlainContextIsText: a script in proc/, run from the
// workspace, gives context=[file("notes.md"), "notes.md", "inline text"]:
// file() names proc/notes.md, whose content reaches the prompt once; the
// plain string is text, even though it names that file, and rooda script
// check warns of it, suggesting file(), without failing.
func TestScriptPlainContextIsText(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"output": successSignal})
	must(t, os.Mkdir(filepath.Join(w.dir, "proc"), 0o755))
	w.write("proc/notes.md", "The notes of the procedure.\n")
	w.write("proc/main.star", `
iterate(compose("p", act = [fragment(content = "Work.")]), max_iterations = 1,
        context = [file("notes.md"), "notes.md", "Some inline text.", "plan.md"])
`)
	o := w.rooda("script", "check", "proc/main.star")
	want := "Warning: proc/main.star:3:38: context \"notes.md\" is text, not the file proc/notes.md beside the script: a plain string in context is always text; for the file, write file(\"notes.md\")\n" +
		"Warning: proc/main.star:3:71: context \"plan.md\" is text, not a file: a plain string in context is always text; for a file beside the script, write file(\"plan.md\"), for one of the working directory file(\"plan.md\", work = True)\n"
	if o.code != 0 || o.stderr != want || o.stdout != "proc/main.star: ok\n" {
		t.Errorf("check: exit %d, stdout %q, stderr:\n%s", o.code, o.stdout, o.stderr)
	}
	w.runScript("proc/main.star", "--ai-cmd", w.aiCmd()).expect(t, 0)
	got := w.prompt(1)
	if n := strings.Count(got, "The notes of the procedure."); n != 1 {
		t.Errorf("the notes are in the prompt %d times, want 1:\n%s", n, got)
	}
	if !strings.Contains(got, "Source: proc/notes.md\n\nThe notes of the procedure.\n\nnotes.md\n\nSome inline text.\n\nplan.md\n") {
		t.Errorf("the file, then the plain strings as text, are not in the prompt:\n%s", got)
	}
}

// TestScriptMissingContextFileIsAnError: a file beside the script that
// does not exist, given with file(), fails script check, the dry run and
// the run, naming the file; no agent starts.
func TestScriptMissingContextFileIsAnError(t *testing.T) {
	t.Parallel()
	for _, value := range []string{`file("gone.md")`, `["text", file(path = "gone.md")]`} {
		t.Run(value, func(t *testing.T) {
			w := newWorkspace(t, step{"output": successSignal})
			must(t, os.Mkdir(filepath.Join(w.dir, "proc"), 0o755))
			w.write("proc/main.star", "iterate(compose(\"p\", act = [fragment(content = \"Work.\")]), max_iterations = 1,\n        context = "+value+")\n")
			w.failsBeforeAnAgent(t, "proc/main.star", "proc/main.star:2:", "Error", "proc/gone.md")
		})
	}
}

// failsBeforeAnAgent: the script at file fails rooda script check, which
// names where, its dry run and its run, each saying want; no agent starts.
func (w *workspace) failsBeforeAnAgent(t *testing.T, file, where string, want ...string) {
	t.Helper()
	w.rooda("script", "check", file).expect(t, 1, append(want, where)...)
	w.runScript(file, "--ai-cmd", w.aiCmd(), "--dry-run").expect(t, 1, want...)
	w.runScript(file, "--ai-cmd", w.aiCmd()).expect(t, 1, want...)
	if w.ran(1) {
		t.Errorf("%s: an agent ran with the prompt:\n%s", file, w.prompt(1))
	}
}

const typoFragment = `Do the {{.Taks}}.`

// TestTemplateParameterTypoInYAML: a template that names {{.Taks}} where
// the fragment gives Task is reported, with "did you mean", by rooda info,
// the dry run and the run, which starts no agent.
func TestTemplateParameterTypoInYAML(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"output": successSignal})
	w.write("rooda-config.yml", "procedures:\n  typo:\n    act:\n      - content: \""+typoFragment+"\"\n        parameters: {Task: the tests}\n")
	want := []string{"Taks", "did you mean .Task"}
	o := w.rooda("info", "typo")
	o.expect(t, 1, append(want, "Error: ")...)
	o = w.run("typo", "--dry-run")
	if o.code != 1 || !strings.Contains(o.stdout+o.stderr, want[1]) {
		t.Errorf("dry run: exit %d, want 1 and %q\nstdout:\n%s\nstderr:\n%s", o.code, want[1], o.stdout, o.stderr)
	}
	o = w.run("typo")
	o.expect(t, 1, want...)
	if w.ran(1) {
		t.Error("an agent ran")
	}
}

// TestTemplateParameterTypoInAScript: the same typo in a script's
// fragment() is reported by script check, the dry run and the run.
func TestTemplateParameterTypoInAScript(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"output": successSignal})
	w.write("main.star", "f = fragment(content = \""+typoFragment+"\", params = {\"Task\": \"the tests\"})\n"+
		"iterate(compose(\"p\", act = [f]), max_iterations = 1)\n")
	w.failsBeforeAnAgent(t, "main.star", "main.star:1:", "Taks", "did you mean .Task")
}

// TestOptionalTemplateParameterStaysQuiet: a parameter a template only
// tests ({{if .extra}}) is optional, as seed 000 says; no check reports it.
func TestOptionalTemplateParameterStaysQuiet(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"output": successSignal})
	w.write("main.star", "f = fragment(content = \"Do {{.Task}}.{{if .extra}} {{.extra}}{{end}}\", params = {\"Task\": \"it\"})\n"+
		"iterate(compose(\"p\", act = [f]), max_iterations = 1)\n")
	w.rooda("script", "check", "main.star").expect(t, 0)
	w.runScript("main.star", "--ai-cmd", w.aiCmd()).expect(t, 0)
	if got := w.prompt(1); !strings.Contains(got, "Do it.\n") {
		t.Errorf("prompt lacks the rendered fragment:\n%s", got)
	}
}

// TestRunStringGoesThroughTheShell: run() with a string is a shell command
// line (pipes work); with a list it runs argv as it is, no shell.
func TestRunStringGoesThroughTheShell(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	w.write("main.star", `
r = run("printf 'a\nb\nc\n' | wc -l")
print("piped", r.exit_code, r.output.strip())
r = run(["printf", "%s|", "a b", "$HOME", "x | y"])
print("argv", r.exit_code, r.output)
`)
	w.runScript("main.star").expect(t, 0, "piped 0 3\n", "argv 0 a b|$HOME|x | y|\n")
}

// TestDryRunLetsTheScriptGoOn: in a dry run iterate() returns a result
// whose last iteration is a placeholder, so code after it that reads
// r.last runs.
func TestDryRunLetsTheScriptGoOn(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	w.write("main.star", `
r = iterate(compose("p", act = [fragment(content = "Work.")]), max_iterations = 2)
print("after", r.status, r.last.outcome, repr(r.last.output), r.last.number, r.last.signal)
`)
	o := w.runScript("main.star", "--ai-cmd", w.aiCmd(), "--dry-run")
	o.expect(t, 0, "after dry-run dry-run \"\" 0 None\n")
}
