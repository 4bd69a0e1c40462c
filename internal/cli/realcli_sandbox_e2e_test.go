package cli

import (
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"rooda/host/sandbox"
	"rooda/internal/modelserver"
	"rooda/internal/realcli"
)

// sandboxedToolCall: under sandbox: workspace, the CLI runs to SUCCESS;
// its tool call writes in the workspace, and its write outside it is
// refused, the refusal in what the CLI printed and in the transcript.
// It is tried with SHELL set to bash and with SHELL unset, as cron and
// CI start rooda: then claude runs its tools in zsh, which words the
// refusal its own way.
func sandboxedToolCall(t *testing.T, cli realcli.Installed) {
	needsLandlock(t, sandbox.SignalsABI, "the sandbox's test")
	for _, shell := range []struct{ name, env string }{{"bash", "SHELL=/bin/bash"}, {"shell_unset", ""}} {
		t.Run(shell.name, func(t *testing.T) { sandboxedToolCallIn(t, cli, shell.env) })
	}
}

// sandboxedToolCallIn is sandboxedToolCall with SHELL set by shell
// ("SHELL=…"), or unset if shell is "".
func sandboxedToolCallIn(t *testing.T, cli realcli.Installed, shell string) {
	outside := t.TempDir()
	line := "printf 'inside\\n' > made.txt; printf 'outside\\n' > " + outside + "/out.txt"
	r := newRealRun(t, cli, modelserver.Shell(line, "All done. "+successSignal))
	r.env = slices.DeleteFunc(r.env, func(kv string) bool { return strings.HasPrefix(kv, "SHELL=") })
	if shell != "" {
		r.env = append(r.env, shell)
	}
	o := r.build("-n", "1", "--sandbox", "workspace")
	o.expect(t, 0, "Success: the agent signaled SUCCESS in iteration 1/1")
	if data, err := os.ReadFile(filepath.Join(r.dir, "made.txt")); string(data) != "inside\n" {
		t.Errorf("made.txt: %q, %v", data, err)
	}
	if _, err := os.Stat(filepath.Join(outside, "out.txt")); err == nil {
		t.Error("the write outside the workspace went through")
	}
	transcript := readText(t, filepath.Join(r.runDir(), "iterations", "0001", "transcript.txt"))
	output := readText(t, filepath.Join(r.runDir(), "iterations", "0001", "output.txt"))
	if !strings.Contains(strings.ToLower(output), "permission denied") {
		t.Errorf("the refusal is not in what %s printed:\n%s", cli.Name, output)
	}
	// The transcript cuts a tool's result to a line, and says the
	// refusal all the same; the iteration's record counts it.
	if !strings.Contains(transcript, "Permission denied") {
		t.Errorf("the refused write is not in the transcript:\n%s", transcript)
	}
	if meta := readText(t, filepath.Join(r.runDir(), "iterations", "0001", "meta.json")); !strings.Contains(meta, `"refused_tool_results": 1`) {
		t.Errorf("meta.json does not count the refusal:\n%s", meta)
	}
	t.Logf("%s under sandbox: workspace; transcript:\n%s", cli.Name, transcript)
}

// sandboxNetReachesTheModelOnly: with sandbox_net the model server's
// port, the CLI talks to its model as before, and its tool call cannot
// connect to another port that listens.
func sandboxNetReachesTheModelOnly(t *testing.T, cli realcli.Installed) {
	needsLandlock(t, sandbox.SignalsABI, "the sandbox's test")
	other, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	otherPort := strconv.Itoa(other.Addr().(*net.TCPAddr).Port)
	line := "bash -c '(exec 3<>/dev/tcp/127.0.0.1/" + otherPort + ") 2>/dev/null && echo other-port-connected || echo other-port-refused'"
	r := newRealRun(t, cli, modelserver.Shell(line, "All done. "+successSignal))
	_, modelPort, _ := strings.Cut(strings.TrimPrefix(r.server.URL, "http://"), ":")
	o := r.build("-n", "1", "--sandbox", "workspace", "--sandbox-net", modelPort)
	o.expect(t, 0, "Success: the agent signaled SUCCESS in iteration 1/1")
	// The tool's result, as the transcript shows it (the command line,
	// which names both outcomes, is echoed in the stream).
	transcript := readText(t, filepath.Join(r.runDir(), "iterations", "0001", "transcript.txt"))
	if !strings.Contains(transcript, "← other-port-refused") {
		t.Errorf("the tool call's connection to port %s was not refused:\n%s", otherPort, transcript)
	}
}

