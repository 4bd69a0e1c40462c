package cli

// The recipes under deploy/ run rooda on engines that cannot run here (a
// Docker engine, GitHub's runners, a Kubernetes cluster). Each is checked as
// far as this machine can: it parses, it has the shape its engine needs, and
// every rooda command line in it is one the real binary accepts — run with
// --dry-run in a workspace holding the task files it names, or, for
// `runs report`, run for real against a run the fake agent recorded.

import (
	"encoding/json"
	"errors"
	"fmt"
	goversion "go/version"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"gopkg.in/yaml.v3"

	"rooda/host/loop"
	"rooda/host/process"
)

// readRepoFile is a file of the repository, from this package's directory.
func readRepoFile(t *testing.T, path string) string {
	t.Helper()
	return readText(t, filepath.Join("../..", path))
}

// pinnedCLIs is internal/realcli/install.sh's table of the agent CLIs, each
// name to its npm package@version: the versions the real-CLI suite checks,
// and so the only ones a recipe may install.
func pinnedCLIs(t *testing.T) map[string]string {
	t.Helper()
	pins := map[string]string{}
	for _, m := range regexp.MustCompile(`(?m)^\s*\[(\w+)\]="([^"]+)"`).FindAllStringSubmatch(readRepoFile(t, "internal/realcli/install.sh"), -1) {
		pins[m[1]] = m[2]
	}
	if len(pins) == 0 {
		t.Fatal("no pinned CLI found in internal/realcli/install.sh")
	}
	return pins
}

