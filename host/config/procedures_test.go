package config

import (
	"slices"
	"strings"
	"testing"

	"rooda/host/prompt"
)

var builtinNames = []string{
	"agents-sync", "audit-agents", "audit-impl", "audit-impl-to-spec", "audit-spec", "audit-spec-to-impl", "build",
	"draft-plan-impl-chore", "draft-plan-impl-feat", "draft-plan-impl-fix", "draft-plan-impl-refactor",
	"draft-plan-spec-chore", "draft-plan-spec-feat", "draft-plan-spec-fix", "draft-plan-spec-refactor", "publish-plan",
}

// TestBuiltinProcedures: the sixteen procedures exist, are documented,
// compose, and carry limits that suit them.
func TestBuiltinProcedures(t *testing.T) {
	cfg := newSandbox(t).mustLoad()
	if got := cfg.ProcedureNames(); !slices.Equal(got, builtinNames) {
		t.Fatalf("procedures %v\nwant %v", got, builtinNames)
	}
	for _, name := range builtinNames {
		p := cfg.Procedures[name]
		if p.Display.V == "" || p.Summary.V == "" || p.Description.V == "" {
			t.Errorf("%s: display, summary and description must all be set", name)
		}
		if err := cfg.Check(name); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		for _, ph := range prompt.Phases {
			if len(p.Phases[ph].V) == 0 {
				t.Errorf("%s: no %s fragments", name, ph)
			}
		}
		if first := p.Phases[prompt.Observe].V[0].Path; !strings.HasSuffix(first, "/read_agents_md.md") {
			t.Errorf("%s: observe starts with %s, not read_agents_md", name, first)
		}
		n := DefaultMaxIterations.In(&p.Limits).V
		switch {
		case strings.HasPrefix(name, "audit-") && (n < 1 || n > 3):
			t.Errorf("%s: an audit runs 1-3 iterations, not %d", name, n)
		case name == "build" && n <= 5:
			t.Errorf("build runs more than the default 5 iterations, not %d", n)
		}
		if _, err := prompt.Compose(p.Prompt(), prompt.Iteration{Number: 1, Max: n}, nil); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestProcedureMerge: a tier's procedure merges field by field into the
// one below; a phase it gives replaces that phase.
func TestProcedureMerge(t *testing.T) {
	s := newSandbox(t)
	s.global("procedures:\n  mine:\n    summary: from global\n    observe: [{content: g-observe}]\n    act: [{content: g-act}]\n")
	s.workspace(`procedures:
  build:
    summary: my build
    act:
      - content: just commit
  mine:
    act: [{content: w-act}]
`)
	cfg := s.mustLoad()
	build := cfg.Procedures["build"]
	if build.Display.V != "Build" || build.Summary.V != "my build" {
		t.Errorf("build display %q summary %q: fields not merged one by one", build.Display.V, build.Summary.V)
	}
	if got := build.Phases[prompt.Act]; len(got.V) != 1 || got.V[0].Content != "just commit" || got.Source.Tier != Workspace {
		t.Errorf("act phase %+v: a given phase replaces the whole phase", got)
	}
	if got := build.Phases[prompt.Observe]; len(got.V) != 5 || got.Source.Tier != BuiltIn {
		t.Errorf("observe phase changed: %+v", got)
	}
	mine := cfg.Procedures["mine"]
	if mine.Summary.V != "from global" || mine.Phases[prompt.Observe].V[0].Content != "g-observe" || mine.Phases[prompt.Act].V[0].Content != "w-act" {
		t.Errorf("mine merged wrong: %+v", mine)
	}
}

// TestScriptReplacesPhases: a tier that gives a script drops the phases
// below it, and phases drop a script below them.
func TestScriptReplacesPhases(t *testing.T) {
	s := newSandbox(t)
	s.global("procedures:\n  scripted:\n    script: procs/s.star\n")
	s.workspace("procedures:\n  build:\n    script: build.star\n  scripted:\n    observe: [{content: o}]\n")
	cfg := s.mustLoad()
	if b := cfg.Procedures["build"]; b.HasPhases() || b.Script.V != s.root+"/work/build.star" {
		t.Errorf("build: phases %v, script %q", b.HasPhases(), b.Script.V)
	}
	if p := cfg.Procedures["scripted"]; p.Script.Set || !p.HasPhases() {
		t.Errorf("scripted: script %q kept under phases", p.Script.V)
	}
}

// TestRelativeFragmentPaths: a relative path resolves against the
// directory of the file that defined it, whatever the working directory.
func TestRelativeFragmentPaths(t *testing.T) {
	s := newSandbox(t)
	s.global("procedures:\n  from-global:\n    observe: [prompts/g.md]\n")
	s.write("home/.config/rooda/prompts/g.md", "global fragment")
	s.workspace("procedures:\n  from-workspace:\n    observe: [{path: prompts/w.md}]\n")
	s.write("work/prompts/w.md", "workspace fragment")
	s.write("work/sub/dir/rooda.yml", "procedures:\n  from-config:\n    observe: [{path: p.md}]\n    orient: [{path: ../o.md}]\n")
	s.write("work/sub/dir/p.md", "config fragment")
	s.write("work/sub/o.md", "parent fragment")
	s.write("work/a.md", "short path")
	s.write("work/short.yml", "procedures:\n  short:\n    act: [a.md]\n")

	cases := []struct{ config, name, want string }{
		{"", "from-global", "global fragment"},
		{"", "from-workspace", "workspace fragment"},
		{"sub/dir/rooda.yml", "from-config", "config fragment\n\n" + "═══"},
		{"sub/dir/rooda.yml", "from-config", "parent fragment"},
		{"short.yml", "short", "short path"},
	}
	for _, tc := range cases {
		opts := s.options()
		opts.ConfigFile = tc.config
		opts.WorkDir = s.root // not the workspace: paths must not depend on it
		if tc.config != "" {
			opts.ConfigFile = s.work + "/" + tc.config
		} else {
			opts.WorkDir = s.work
		}
		cfg, err := Load(opts)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if err := cfg.Check(tc.name); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		text, err := prompt.Compose(cfg.Procedures[tc.name].Prompt(), prompt.Iteration{Number: 1, Max: 1}, nil)
		if err != nil || !strings.Contains(text, tc.want) {
			t.Errorf("%s: prompt lacks %q (err %v):\n%s", tc.name, tc.want, err, text)
		}
	}
}

// TestStringPhase: rooda 0.1 wrote a phase as one path.
func TestStringPhase(t *testing.T) {
	s := newSandbox(t)
	s.workspace("procedures:\n  old:\n    observe: prompts/o.md\n")
	s.write("work/prompts/o.md", "old style")
	cfg := s.mustLoad()
	if got := cfg.Procedures["old"].Phases[prompt.Observe].V; len(got) != 1 || got[0].Path != "prompts/o.md" {
		t.Errorf("observe = %+v", got)
	}
	if err := cfg.Check("old"); err != nil {
		t.Error(err)
	}
}

// TestParameters: parameters make a fragment a template, with YAML values.
func TestParameters(t *testing.T) {
	s := newSandbox(t)
	s.workspace(`procedures:
  t:
    act:
      - content: "{{.who}} x{{.n}} {{range .items}}[{{.}}]{{end}}"
        parameters: {who: agent, n: 3, items: [a, b]}
      - content: "{{.none}} literal"
`)
	cfg := s.mustLoad()
	text, err := prompt.Compose(cfg.Procedures["t"].Prompt(), prompt.Iteration{Number: 1, Max: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text, "agent x3 [a][b]") || !strings.Contains(text, "{{.none}} literal") {
		t.Errorf("prompt:\n%s", text)
	}
}