// sandboxHostsReachesTheModelOnly: with sandbox_hosts naming only the
// model server, the CLI runs in a network namespace of its own and
// completes its turn (whether it sends the request through the proxy or
// straight to 127.0.0.1, where the forwarder listens); its tool call's
// request to another local port, sent to the proxy as the variables
// say, is refused 403, recorded in meta.json; tried directly, it finds
// nothing listening.
func sandboxHostsReachesTheModelOnly(t *testing.T, cli realcli.Installed) {
	if abi := sandbox.ABI(); abi < 6 {
		t.Skipf("SKIPPED: this kernel's Landlock ABI is %d: the sandbox's test needs 6", abi)
	}
	other, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	otherPort := other.Addr().(*net.TCPAddr).Port
	url := "http://127.0.0.1:" + strconv.Itoa(otherPort) + "/"
	line := "curl -s -m 5 -o /dev/null -w 'via-proxy:%{http_code}\\n' " + url + "; curl -s -m 5 --noproxy '*' -o /dev/null " + url + " || echo direct-refused"
	r := newRealRun(t, cli, modelserver.Shell(line, "All done. "+successSignal))
	model := strings.TrimPrefix(r.server.URL, "http://")
	o := r.build("-n", "1", "--sandbox", "workspace", "--sandbox-hosts", model)
	o.expect(t, 0, "Success: the agent signaled SUCCESS in iteration 1/1", "WARN: Sandbox: refused a connection to 127.0.0.1:"+strconv.Itoa(otherPort))
	transcript := readText(t, filepath.Join(r.runDir(), "iterations", "0001", "transcript.txt"))
	output := readText(t, filepath.Join(r.runDir(), "iterations", "0001", "output.txt"))
	for _, want := range []string{"via-proxy:403", "direct-refused"} {
		if !strings.Contains(output, want) {
			t.Errorf("the tool call's result lacks %s:\n%s", want, transcript)
		}
	}
	m := r.meta(1)
	if m.Sandbox == nil || m.Sandbox.Net == nil || !slices.Contains(m.Sandbox.Net.Refused, sandbox.Refusal{Host: "127.0.0.1", Port: otherPort, Count: 1}) {
		t.Errorf("meta.json's sandbox: %+v", m.Sandbox)
	}
	t.Logf("%s under sandbox_hosts %s; transcript:\n%s", cli.Name, model, transcript)
}

// sandboxHostsThroughTheProxy: with the model server on an address of
// this machine's other than loopback, which the agent's namespace has
// no route to, the CLI completes its turn only if it sends its requests
// through the proxy the variables name (HTTPS_PROXY, HTTP_PROXY …): the
// proof that it honours them, as it must to reach a real API. All five
// do (claude, codex, gemini, opencode, copilot at the pinned versions).
func sandboxHostsThroughTheProxy(t *testing.T, cli realcli.Installed) {
	if abi := sandbox.ABI(); abi < 6 {
		t.Skipf("SKIPPED: this kernel's Landlock ABI is %d: the sandbox's test needs 6", abi)
	}
	addr := outsideAddress(t)
	if strings.HasPrefix(addr, "127.") {
		t.Skip("SKIPPED: this machine has no address but loopback")
	}
	server, err := modelserver.Listen(addr+":0", modelserver.Script{modelserver.Text("All done. " + successSignal)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(server.Close)
	r := newRealRunOn(t, cli, server)
	model := strings.TrimPrefix(server.URL, "http://")
	o := r.build("-n", "1", "--sandbox", "workspace", "--sandbox-hosts", model)
	o.expect(t, 0, "Success: the agent signaled SUCCESS in iteration 1/1")
	// What else the CLI tried to reach (its telemetry, plugins, model
	// lists) is refused and recorded; the turn did not need it.
	m := r.meta(1)
	if m.Sandbox == nil || m.Sandbox.Net == nil {
		t.Fatalf("meta.json's sandbox: %+v", m.Sandbox)
	}
	t.Logf("%s through the proxy to %s; refused besides: %v", cli.Name, model, m.Sandbox.Net.Refused)
}
