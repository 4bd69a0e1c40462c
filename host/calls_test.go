package host_test

import (
	"strings"
	"testing"

	"rooda/builtins"
)

// TestCheckCalls: what the static checks of builtin calls report, and
// what they leave alone because the source does not tell.
func TestCheckCalls(t *testing.T) {
	for _, tc := range []struct{ call, want string }{
		{`iterate(p, max_iteration = 3)`, `iterate: unexpected keyword argument "max_iteration" (did you mean max_iterations?)`},
		{`iterate(p, zzz = 3)`, `iterate: unexpected keyword argument "zzz" (iterate takes procedure, max_iterations,`},
		{`iterate(p, 3)`, ``},
		{`iterate(p, 3, True, None, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19)`, `iterate: got 20 positional arguments, want at most`},
		{`iterate(p, timeout = [1])`, `iterate: timeout must be an int, a float or a str, got list`},
		{`iterate(p, timeout = 1.5, max_output_buffer = "10MB")`, ``},
		{`iterate(p, unlimited = "yes")`, `iterate: unlimited must be a bool, got string "yes"`},
		{`iterate(p, context = ("a", "b"))`, ``},
		{`iterate(p, context = lambda: [])`, `iterate: context is called as f(number) or f(number, previous), but the lambda takes no arguments`},
		{`iterate(p, context = lambda n, last: [])`, ``},
		{`iterate(p, context = lambda n, last, more: [])`, `iterate: context is called as f(number) or f(number, previous), but the lambda needs 3 arguments`},
		{`iterate(p, on_iteration = lambda it, more = 1: None)`, ``},
		{`iterate(p, on_iteration = lambda *args: None)`, ``},
		{`iterate(p, on_iteration = lambda it, *, strict: None)`, `iterate: on_iteration is called as f(it), but the lambda also needs strict by name`},
		{`iterate(p, on_iteration = helper(1))`, ``},
		{`iterate(p, on_iteration = kept)`, ``},
		{`iterate(p, on_iteration = none_of_it)`, `iterate: on_iteration is called as f(it), but def none_of_it takes no arguments`},
		{`iterate(p, *[1])`, ``},
		{`iterate(p, agent = lambda n, last: "claude")`, ``},
		{`iterate(p, agent = lambda n: "claude")`, ``},
		{`iterate(p, agent = none_of_it)`, `iterate: agent is called as f(number) or f(number, previous), but def none_of_it takes no arguments`},
		{`iterate(p, agent = lambda n, last, more: "claude")`, `iterate: agent is called as f(number) or f(number, previous), but the lambda needs 3 arguments`},
		{`iterate(p, promises = {"COMPLETE": "success"})`, ``},
		{`iterate(p, promises = ["COMPLETE"])`, `iterate: promises must be a dict, got list`},
		{`fragment(path = None, content = "x")`, ``},
		{`compose(None)`, `compose: name must be a str, got NoneType`},
		{`getenv("HOME", default = 3)`, ``},
		{`own(max_iteration = 3)`, ``},
		{`assert.eq(1, 1, msg = 2)`, `assert.eq: msg must be a str, got int 2`},
		{`fake_agent(output = [])`, `fake_agent: unexpected keyword argument "output" (did you mean outputs?)`},
	} {
		src := "p = procedure('x')\ndef helper(n):\n    return None\ndef kept(it):\n    return None\ndef none_of_it():\n    return None\ndef own(**kw):\n    return None\n" + tc.call + "\n"
		f := newFixture(t, map[string]string{"main_test.star": src})
		f.Opts.Signatures = builtins.Signatures()
		f.Opts.TestPredeclared = builtins.TestPredeclared(nil)
		_, err := f.Runtime().Check("main_test.star")
		got := ""
		if err != nil {
			got = err.Error()
		}
		if tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
			t.Errorf("%s: got %q, want %q", tc.call, got, tc.want)
		}
	}
}
