package cli

import (
	"strings"
	"testing"
)

// TestScriptCheckReadsLiterals: rooda script check reads the literals a
// run would reject only when it got there, against the workspace's own
// aliases and procedures: those it defines pass, a typo of each is an
// error at its line and column, with the name meant. A test's
// assert.eq(x, None) passes check as it passes the test.
func TestScriptCheckReadsLiterals(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	w.write("rooda-config.yml", "ai_cmd_aliases:\n  reviewer-bot: {cmd: reviewer --print}\nprocedures:\n  deploy:\n    act: [{content: Deploy.}]\n")
	w.write("good.star", `def judge(it):
    return "success" if it.number > 1 else None

iterate(procedure("deploy"), agent = "reviewer-bot", timeout = "20m", on_iteration = judge)
`)
	w.write("good_test.star", `def test_none():
    assert.eq(getenv("ROODA_NOT_SET_ANYWHERE"), None)
`)
	o := w.rooda("script", "check", "good.star", "good_test.star")
	if o.code != 0 || !strings.Contains(o.stdout, "good.star: ok\ngood_test.star: ok\n") {
		t.Errorf("script check of a good script: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
	if o := w.rooda("script", "test", "good_test.star"); o.code != 0 {
		t.Errorf("script test: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
	w.write("bad.star", `def judge(it):
    return "SUCCESS"

iterate(procedure("deplyo"), agent = "reviewer-bto", timeout = "5 minutes", on_iteration = judge)
`)
	w.rooda("script", "check", "bad.star").expect(t, 1,
		`Error: bad.star:2:12: iterate: on_iteration (def judge) returns "SUCCESS", which is no verdict (did you mean "success"?)`,
		`Error: bad.star:4:19: procedure: unknown procedure "deplyo" (did you mean deploy?)`,
		`Error: bad.star:4:38: iterate: unknown alias "reviewer-bto" (did you mean "reviewer-bot"?)`,
		`Error: bad.star:4:64: iterate: for parameter "timeout": want a duration like "30s" or "5m", got "5 minutes"`)
}
