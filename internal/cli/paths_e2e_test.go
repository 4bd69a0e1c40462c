package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWorkFileOfAnEarlierLoop: a script in proc/ names PLAN.md, which its
// first loop writes in the working directory, with file(…, work = True)
// as the second loop's context and with read() and exists(). rooda script
// check finds nothing wrong; the dry run, which runs no loop, shows the
// file as not there yet and read() as a placeholder, and exits 0; the run
// gives the second prompt what the first loop wrote.
func TestWorkFileOfAnEarlierLoop(t *testing.T) {
	t.Parallel()
	// Each loop's iteration 1 follows the one step; the second loop's
	// prompt is the last prompt-1.txt.
	w := newWorkspace(t, step{"output": successSignal, "shell": "test -e PLAN.md || printf 'Step one: the tests.\\n' > PLAN.md"})
	must(t, os.Mkdir(filepath.Join(w.dir, "proc"), 0o755))
	w.write("proc/main.star", `
iterate(compose("plan", act = [fragment(content = "Write PLAN.md.")]), max_iterations = 1)
iterate(compose("build", act = [fragment(content = "Follow the plan.")]), max_iterations = 1,
        context = file("PLAN.md", work = True))
print("plan says:", read("PLAN.md").strip(), exists("PLAN.md"), exists("nothing.md"))
`)
	o := w.rooda("script", "check", "proc/main.star")
	if o.code != 0 || o.stderr != "" || o.stdout != "proc/main.star: ok\n" {
		t.Errorf("check: exit %d, stdout %q, stderr:\n%s", o.code, o.stdout, o.stderr)
	}
	o = w.runScript("proc/main.star", "--ai-cmd", w.aiCmd(), "--dry-run")
	o.expect(t, 0, "[dry-run] not there yet: PLAN.md; read() gives \"\"\n", "plan says:  False False\n")
	for _, want := range []string{
		"✓ Context file of the work, not there yet: PLAN.md (read as each iteration starts; an earlier loop may write it)\n",
		"Source: PLAN.md\n\n(not there yet: read as the iteration starts)\n",
		"=== Dry-run of the script: 2 loops reported ===\n",
		"  read(\"PLAN.md\") at proc/main.star:5: not there yet; \"\"\n",
	} {
		if !strings.Contains(o.stdout, want) {
			t.Errorf("the dry run lacks %q:\n%s", want, o.stdout)
		}
	}
	if w.ran(1) {
		t.Error("an agent ran in the dry run")
	}
	w.runScript("proc/main.star", "--ai-cmd", w.aiCmd()).expect(t, 0, "plan says: Step one: the tests. True False\n")
	if got := w.prompt(1); !strings.Contains(got, "Procedure: build\n") || !strings.Contains(got, "Source: PLAN.md\n\nStep one: the tests.\n") {
		t.Errorf("the second loop's prompt lacks the plan the first wrote:\n%s", got)
	}
}

// TestReadOfAFileThatIsNotThere: in a run, read() of a file of the work
// that is not there ends the script, naming the file, where it was looked
// for and exists(); so does file(…, work = True) when the prompt that
// needs it is composed, before any agent starts.
func TestReadOfAFileThatIsNotThere(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"output": successSignal})
	w.write("read.star", "read('PLAN.md')\n")
	w.runScript("read.star").expect(t, 1, "Error in read: PLAN.md is not there (looked for in the working directory, "+w.dir+"); exists(\"PLAN.md\") tells before reading\n")
	w.write("context.star", "iterate(compose('p', act = [fragment(content = 'Work.')]), max_iterations = 1, context = file('PLAN.md', work = True))\n")
	w.runScript("context.star", "--ai-cmd", w.aiCmd()).expect(t, 1, "context file not found: PLAN.md\nA file of the work, file(path, work = True), is read from the working directory each time a prompt is composed: something must have written it by then.\n")
	if w.ran(1) {
		t.Error("an agent ran without the file its prompt names")
	}
}

// TestScriptTestPaths: a script test runs in an empty directory of its
// own: the files of the work (exists, read, run, file(…, work = True))
// are there, while fragment() and file() still find the files beside the
// test.
func TestScriptTestPaths(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	w.write("beside.md", "Shipped with the script.\n")
	w.write("paths_test.star", `
def test_the_two_roots():
    assert.eq(exists("beside.md"), False)
    run("printf 'Written by the work.\\n' > work.md")
    assert.eq(read("work.md"), "Written by the work.\n")
    p = compose("p", act = [fragment(content = "Work.")])
    text = p.render(context = [file("beside.md"), file("work.md", work = True), "beside.md"])
    assert.contains(text, "Shipped with the script.\n\nSource: work.md\n\nWritten by the work.\n\nbeside.md\n")
    assert.fails(lambda: p.render(context = file("beside.md", work = True)), "context file not found: beside.md")
`)
	o := w.rooda("script", "test", "paths_test.star")
	if o.code != 0 || !strings.Contains(o.stdout, "1 passed, 0 failed") {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", o.code, o.stdout, o.stderr)
	}
}