// newRecipeWorkspace is a workspace where a recipe's commands run: a fake
// agent that succeeds at once (for a run to record), and on PATH a stand-in
// executable for every pinned CLI, so that a dry run's check of the
// agent's executable passes whichever alias a recipe chooses.
func newRecipeWorkspace(t *testing.T) *workspace {
	t.Helper()
	w := newWorkspace(t, step{"output": successSignal})
	bin := filepath.Join(w.dir, "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	for name := range pinnedCLIs(t) {
		if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	w.env = append(w.env, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	return w
}

// writeTask writes a task file the recipe's commands name, at path
// relative to the workspace or absolute.
func (w *workspace) writeTask(path, content string) {
	w.t.Helper()
	if !filepath.IsAbs(path) {
		path = filepath.Join(w.dir, path)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		w.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		w.t.Fatal(err)
	}
}

const sampleTask = "A task for the agent.\n"

// dryRun runs args, a rooda command line without its leading "rooda",
// with --dry-run and env added to the workspace's, and returns its
// output. It is an error when rooda refuses it, or when a --context
// value that is meant as a file (every task the recipes name is one) is
// taken as text: a misspelled path would give the agent its name as the
// task.
func (w *workspace) dryRun(env []string, args []string) (string, error) {
	w.t.Helper()
	saved := w.env
	w.env = append(slices.Clone(w.env), env...)
	defer func() { w.env = saved }()
	o := w.rooda(append(slices.Clone(args), "--dry-run")...)
	output := o.stdout + o.stderr
	if o.code != 0 {
		return output, fmt.Errorf("rooda %s --dry-run: exit %d\n%s", strings.Join(args, " "), o.code, output)
	}
	if n := len(contextValues(args)); strings.Count(output, "✓ Context file exists: ") != n {
		contexts := regexp.MustCompile(`. Context .*`).FindAllString(output, -1)
		return output, fmt.Errorf("rooda %s --dry-run: not every one of the %d --context values is a file that exists: %q", strings.Join(args, " "), n, contexts)
	}
	return output, nil
}

// contextValues are the values of args' --context and -c flags.
func contextValues(args []string) []string {
	var values []string
	for i, arg := range args {
		switch {
		case (arg == "--context" || arg == "-c") && i+1 < len(args):
			values = append(values, args[i+1])
		case strings.HasPrefix(arg, "--context="):
			values = append(values, strings.TrimPrefix(arg, "--context="))
		}
	}
	return values
}

// roodaLines are the rooda command lines of a shell script, each split
// into words without the leading "rooda": lines continued with a
// backslash are one; comments are skipped.
func roodaLines(script string) ([][]string, error) {
	var commands [][]string
	for _, line := range strings.Split(strings.ReplaceAll(script, "\\\n", " "), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		words, err := process.Split(line)
		if err != nil {
			return nil, err
		}
		if len(words) > 0 && words[0] == "rooda" {
			commands = append(commands, words[1:])
		}
	}
	return commands, nil
}

// --- deploy/Dockerfile ---

// dockerInstruction is one instruction of a Dockerfile: its keyword,
// upper-case, and its arguments, the lines it continues with a backslash
// joined.
type dockerInstruction struct {
	keyword, args string
	line          int
}

var dockerKeywords = []string{"ADD", "ARG", "CMD", "COPY", "ENTRYPOINT", "ENV", "EXPOSE", "FROM", "HEALTHCHECK",
	"LABEL", "ONBUILD", "RUN", "SHELL", "STOPSIGNAL", "USER", "VOLUME", "WORKDIR"}

// parseDockerfile reads a Dockerfile's instructions as the builder does:
// comment and blank lines are skipped, inside a continuation too, and a
// line ending in a backslash goes on in the next. A keyword the builder
// does not know is an error.
func parseDockerfile(text string) ([]dockerInstruction, error) {
	var instructions []dockerInstruction
	var current *dockerInstruction
	for i, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		continued := strings.HasSuffix(trimmed, "\\")
		trimmed = strings.TrimSuffix(trimmed, "\\")
		if current != nil {
			current.args += " " + strings.TrimSpace(trimmed)
		} else {
			keyword, args, _ := strings.Cut(trimmed, " ")
			keyword = strings.ToUpper(keyword)
			if !slices.Contains(dockerKeywords, keyword) {
				return nil, fmt.Errorf("line %d: unknown instruction %s", i+1, keyword)
			}
			instructions = append(instructions, dockerInstruction{keyword: keyword, args: strings.TrimSpace(args), line: i + 1})
			current = &instructions[len(instructions)-1]
		}
		if !continued {
			current = nil
		}
	}
	if current != nil {
		return nil, fmt.Errorf("line %d: %s ends inside a line continuation", current.line, current.keyword)
	}
	return instructions, nil
}

// dockerStages splits instructions at each FROM.
func dockerStages(instructions []dockerInstruction) [][]dockerInstruction {
	var stages [][]dockerInstruction
	for _, in := range instructions {
		if in.keyword == "FROM" {
			stages = append(stages, nil)
		}
		if len(stages) > 0 {
			stages[len(stages)-1] = append(stages[len(stages)-1], in)
		}
	}
	return stages
}

// last is the arguments of a stage's last instruction with keyword, and
// whether it has one.
func last(stage []dockerInstruction, keyword string) (string, bool) {
	for _, in := range slices.Backward(stage) {
		if in.keyword == keyword {
			return in.args, true
		}
	}
	return "", false
}

var pinnedImage = regexp.MustCompile(`^[\w./-]+(:(\d+\.\d+\.\d+)[\w.-]*|@sha256:[0-9a-f]{64})$`)

// checkFroms: every image is an earlier stage or pinned to a version (not
// latest, not a major version that moves), and the Go image builds the
// version go.mod asks for.
func checkFroms(stages [][]dockerInstruction, goMod string) []error {
	var problems []error
	var earlier []string
	wantGo := "go" + regexp.MustCompile(`(?m)^go (\S+)`).FindStringSubmatch(goMod)[1]
	for _, stage := range stages {
		fields := strings.Fields(stage[0].args)
		image := fields[0]
		isStage := slices.Contains(earlier, image)
		if len(fields) == 3 && strings.EqualFold(fields[1], "AS") {
			earlier = append(earlier, fields[2])
		}
		if isStage {
			continue
		}
		m := pinnedImage.FindStringSubmatch(image)
		if m == nil {
			problems = append(problems, fmt.Errorf("line %d: FROM %s is not pinned to a version", stage[0].line, image))
			continue
		}
		if strings.HasPrefix(image, "golang:") && goversion.Compare("go"+m[2], wantGo) < 0 {
			problems = append(problems, fmt.Errorf("line %d: FROM %s is older than go.mod's %s", stage[0].line, image, wantGo))
		}
	}
	return problems
}

var agentChoice = regexp.MustCompile(`(\w+)\) package="([^"]+)"`)

// checkAgentChoices: the final stage's ARG AGENT chooses among exactly the
// pinned CLIs, each installed at its pinned version, and its default is
// one of them. It returns the choices.
func checkAgentChoices(final []dockerInstruction, pins map[string]string) ([]string, []error) {
	arg, ok := last(final, "ARG")
	name, def, _ := strings.Cut(arg, "=")
	if !ok || name != "AGENT" {
		return nil, []error{errors.New("the final stage has no ARG AGENT=… to choose the agent CLI")}
	}
	install := map[string]string{}
	for _, in := range final {
		if in.keyword == "RUN" && strings.Contains(in.args, "npm install") {
			for _, m := range agentChoice.FindAllStringSubmatch(in.args, -1) {
				install[m[1]] = m[2]
			}
		}
	}
	var problems []error
	for cli, spec := range pins {
		if install[cli] != spec {
			problems = append(problems, fmt.Errorf("AGENT=%s installs %q, not %q as internal/realcli/install.sh pins", cli, install[cli], spec))
		}
	}
	for cli := range install {
		if pins[cli] == "" {
			problems = append(problems, fmt.Errorf("AGENT=%s is no CLI internal/realcli/install.sh pins", cli))
		}
	}
	if pins[def] == "" {
		problems = append(problems, fmt.Errorf("ARG AGENT's default %q is no pinned CLI", def))
	}
	return slices.Sorted(maps.Keys(install)), problems
}

// imageEnv is the final stage's ENV as the image's environment, $AGENT
// replaced by agent.
func imageEnv(final []dockerInstruction, agent string) []string {
	var env []string
	for _, in := range final {
		if in.keyword == "ENV" {
			value := strings.NewReplacer("${AGENT}", agent, "$AGENT", agent).Replace(in.args)
			env = append(env, value)
		}
	}
	return env
}

// execForm decodes an ENTRYPOINT or CMD written as a JSON array.
func execForm(stage []dockerInstruction, keyword string) ([]string, error) {
	args, ok := last(stage, keyword)
	if !ok {
		return nil, fmt.Errorf("the final stage has no %s", keyword)
	}
	var words []string
	if err := json.Unmarshal([]byte(args), &words); err != nil {
		return nil, fmt.Errorf("%s %s: not the exec form (a JSON array): %w", keyword, args, err)
	}
	return words, nil
}

// checkDockerfile checks deploy/Dockerfile's text: see TestDeployDockerfile.
func checkDockerfile(t *testing.T, text string) error {
	instructions, err := parseDockerfile(text)
	if err != nil {
		return err
	}
	stages := dockerStages(instructions)
	if len(stages) < 2 {
		return errors.New("not a multi-stage build: rooda is built in a stage of its own")
	}
	problems := checkFroms(stages, readRepoFile(t, "go.mod"))
	final := stages[len(stages)-1]
	if user, ok := last(final, "USER"); !ok || slices.Contains([]string{"root", "0"}, strings.SplitN(user, ":", 2)[0]) {
		problems = append(problems, fmt.Errorf("the final stage runs as %q: it needs a USER that is not root", user))
	}
	if dir, _ := last(final, "WORKDIR"); dir != "/work" {
		problems = append(problems, fmt.Errorf("the final stage's WORKDIR is %q, not /work", dir))
	}
	for _, program := range []string{"rooda", "rooda-sandbox", "rooda-full", "rooda-fleet"} {
		if !slices.ContainsFunc(final, func(in dockerInstruction) bool {
			return in.keyword == "COPY" && strings.HasSuffix(in.args, " /usr/local/bin/"+program)
		}) {
			problems = append(problems, fmt.Errorf("the final stage copies no %s to /usr/local/bin/%s", program, program))
		}
	}
	var runs []string
	for _, in := range instructions {
		if in.keyword == "RUN" {
			runs = append(runs, in.args)
		}
	}
	problems = append(problems, buildsTogether("the Dockerfile", runs))
	agents, errs := checkAgentChoices(final, pinnedCLIs(t))
	problems = append(problems, errs...)
	entrypoint, err := execForm(final, "ENTRYPOINT")
	if err != nil {
		return errors.Join(append(problems, err)...)
	}
	cmd, err := execForm(final, "CMD")
	if err != nil {
		return errors.Join(append(problems, err)...)
	}
	if len(entrypoint) == 0 || entrypoint[0] != "rooda" {
		return errors.Join(append(problems, fmt.Errorf("ENTRYPOINT %q does not run rooda", entrypoint))...)
	}
	w := newRecipeWorkspace(t)
	for _, agent := range agents {
		env := imageEnv(final, agent)
		if agent == "claude" && !slices.Contains(env, "IS_SANDBOX=1") {
			problems = append(problems, errors.New("no ENV IS_SANDBOX=1: claude refuses --dangerously-skip-permissions as root without it"))
		}
		problems = append(problems, checkImageRun(w, env, agent, append(entrypoint[1:], cmd...)))
	}
	return errors.Join(append(problems, checkDockerRunExamples(w, text, final))...)
}

// checkImageRun dry-runs args in an image of agent and checks that the
// image's environment chose agent.
func checkImageRun(w *workspace, env []string, agent string, args []string) error {
	output, err := w.dryRun(env, args)
	if err != nil {
		return fmt.Errorf("AGENT=%s: %w", agent, err)
	}
	if line := regexp.MustCompile(`AI Command: .*`).FindString(output); !strings.HasPrefix(line, "AI Command: "+agent+" ") {
		return fmt.Errorf("AGENT=%s: the image runs another agent: %s", agent, line)
	}
	return nil
}

var dockerRunExample = regexp.MustCompile(`(?m)^#\s+docker run .* rooda:(\w+) (.*)$`)

// checkDockerRunExamples dry-runs the rooda command lines of the
// Dockerfile's `docker run … rooda:AGENT ARGS` examples, with the task
// files they name.
func checkDockerRunExamples(w *workspace, text string, final []dockerInstruction) error {
	examples := dockerRunExample.FindAllStringSubmatch(text, -1)
	if len(examples) == 0 {
		return errors.New("no example of docker run … rooda:AGENT ARGS in the comments")
	}
	var problems []error
	for _, m := range examples {
		args, err := process.Split(m[2])
		if err != nil {
			problems = append(problems, err)
			continue
		}
		for _, task := range contextValues(args) {
			w.writeTask(task, sampleTask)
		}
		problems = append(problems, checkImageRun(w, imageEnv(final, m[1]), m[1], args))
	}
	return errors.Join(problems...)
}

// TestDeployDockerfile: deploy/Dockerfile parses; every FROM is pinned, the
// Go image new enough for go.mod; the final stage runs as a user that is
// not root in /work, has rooda on PATH and IS_SANDBOX=1 for claude; ARG
// AGENT installs each CLI at internal/realcli/install.sh's version; and
// ENTRYPOINT plus CMD, under each AGENT's environment, and the docker run
// example in its comments are rooda command lines rooda accepts, running
// that AGENT's CLI.
func TestDeployDockerfile(t *testing.T) {
	checkRecipe(t, "deploy/Dockerfile")
}

// --- deploy/github-actions/rooda.yml ---

type workflowStep struct {
	Name string            `yaml:"name"`
	Uses string            `yaml:"uses"`
	If   string            `yaml:"if"`
	Run  string            `yaml:"run"`
	With map[string]any    `yaml:"with"`
	Env  map[string]string `yaml:"env"`
}

type workflow struct {
	Jobs map[string]struct {
		Strategy struct {
			FailFast *bool               `yaml:"fail-fast"`
			Matrix   map[string][]string `yaml:"matrix"`
		} `yaml:"strategy"`
		Steps []workflowStep `yaml:"steps"`
	} `yaml:"jobs"`
}

var matrixExpression = regexp.MustCompile(`\$\{\{\s*matrix\.task\s*\}\}`)

// checkWorkflow checks deploy/github-actions/rooda.yml's text: see
// TestDeployWorkflow.
func checkWorkflow(t *testing.T, text string) error {
	var flow workflow
	if err := yaml.Unmarshal([]byte(text), &flow); err != nil {
		return err
	}
	if len(flow.Jobs) != 1 {
		return fmt.Errorf("%d jobs; the recipe is one job, run once per task", len(flow.Jobs))
	}
	var problems []error
	for name, job := range flow.Jobs {
		tasks := job.Strategy.Matrix["task"]
		if len(tasks) == 0 {
			problems = append(problems, fmt.Errorf("job %s: no matrix of tasks", name))
		}
		if job.Strategy.FailFast == nil || *job.Strategy.FailFast {
			problems = append(problems, fmt.Errorf("job %s: fail-fast is not false: one task's failure would cancel the others", name))
		}
		problems = append(problems, checkWorkflowSteps(t, job.Steps, tasks))
	}
	return errors.Join(problems...)
}

// checkWorkflowSteps: a step installs a pinned CLI; each rooda run step
// uses a pinned CLI with its key from a secret and dry-runs for every task
// of the matrix; the report is written and uploaded with the records
// whatever the loop's end.
func checkWorkflowSteps(t *testing.T, steps []workflowStep, tasks []string) error {
	pins := pinnedCLIs(t)
	var problems []error
	var scripts []string
	for _, step := range steps {
		scripts = append(scripts, step.Run)
	}
	problems = append(problems, buildsTogether("the workflow", scripts))
	installed := map[string]bool{}
	for _, step := range steps {
		if strings.Contains(step.Run, "npm install") {
			for _, word := range strings.Fields(step.Run) {
				installed[word] = true
			}
		}
	}
	w := newRecipeWorkspace(t)
	for _, task := range tasks {
		w.writeTask("tasks/"+task+".md", sampleTask)
	}
	var reports []string
	runs := 0
	for _, step := range steps {
		commands, err := roodaLines(step.Run)
		if err != nil {
			problems = append(problems, err)
		}
		for _, args := range commands {
			switch {
			case len(args) >= 2 && args[0] == "runs" && args[1] == "report":
				if step.If != "always()" {
					problems = append(problems, fmt.Errorf("step %q: no `if: always()`: a failed loop would have no page", step.Name))
				}
				reports = append(reports, strings.Join(args, " "))
			case len(args) >= 1 && args[0] == "run":
				runs++
				problems = append(problems, checkWorkflowRun(w, step, args, tasks, pins, installed))
			default:
				problems = append(problems, fmt.Errorf("step %q: rooda %s: this test knows no way to check it", step.Name, strings.Join(args, " ")))
			}
		}
	}
	if runs == 0 {
		problems = append(problems, errors.New("no step runs rooda run"))
	}
	return errors.Join(append(problems, checkReports(w, steps, reports))...)
}

// checkWorkflowRun dry-runs a rooda run step once per task.
func checkWorkflowRun(w *workspace, step workflowStep, args, tasks []string, pins map[string]string, installed map[string]bool) error {
	var problems []error
	alias := ""
	if i := slices.Index(args, "--ai-cmd-alias"); i >= 0 && i+1 < len(args) {
		alias = args[i+1]
	}
	if pins[alias] == "" || !installed[pins[alias]] {
		problems = append(problems, fmt.Errorf("step %q: --ai-cmd-alias %q is not a CLI a step installs at its pinned version (npm install %s)", step.Name, alias, pins[alias]))
	}
	if !slices.ContainsFunc(slices.Collect(maps.Values(step.Env)), func(v string) bool { return strings.Contains(v, "secrets.") }) {
		problems = append(problems, fmt.Errorf("step %q: the agent's key comes from no secret", step.Name))
	}
	for _, task := range tasks {
		var concrete []string
		for _, arg := range args {
			concrete = append(concrete, matrixExpression.ReplaceAllString(arg, task))
		}
		if _, err := w.dryRun(nil, concrete); err != nil {
			problems = append(problems, fmt.Errorf("step %q, task %s: %w", step.Name, task, err))
		}
	}
	return errors.Join(problems...)
}

// checkReports runs each runs report line against a run the fake agent
// recorded, and checks that an upload step with `if: always()` takes the
// page it writes and .rooda/runs, hidden files included.
func checkReports(w *workspace, steps []workflowStep, reports []string) error {
	if len(reports) == 0 {
		return errors.New("no step writes the run's page with rooda runs report")
	}
	if o := w.run("build", "-n", "1"); o.code != 0 {
		w.t.Fatalf("recording a run: exit %d\n%s", o.code, o.stderr)
	}
	i := slices.IndexFunc(steps, func(s workflowStep) bool { return strings.HasPrefix(s.Uses, "actions/upload-artifact@") })
	if i < 0 {
		return errors.New("no step uploads an artifact")
	}
	upload := steps[i]
	paths := strings.Fields(fmt.Sprint(upload.With["path"]))
	var problems []error
	if upload.If != "always()" {
		problems = append(problems, fmt.Errorf("step %q: no `if: always()`: a failed loop would leave no record", upload.Name))
	}
	if upload.With["include-hidden-files"] != true {
		problems = append(problems, fmt.Errorf("step %q: without include-hidden-files: true, .rooda/runs is left out", upload.Name))
	}
	if !slices.Contains(paths, ".rooda/runs") {
		problems = append(problems, fmt.Errorf("step %q uploads %q, not .rooda/runs", upload.Name, paths))
	}
	for _, report := range reports {
		args, _ := process.Split(report)
		o := slices.Index(args, "-o")
		if o < 0 || o+1 == len(args) {
			problems = append(problems, fmt.Errorf("rooda %s: no -o FILE, the page an upload takes", report))
			continue
		}
		page := args[o+1]
		if o := w.rooda(args...); o.code != 0 {
			problems = append(problems, fmt.Errorf("rooda %s: exit %d\n%s", report, o.code, o.stderr))
		} else if data, err := os.ReadFile(filepath.Join(w.dir, page)); err != nil || !strings.Contains(string(data), "<html") {
			problems = append(problems, fmt.Errorf("rooda %s wrote no page to %s: %v", report, page, err))
		}
		if !slices.Contains(paths, page) {
			problems = append(problems, fmt.Errorf("step %q uploads %q, not the page %s", upload.Name, paths, page))
		}
	}
	return errors.Join(problems...)
}

// TestDeployWorkflow: deploy/github-actions/rooda.yml parses as one job
// with a matrix of tasks that do not cancel each other; the CLI its rooda
// run uses is installed at the pinned version and its key is a secret;
// that rooda run, for every task, is one rooda accepts, reading the task's
// file; the runs report line works against a recorded run; and the page
// and .rooda/runs are uploaded whatever the loop's end.
func TestDeployWorkflow(t *testing.T) {
	checkRecipe(t, "deploy/github-actions/rooda.yml")
}

// --- deploy/kubernetes/indexed-job.yaml ---

type k8sContainer struct {
	Name       string   `yaml:"name"`
	WorkingDir string   `yaml:"workingDir"`
	Command    []string `yaml:"command"`
	Args       []string `yaml:"args"`
	Env        []struct {
		Name      string `yaml:"name"`
		Value     string `yaml:"value"`
		ValueFrom *struct {
			SecretKeyRef *struct{ Name, Key string } `yaml:"secretKeyRef"`
		} `yaml:"valueFrom"`
	} `yaml:"env"`
	SecurityContext k8sSecurityContext `yaml:"securityContext"`
	Resources       struct {
		Limits map[string]string `yaml:"limits"`
	} `yaml:"resources"`
	VolumeMounts []k8sVolumeMount `yaml:"volumeMounts"`
}

type k8sVolumeMount struct {
	Name        string `yaml:"name"`
	MountPath   string `yaml:"mountPath"`
	SubPathExpr string `yaml:"subPathExpr"`
}

type k8sSecurityContext struct {
	RunAsNonRoot             *bool  `yaml:"runAsNonRoot"`
	RunAsUser                *int64 `yaml:"runAsUser"`
	AllowPrivilegeEscalation *bool  `yaml:"allowPrivilegeEscalation"`
}

type k8sVolume struct {
	Name      string `yaml:"name"`
	ConfigMap *struct {
		Name string `yaml:"name"`
	} `yaml:"configMap"`
	PersistentVolumeClaim *struct {
		ClaimName string `yaml:"claimName"`
	} `yaml:"persistentVolumeClaim"`
}

// k8sPodFailurePolicy is a Job's spec.podFailurePolicy (batch/v1).
type k8sPodFailurePolicy struct {
	Rules []struct {
		Action      string `yaml:"action"`
		OnExitCodes *struct {
			ContainerName string `yaml:"containerName"`
			Operator      string `yaml:"operator"`
			Values        []int  `yaml:"values"`
		} `yaml:"onExitCodes"`
		OnPodConditions []k8sPodCondition `yaml:"onPodConditions"`
	} `yaml:"rules"`
}

type k8sPodCondition struct {
	Type string `yaml:"type"`
}

type k8sObject struct {
	Kind     string `yaml:"kind"`
	Metadata struct {
		Name string `yaml:"name"`
	} `yaml:"metadata"`
	Data map[string]string `yaml:"data"`
	Spec struct {
		CompletionMode        string               `yaml:"completionMode"`
		Completions           int                  `yaml:"completions"`
		Parallelism           int                  `yaml:"parallelism"`
		BackoffLimit          *int                 `yaml:"backoffLimit"`
		ActiveDeadlineSeconds int                  `yaml:"activeDeadlineSeconds"`
		PodFailurePolicy      *k8sPodFailurePolicy `yaml:"podFailurePolicy"`
		Template              struct {
			Spec struct {
				RestartPolicy   string             `yaml:"restartPolicy"`
				SecurityContext k8sSecurityContext `yaml:"securityContext"`
				InitContainers  []k8sContainer     `yaml:"initContainers"`
				Containers      []k8sContainer     `yaml:"containers"`
				Volumes         []k8sVolume        `yaml:"volumes"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

// parseK8s decodes every document of a manifest.
func parseK8s(text string) ([]k8sObject, error) {
	var objects []k8sObject
	decoder := yaml.NewDecoder(strings.NewReader(text))
	for {
		var object k8sObject
		err := decoder.Decode(&object)
		if errors.Is(err, io.EOF) {
			return objects, nil
		}
		if err != nil {
			return nil, err
		}
		objects = append(objects, object)
	}
}

const indexVariable = "$(JOB_COMPLETION_INDEX)"

// loopContainer is the manifest's Job and the index of its container
// whose command is rooda; an error if there is no such Job or container.
func loopContainer(objects []k8sObject) (job k8sObject, i int, err error) {
	j := slices.IndexFunc(objects, func(o k8sObject) bool { return o.Kind == "Job" })
	if j < 0 {
		return job, -1, errors.New("no Job")
	}
	job = objects[j]
	i = slices.IndexFunc(job.Spec.Template.Spec.Containers, func(c k8sContainer) bool { return slices.Equal(c.Command, []string{"rooda"}) })
	if i < 0 {
		return job, -1, errors.New("no container's command is rooda")
	}
	return job, i, nil
}

// checkIndexedJob checks deploy/kubernetes/indexed-job.yaml's text: see
// TestDeployIndexedJob.
func checkIndexedJob(t *testing.T, text string) error {
	objects, err := parseK8s(text)
	if err != nil {
		return err
	}
	job, i, err := loopContainer(objects)
	if job.Kind == "" {
		return err
	}
	spec, pod := job.Spec, job.Spec.Template.Spec
	var problems []error
	if spec.CompletionMode != "Indexed" {
		problems = append(problems, fmt.Errorf("completionMode is %q, not Indexed", spec.CompletionMode))
	}
	if spec.Completions < 1 || spec.Parallelism < 1 || spec.Parallelism > spec.Completions {
		problems = append(problems, fmt.Errorf("completions %d, parallelism %d: want 1 <= parallelism <= completions", spec.Completions, spec.Parallelism))
	}
	if spec.BackoffLimit == nil || *spec.BackoffLimit < 1 {
		problems = append(problems, errors.New("backoffLimit is not above 0: a pod killed midway is not run again, and its run never resumes"))
	}
	if spec.ActiveDeadlineSeconds <= 0 {
		problems = append(problems, errors.New("no activeDeadlineSeconds: the Job could run without end"))
	}
	if sc := pod.SecurityContext; sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot || sc.RunAsUser == nil || *sc.RunAsUser == 0 {
		problems = append(problems, errors.New("the pod's securityContext does not run as a user that is not root (runAsNonRoot, runAsUser)"))
	}
	for _, c := range append(slices.Clone(pod.InitContainers), pod.Containers...) {
		if c.Resources.Limits["cpu"] == "" || c.Resources.Limits["memory"] == "" {
			problems = append(problems, fmt.Errorf("container %s: no cpu and memory limits", c.Name))
		}
		if c.SecurityContext.AllowPrivilegeEscalation == nil || *c.SecurityContext.AllowPrivilegeEscalation {
			problems = append(problems, fmt.Errorf("container %s: allowPrivilegeEscalation is not false", c.Name))
		}
	}
	if err != nil {
		return errors.Join(append(problems, err)...)
	}
	c := pod.Containers[i]
	problems = append(problems, checkPodFailurePolicy(spec.PodFailurePolicy, pod.RestartPolicy, c.Name)...)
	problems = append(problems, checkLoopContainer(t, c, objects, spec.Completions))
	return errors.Join(append(problems, checkClone(t, c, pod.InitContainers))...)
}

// exitOfKill is the exit code of a container killed outright (SIGKILL):
// an OOM kill, the end of a drain's grace period.
const exitOfKill = 128 + int(syscall.SIGKILL)

// action is what the policy does with a pod whose container exited with
// code, as Kubernetes decides it: the first rule that matches, with the
// pod's condition DisruptionTarget (a drain, a preemption, an eviction)
// or not; no rule, and the failure counts against backoffLimit.
func (p *k8sPodFailurePolicy) action(container string, code int, disrupted bool) string {
	for _, r := range p.Rules {
		if e := r.OnExitCodes; e != nil && (e.ContainerName == "" || e.ContainerName == container) &&
			slices.Contains(e.Values, code) == (e.Operator == "In") {
			return r.Action
		}
		if disrupted && slices.Contains(r.OnPodConditions, k8sPodCondition{Type: "DisruptionTarget"}) {
			return r.Action
		}
	}
	return "Count"
}

// checkPodFailurePolicy: the exit codes of a loop that ended fail the
// Job (running it again would only find its run ended); those of a run
// cut short (interrupted, killed) do not: that pod runs again and resumes
// its run, without counting against backoffLimit when the cluster
// disrupted it. Kubernetes takes a podFailurePolicy only with
// restartPolicy Never.
func checkPodFailurePolicy(p *k8sPodFailurePolicy, restartPolicy, container string) []error {
	if p == nil {
		return []error{errors.New("no podFailurePolicy: a loop that ended would be run again, and a drain would count against backoffLimit")}
	}
	var problems []error
	if restartPolicy != "Never" {
		problems = append(problems, fmt.Errorf("restartPolicy is %q: a podFailurePolicy needs Never", restartPolicy))
	}
	for _, s := range loop.Statuses {
		if code := s.ExitCode(); code != 0 && s != loop.Interrupted && p.action(container, code, false) != "FailJob" {
			problems = append(problems, fmt.Errorf("podFailurePolicy: exit code %d of container %s (%s, a loop that ended) does not fail the Job: it would run again", code, container, s))
		}
	}
	for _, code := range []int{loop.Interrupted.ExitCode(), exitOfKill} {
		if a := p.action(container, code, false); a == "FailJob" {
			problems = append(problems, fmt.Errorf("podFailurePolicy: exit code %d of container %s (a run cut short) fails the Job: it would never resume", code, container))
		}
		if a := p.action(container, code, true); a != "Ignore" {
			problems = append(problems, fmt.Errorf("podFailurePolicy: a pod disrupted (DisruptionTarget) with exit code %d is %s, not Ignore: a drain would count against backoffLimit", code, a))
		}
	}
	return problems
}

// podEnv is the container's environment for a run here: its Secrets'
// keys with a sample value, without its OTEL_ settings (the collector's
// address resolves in the cluster only); and whether it takes a key from
// a Secret and sends traces to a collector.
func podEnv(c k8sContainer) (env []string, secret, otel bool) {
	for _, e := range c.Env {
		switch {
		case e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil:
			secret = true
			env = append(env, e.Name+"=sample")
		case e.Name == "OTEL_EXPORTER_OTLP_ENDPOINT":
			otel = strings.HasPrefix(e.Value, "http://") || strings.HasPrefix(e.Value, "https://")
		case !strings.HasPrefix(e.Name, "OTEL_"):
			env = append(env, e.Name+"="+e.Value)
		}
	}
	return env, secret, otel
}

// checkLoopContainer: the container that runs rooda chooses its task and
// its run's name by its index, has the agent's key from a Secret, sends
// traces to a collector, keeps its working directory and .rooda/runs on
// a claim, and its command line, for every index, is one rooda accepts,
// reading that index's task from the ConfigMap.
func checkLoopContainer(t *testing.T, c k8sContainer, objects []k8sObject, completions int) error {
	var problems []error
	if task := flagValue(c.Args, "--context"); !strings.Contains(task, indexVariable) {
		problems = append(problems, fmt.Errorf("container %s: its task (--context %q) does not use %s: every index would run the same task", c.Name, task, indexVariable))
	}
	if name := flagValue(c.Args, "--run-name"); !strings.Contains(name, indexVariable) {
		problems = append(problems, fmt.Errorf("container %s: no --run-name with %s (%q): a pod run again would start its index's run anew, not resume it", c.Name, indexVariable, name))
	}
	env, secret, otel := podEnv(c)
	if !secret {
		problems = append(problems, fmt.Errorf("container %s: the agent's key comes from no Secret", c.Name))
	}
	if !otel {
		problems = append(problems, fmt.Errorf("container %s: no OTEL_EXPORTER_OTLP_ENDPOINT URL for the collector", c.Name))
	}
	if m, ok := mountOf(c.VolumeMounts, c.WorkingDir); !ok || !onClaimPerIndex(objects, m) {
		problems = append(problems, fmt.Errorf("container %s: its workingDir %s is not on a claim in a directory of each index's (subPathExpr with %s): a pod run again would resume its run without the agent's work", c.Name, c.WorkingDir, indexVariable))
	}
	if m, ok := mountOf(c.VolumeMounts, c.WorkingDir+"/.rooda/runs"); !ok || !onClaimPerIndex(objects, m) {
		problems = append(problems, fmt.Errorf("container %s: .rooda/runs is not on a claim in a directory of each index's (subPathExpr with %s): the records would not outlive the pod, or would mix", c.Name, indexVariable))
	}
	return errors.Join(append(problems, dryRunEveryIndex(t, c, objects, env, completions))...)
}

// flagValue is the value of the last flag in args, "" if none.
func flagValue(args []string, flag string) string {
	value := ""
	for i, arg := range args {
		if arg == flag && i+1 < len(args) {
			value = args[i+1]
		} else if v, ok := strings.CutPrefix(arg, flag+"="); ok {
			value = v
		}
	}
	return value
}

// mountOf is the mount that holds path: the deepest whose mountPath is
// path or a directory above it.
func mountOf(mounts []k8sVolumeMount, path string) (k8sVolumeMount, bool) {
	var found k8sVolumeMount
	for _, m := range mounts {
		if (path == m.MountPath || strings.HasPrefix(path, strings.TrimSuffix(m.MountPath, "/")+"/")) && len(m.MountPath) > len(found.MountPath) {
			found = m
		}
	}
	return found, found.Name != ""
}

// onClaimPerIndex: the mount is of a claim, in a directory of each
// index's.
func onClaimPerIndex(objects []k8sObject, m k8sVolumeMount) bool {
	return podVolume(objects, m.Name).PersistentVolumeClaim != nil && strings.Contains(m.SubPathExpr, indexVariable)
}

// checkClone: an init container puts the clone where the rooda
// container works — the same volume, directory and path — and, run as a
// pod run again runs it, leaves a clone that is there as it is, and
// clones again after a clone that was cut short. Its command runs here,
// its mount moved to a directory of the test's and git a stand-in that
// makes the directory it clones into, or fails (as a cut clone) having
// made it, when $FAIL is set.
func checkClone(t *testing.T, c k8sContainer, inits []k8sContainer) error {
	work, _ := mountOf(c.VolumeMounts, c.WorkingDir)
	i := slices.IndexFunc(inits, func(init k8sContainer) bool { return slices.Contains(init.VolumeMounts, work) })
	if i < 0 {
		return fmt.Errorf("no init container mounts %s as container %s does (%+v): none puts the clone there", work.MountPath, c.Name, work)
	}
	init := inits[i]
	dir := t.TempDir()
	bin, calls := filepath.Join(dir, "bin"), filepath.Join(dir, "calls")
	must(t, os.Mkdir(bin, 0o755))
	must(t, os.WriteFile(filepath.Join(bin, "git"), []byte(`#!/bin/sh
echo "$*" >> "$CALLS"
for into; do :; done
if [ -e "$into" ]; then echo "fatal: destination path '$into' already exists" >&2; exit 128; fi
mkdir -p "$into/.git"
[ -z "$FAIL" ]
`), 0o755))
	moved := strings.NewReplacer(work.MountPath, filepath.Join(dir, "work"))
	must(t, os.Mkdir(filepath.Join(dir, "work"), 0o755))
	var command []string
	for _, arg := range slices.Concat(init.Command, init.Args) {
		command = append(command, moved.Replace(arg))
	}
	// clone runs the command as a pod does, and returns how many times
	// git ran in all.
	clone := func(fail string) (int, error) {
		cmd := exec.Command(command[0], command[1:]...)
		cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "CALLS="+calls, "FAIL="+fail)
		out, err := cmd.CombinedOutput()
		switch {
		case fail != "":
			err = nil // a clone cut short fails the container, as it should
		case err != nil:
			err = fmt.Errorf("%w\n%s", err, out)
		default:
			if _, statErr := os.Stat(filepath.Join(moved.Replace(c.WorkingDir), ".git")); statErr != nil {
				err = fmt.Errorf("no clone in %s after it: %w", c.WorkingDir, statErr)
			}
		}
		data, _ := os.ReadFile(calls)
		return strings.Count(string(data), "\n"), err
	}
	var problems []error
	for _, run := range []struct {
		what, fail string
		clones     int
	}{
		{"a clone cut short", "1", 1},
		{"the pod after it", "", 2},
		{"a pod run again", "", 2},
	} {
		n, err := clone(run.fail)
		if err != nil {
			problems = append(problems, fmt.Errorf("init container %s, in %s: %w", init.Name, run.what, err))
		} else if n != run.clones {
			problems = append(problems, fmt.Errorf("init container %s: after %s, git ran %d times in all, not %d: a pod run again must keep the clone it finds, and only a whole one", init.Name, run.what, n, run.clones))
		}
	}
	return errors.Join(problems...)
}

// podArgs are the container's args as the pod of index runs them, here:
// the ConfigMaps it mounts written out below the workspace, and their
// mount paths in the args moved there.
func podArgs(w *workspace, c k8sContainer, objects []k8sObject, index int) []string {
	mounts := []string{indexVariable, strconv.Itoa(index)}
	for _, m := range c.VolumeMounts {
		data := configMapOf(objects, m.Name)
		if data == nil {
			continue
		}
		mounts = append(mounts, m.MountPath, filepath.Join(w.dir, "mounts", m.MountPath))
		for name, content := range data {
			w.writeTask(filepath.Join(w.dir, "mounts", m.MountPath, name), content)
		}
	}
	replacer := strings.NewReplacer(mounts...)
	var args []string
	for _, arg := range c.Args {
		args = append(args, replacer.Replace(arg))
	}
	return args
}

// dryRunEveryIndex dry-runs the container's args for each index, without
// --run-name (a dry run makes no record to name: TestDeployIndexedJobResumes
// runs it for real).
func dryRunEveryIndex(t *testing.T, c k8sContainer, objects []k8sObject, env []string, completions int) error {
	w := newRecipeWorkspace(t)
	var problems []error
	for index := range completions {
		args := podArgs(w, c, objects, index)
		if i := slices.Index(args, "--run-name"); i >= 0 && i+1 < len(args) {
			args = slices.Delete(args, i, i+2)
		}
		if _, err := w.dryRun(env, args); err != nil {
			problems = append(problems, fmt.Errorf("index %d: %w", index, err))
		}
	}
	return errors.Join(problems...)
}

// podVolume is the pod's volume named name, or none.
func podVolume(objects []k8sObject, name string) k8sVolume {
	for _, job := range objects {
		for _, v := range job.Spec.Template.Spec.Volumes {
			if v.Name == name {
				return v
			}
		}
	}
	return k8sVolume{}
}

// configMapOf is the data of the ConfigMap the pod's volume named volume
// mounts, or nil.
func configMapOf(objects []k8sObject, volume string) map[string]string {
	v := podVolume(objects, volume)
	if v.ConfigMap == nil {
		return nil
	}
	for _, o := range objects {
		if o.Kind == "ConfigMap" && o.Metadata.Name == v.ConfigMap.Name {
			return o.Data
		}
	}
	return nil
}

// TestDeployIndexedJob: deploy/kubernetes/indexed-job.yaml parses; its
// Job is Indexed, with parallelism at most its completions, a deadline,
// and a backoff limit above 0 whose podFailurePolicy fails the Job on
// the exit codes of a loop that ended, not on those of a run cut short,
// and does not count a disruption; its pod runs as a user that is not
// root, every container limited; the rooda container takes its task and
// its --run-name by its index, its key from a Secret, sends traces to a
// collector and keeps its working directory and .rooda/runs on a claim,
// in a directory of each index's, where an init container clones the
// repository unless a whole clone is there; and its command line, for
// every index, is one rooda accepts, reading that index's task file from
// the ConfigMap.
func TestDeployIndexedJob(t *testing.T) {
	checkRecipe(t, "deploy/kubernetes/indexed-job.yaml")
}

// TestDeployIndexedJobResumes: the recipe's rooda command line, run for
// real as the pod of index 1 runs it (its task from the ConfigMap, the
// image's claude the fake agent), killed outright in its second
// iteration as an OOM kill or a drain's end leaves it, then started
// again as the Job's next pod is: it resumes the same run, runs no agent
// of an iteration that ended again, and ends as the run not killed does
// (all its iterations, the spend of each once). Started once more, it
// exits at once with that run's exit code, one the podFailurePolicy
// fails the Job on, and starts no agent.
func TestDeployIndexedJobResumes(t *testing.T) {
	t.Parallel()
	objects, err := parseK8s(readRepoFile(t, "deploy/kubernetes/indexed-job.yaml"))
	must(t, err)
	job, i, err := loopContainer(objects)
	must(t, err)
	c := job.Spec.Template.Spec.Containers[i]
	turns, err := strconv.Atoi(flagValue(c.Args, "--max-iterations"))
	must(t, err)
	var steps []step
	for n := 1; n <= turns; n++ {
		steps = append(steps, step{"output": claudeTurn(fmt.Sprintf("working on part %d", n), 0.01, 100, 10), "delay": "200ms"})
	}
	// The second iteration's agent works until the kill: run again, it
	// ends as the others do.
	steps[1] = step{"output": steps[1]["output"], "delay": "1m", "again": steps[1]}
	w := newWorkspace(t)
	w.countStarts(steps)
	bin := filepath.Dir(w.fakeCLI("claude"))
	env, _, _ := podEnv(c)
	w.env = append(w.env, append(env, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))...)
	d := durableRun{w: w, args: podArgs(w, c, objects, 1)}

	first := d.start()
	w.waitForLog(first, "Iteration 2/", "the run never reached its second iteration")
	waitUntil(t, "the agent of the second iteration started", func() bool { return d.starts()["script.json_2"] == 1 }, first.stderr.String)
	first.cmd.Process.Signal(syscall.SIGKILL)
	first.cmd.Wait()
	runDir, cut := d.recorded()
	if cut.Status != "running" {
		t.Fatalf("killed in its second iteration, the run is recorded as %s\n%s", cut, first.stderr)
	}
	if task := readText(t, flagValue(d.args, "--context")); !strings.Contains(w.prompt(1), task) {
		t.Errorf("the agent was not given index 1's task %q:\n%s", task, w.prompt(1))
	}

	second := w.wait(d.start())
	again, ended := d.recorded()
	if again != runDir || !strings.Contains(second.stderr, "Resuming run "+filepath.Base(runDir)) {
		t.Fatalf("started again, it did not resume run %s (now %s)\n%s", filepath.Base(runDir), again, second.stderr)
	}
	for n := 1; n <= turns; n++ {
		want := 1
		if n == 2 {
			want = 2 // in flight when it was killed
		}
		if got := d.starts()[fmt.Sprintf("script.json_%d", n)]; got != want {
			t.Errorf("the agent of iteration %d started %d times, want %d (only the one in flight runs again): %v", n, got, want, d.starts())
		}
	}
	code := loop.MaxIters.ExitCode()
	want := fmt.Sprintf(`{"status":"%s","exit_code":%d,"iterations":%d,"spent":{"input_tokens":%d,"output_tokens":%d,"cost_usd":%g}}`,
		loop.MaxIters, code, turns, 100*turns, 10*turns, 0.01*float64(turns))
	if second.code != code || ended.String() != want {
		t.Errorf("resumed, it ended with exit %d as\n  %s\nnot exit %d as\n  %s\n%s", second.code, ended, code, want, second.stderr)
	}

	before := d.starts()
	third := w.wait(d.start())
	third.expect(t, code, fmt.Sprintf("run %s, named %s, has ended (%s, exit code %d); not starting it again",
		filepath.Base(runDir), flagValue(d.args, "--run-name"), loop.MaxIters, code))
	if !equalCounts(d.starts(), before) {
		t.Errorf("started after its run ended, it started agents: %v (before: %v)", d.starts(), before)
	}
	if a := job.Spec.PodFailurePolicy.action(c.Name, third.code, false); a != "FailJob" {
		t.Errorf("the exit code %d of a run that ended is %s by the podFailurePolicy, not FailJob", third.code, a)
	}
}

// buildsTogether: one of the commands builds rooda, rooda-sandbox,
// rooda-full and rooda-fleet into one directory (go build -o DIR/), so
// that rooda finds its trampoline, rooda-full and rooda-fleet beside it;
// where is the recipe, for the message.
func buildsTogether(where string, commands []string) error {
	for _, command := range commands {
		for _, line := range strings.Split(command, "\n") {
			fields := strings.Fields(line)
			out := slices.Index(fields, "-o")
			if slices.Contains(fields, "go") && slices.Contains(fields, "build") && out >= 0 && out+1 < len(fields) &&
				strings.HasSuffix(strings.Trim(fields[out+1], `"`), "/") &&
				slices.Contains(fields, "./cmd/rooda") && slices.Contains(fields, "./cmd/rooda-sandbox") && slices.Contains(fields, "./cmd/rooda-full") &&
				slices.Contains(fields, "./cmd/rooda-fleet") {
				return nil
			}
		}
	}
	return fmt.Errorf("%s builds no rooda, rooda-sandbox, rooda-full and rooda-fleet side by side (go build -o DIR/ ./cmd/rooda ./cmd/rooda-sandbox ./cmd/rooda-full ./cmd/rooda-fleet): without rooda-sandbox every agent starts through rooda, a few ms slower; without rooda-full script fmt and script lint fail, and no trace is sent; without rooda-fleet, rooda fleet fails", where)
}

// recipeChecks is the check of each recipe, by its path in the repository.
var recipeChecks = map[string]func(*testing.T, string) error{
	"deploy/Dockerfile":                  checkDockerfile,
	"deploy/github-actions/rooda.yml":    checkWorkflow,
	"deploy/kubernetes/indexed-job.yaml": checkIndexedJob,
	fleetRecipe:                          checkFleetManifest,
}

// checkRecipe runs the check of the recipe at path on the file as it is.
func checkRecipe(t *testing.T, path string) {
	t.Parallel()
	if err := recipeChecks[path](t, readRepoFile(t, path)); err != nil {
		t.Error(err)
	}
}

// TestDeployChecksCatchBreakage: each recipe's check fails on a copy of
// the recipe broken in one way, so that none of them passes whatever the
// file says.
func TestDeployChecksCatchBreakage(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ file, old, new string }{
		{"deploy/Dockerfile", `"--max-iterations"`, `"--max-iteratons"`},
		{"deploy/Dockerfile", "USER node", "USER root"},
		{"deploy/Dockerfile", "FROM node:24.11.1-trixie-slim", "FROM node:latest"},
		{"deploy/Dockerfile", "claude-code@2.1.332", "claude-code@2.1.0"},
		{"deploy/Dockerfile", "ENV ROODA_LOOP_AI_CMD_ALIAS=$AGENT", "ENV ROODA_LOOP_AI_CMD_ALIAS=claude"},
		{"deploy/Dockerfile", "--context tasks/fix-login.md", "--contxt tasks/fix-login.md"},
		{"deploy/Dockerfile", "/var/lib/apt/lists/* \\\n", "/var/lib/apt/lists/*\n"},
		{"deploy/Dockerfile", " ./cmd/rooda ./cmd/rooda-sandbox", " ./cmd/rooda"},
		{"deploy/Dockerfile", " ./cmd/rooda-full", ""},
		{"deploy/Dockerfile", "/out/rooda-sandbox /usr/local/bin/rooda-sandbox", "/out/rooda-sandbox /usr/local/bin/sandbox"},
		{"deploy/Dockerfile", "/out/rooda-full /usr/local/bin/rooda-full", "/out/rooda-full /usr/local/bin/full"},
		{"deploy/Dockerfile", " ./cmd/rooda-fleet", ""},
		{"deploy/Dockerfile", "COPY --from=build /out/rooda-fleet /usr/local/bin/rooda-fleet\n", ""},
		{"deploy/github-actions/rooda.yml", " ./cmd/rooda ./cmd/rooda-sandbox", " ./cmd/rooda"},
		{"deploy/github-actions/rooda.yml", " ./cmd/rooda-full", ""},
		{"deploy/github-actions/rooda.yml", " ./cmd/rooda-fleet", ""},
		{"deploy/github-actions/rooda.yml", "--max-iterations 5", "--max-iteration 5"},
		{"deploy/github-actions/rooda.yml", `"tasks/${{ matrix.task }}.md"`, `"task/${{ matrix.task }}.md"`},
		{"deploy/github-actions/rooda.yml", "runs report last -o run.html", "runs report last --out run.html"},
		{"deploy/github-actions/rooda.yml", "if: always()\n        uses: actions/upload-artifact", "uses: actions/upload-artifact"},
		{"deploy/github-actions/rooda.yml", "include-hidden-files: true", "include-hidden-files: false"},
		{"deploy/github-actions/rooda.yml", "claude-code@2.1.332", "claude-code"},
		{"deploy/kubernetes/indexed-job.yaml", "- --max-iterations", "- --max-iteratons"},
		{"deploy/kubernetes/indexed-job.yaml", "completionMode: Indexed", "completionMode: NonIndexed"},
		{"deploy/kubernetes/indexed-job.yaml", "runAsNonRoot: true", "runAsNonRoot: false"},
		{"deploy/kubernetes/indexed-job.yaml", "task-$(JOB_COMPLETION_INDEX).md", "task-0.md"},
		{"deploy/kubernetes/indexed-job.yaml", "completions: 3", "completions: 4"},
		{"deploy/kubernetes/indexed-job.yaml", "persistentVolumeClaim:\n            claimName: rooda-work", "emptyDir: {}"},
		{"deploy/kubernetes/indexed-job.yaml", "            - name: work\n              mountPath: /work\n              subPathExpr: task-$(JOB_COMPLETION_INDEX)\n            - name: tasks",
			"            - name: work\n              mountPath: /work\n              subPathExpr: tasks\n            - name: tasks"},
		{"deploy/kubernetes/indexed-job.yaml", "              readOnly: true\n", "              readOnly: true\n            - name: scratch\n              mountPath: /work/repo/.rooda/runs\n"},
		{"deploy/kubernetes/indexed-job.yaml", "            - --run-name\n            - task-$(JOB_COMPLETION_INDEX)\n", ""},
		{"deploy/kubernetes/indexed-job.yaml", "            - --run-name\n            - task-$(JOB_COMPLETION_INDEX)\n", "            - --run-name\n            - task\n"},
		{"deploy/kubernetes/indexed-job.yaml", "backoffLimit: 3", "backoffLimit: 0"},
		{"deploy/kubernetes/indexed-job.yaml", "restartPolicy: Never", "restartPolicy: OnFailure"},
		{"deploy/kubernetes/indexed-job.yaml", "values: [1, 2]", "values: [1]"},
		{"deploy/kubernetes/indexed-job.yaml", "values: [1, 2]", "values: [1, 2, 130]"},
		{"deploy/kubernetes/indexed-job.yaml", "operator: In", "operator: NotIn"},
		{"deploy/kubernetes/indexed-job.yaml", "containerName: rooda", "containerName: clone"},
		{"deploy/kubernetes/indexed-job.yaml", "action: FailJob", "action: Count"},
		{"deploy/kubernetes/indexed-job.yaml", "type: DisruptionTarget", "type: Ready"},
		{"deploy/kubernetes/indexed-job.yaml", "  podFailurePolicy:\n", "  podFailurePolicyX:\n"},
		{"deploy/kubernetes/indexed-job.yaml", "test -d /work/repo || {", "{"},
		{"deploy/kubernetes/indexed-job.yaml", "rm -rf /work/repo.partial &&", ""},
		{"deploy/kubernetes/indexed-job.yaml", "git clone https://github.com/your-org/your-repo.git /work/repo.partial &&\n              mv /work/repo.partial /work/repo;",
			"git clone https://github.com/your-org/your-repo.git /work/repo;"},
		{"deploy/kubernetes/indexed-job.yaml", "              mountPath: /work\n              subPathExpr: task-$(JOB_COMPLETION_INDEX)\n      containers:", "              mountPath: /work\n      containers:"},
		{fleetRecipe, "accessModes: [ReadWriteOnce]", "accessModes: [ReadWriteMany]"},
		{fleetRecipe, "        - name: work\n          emptyDir:\n            sizeLimit: 20Gi", "        - name: work\n          persistentVolumeClaim:\n            claimName: rooda-work"},
		{fleetRecipe, "image: nats:2.15.2-alpine", "image: nats:latest"},
		{fleetRecipe, "image: nats:2.15.2-alpine", "image: nats:2.10.0-alpine"},
		{fleetRecipe, "value: nats://$(ROODA_FLEET_TOKEN)@rooda-nats:4222", "value: nats://rooda-nats:4222"},
		{fleetRecipe, "value: nats://$(ROODA_FLEET_TOKEN)@rooda-nats:4222", "value: nats://$(ROODA_FLEET_TOKEN)@nats:4222"},
		{fleetRecipe, "                  name: rooda-fleet\n                  key: token\n            # Kubernetes", "                  name: rooda-agent\n                  key: token\n            # Kubernetes"},
		{fleetRecipe, "            - fleet\n            - worker\n", "            - run\n            - build\n"},
		{fleetRecipe, "  selector:\n    app: rooda-nats\n", "  selector:\n    app: nats\n"},
		{fleetRecipe, "runAsNonRoot: true", "runAsNonRoot: false"},
	} {
		t.Run(c.file+": "+c.new, func(t *testing.T) {
			t.Parallel()
			text := readRepoFile(t, c.file)
			if !strings.Contains(text, c.old) {
				t.Fatalf("%s holds no %q to break", c.file, c.old)
			}
			if err := recipeChecks[c.file](t, strings.Replace(text, c.old, c.new, 1)); err == nil {
				t.Errorf("with %q for %q, the check of %s passes", c.new, c.old, c.file)
			} else {
				t.Log(err)
			}
		})
	}
}
