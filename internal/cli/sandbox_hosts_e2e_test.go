package cli

import (
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"rooda/host/sandbox"
)

// hostsLine is the fake agent's shell line for TestSandboxHosts: each
// way of reaching port a (allowed) and port b (not), through the proxy
// and directly, and the proxy's own port on another local address; each
// prints what it got. It also notes the agent's children (the shell's
// siblings) in the file children: rooda leaves no process of its own in
// the agent's namespace; and the sockets it holds, and any of a proxy's
// it finds, in the file sockets (socketsLine).
func hostsLine(a, b, other string) string {
	get := func(label, flags, url string) string {
		return fmt.Sprintf(`echo %s:$(curl -s -m 5 %s -o /dev/null -w '%%{http_code}' %s || true); `, label, flags, url)
	}
	return socketsLine() + `for c in $(cat /proc/$PPID/task/*/children); do [ $c = $$ ] || echo $c >> children; done; touch children; ` +
		`pp=${HTTP_PROXY##*:}; ` +
		get("proxy-a", "", "http://127.0.0.1:"+a+"/") +
		get("connect-a", "-p", "http://127.0.0.1:"+a+"/") +
		get("direct-a", "--noproxy '*'", "http://127.0.0.1:"+a+"/") +
		get("proxy-b", "", "http://127.0.0.1:"+b+"/") +
		get("connect-b", "-p", "http://127.0.0.1:"+b+"/") +
		get("direct-b", "--noproxy '*'", "http://127.0.0.1:"+b+"/") +
		get("own-port-elsewhere", "--noproxy '*'", "http://127.0.0.2:$pp/") +
		get("own-port-outside", "--noproxy '*'", "http://"+other+":$pp/")
}

// TestSandboxHosts: with sandbox_hosts naming 127.0.0.1:A, the agent
// reaches the server on port A through the proxy (plain HTTP and
// CONNECT) and directly (the forwarder listens on 127.0.0.1:A inside);
// port B is refused both ways, and so is the proxy's port on any other
// address: the agent's network namespace has no other way out. The
// refusal is in meta.json, counted, and in the log once; no process of
// rooda's is left with the agent.
func TestSandboxHosts(t *testing.T) {
	t.Parallel()
	if abi := sandbox.ABI(); abi < 6 {
		t.Skipf("SKIPPED: this kernel's Landlock ABI is %d; the sandbox's tests need 6", abi)
	}
	a, b := localServer(t, "a"), localServer(t, "b")
	w := newWorkspace(t)
	w.countStarts([]step{{"shell": hostsLine(a, b, outsideAddress(t)), "output": successSignal}})
	o := w.run("build", "-n", "1", "--sandbox", "workspace", "--sandbox-hosts", "127.0.0.1:"+a)
	o.expect(t, 0, "Success: the agent signaled SUCCESS", "WARN: Sandbox: refused a connection to 127.0.0.1:"+b+": not in sandbox_hosts")
	if strings.Contains(o.stderr, "outside its process group") {
		t.Errorf("a process left the agent's group:\n%s", o.stderr)
	}
	if n := strings.Count(o.stderr, "refused a connection"); n != 1 {
		t.Errorf("the refusal is said %d times, want once:\n%s", n, o.stderr)
	}
	kept := readText(t, filepath.Join(w.runDir(), "iterations", "0001", "output.txt"))
	for _, want := range []string{"proxy-a:200", "connect-a:200", "direct-a:200", "proxy-b:403", "connect-b:000", "direct-b:000", "own-port-elsewhere:000", "own-port-outside:000"} {
		if !strings.Contains(kept, want+"\n") {
			t.Errorf("the agent's output lacks %s:\n%s", want, kept)
		}
	}
	m := w.meta(1)
	if m.Sandbox == nil || m.Sandbox.Net == nil {
		t.Fatalf("meta.json has no sandbox.net: %+v", m.Sandbox)
	}
	port, _ := strconv.Atoi(b)
	if got, want := fmt.Sprint(m.Sandbox.Net.Refused), fmt.Sprint([]sandbox.Refusal{{Host: "127.0.0.1", Port: port, Count: 2}}); got != want {
		t.Errorf("meta.json's refusals: %s, want %s", got, want)
	}
	if sockets := readText(t, filepath.Join(w.dir, "sockets")); sockets != "" {
		t.Errorf("the agent holds or finds a proxy's socket:\n%s", sockets)
	}
	if children := readText(t, filepath.Join(w.dir, "children")); children != "" {
		t.Errorf("the agent had children besides its shell: %s", children)
	}
	show := w.rooda("runs", "show", "last", "--iteration", "1").stdout
	if !strings.Contains(show, "Refused by the proxy: 127.0.0.1:"+b+" (2)") {
		t.Errorf("runs show lacks the refusal:\n%s", show)
	}
	// The run's own view lists its loop's refusals in all.
	if show := w.rooda("runs", "show", "last").stdout; !strings.Contains(show, "\n  Refused by the proxy: 127.0.0.1:"+b+" (2)\n") {
		t.Errorf("runs show of the run lacks the loop's refusals:\n%s", show)
	}
}

// socketsLine is the agent's shell line that writes to the file sockets
// each socket among its descriptors (the trampoline's handoff, had it
// leaked) and each socket under the iterations' directories (rooda's
// TMPDIR's rooda-agent-*), where the proxies' sockets were once: any
// process could connect to one.
func socketsLine() string {
	return fmt.Sprintf(`{ ls -l /proc/$$/fd | grep socket: ; find %s -maxdepth 4 -path '*/rooda-agent-*' -type s 2>/dev/null; } > sockets; `, os.TempDir())
}

// TestSandboxHostsTwoRuns: while a run's agent is under way, another
// run's agent finds no socket of its proxy, nor of its own, and cannot
// reach the first's proxy on its port; the first run is not disturbed.
func TestSandboxHostsTwoRuns(t *testing.T) {
	t.Parallel()
	if abi := sandbox.ABI(); abi < 6 {
		t.Skipf("SKIPPED: this kernel's Landlock ABI is %d; the sandbox's tests need 6", abi)
	}
	srv := localServer(t, "a")
	first, second := newWorkspace(t), newWorkspace(t)
	proxyOfFirst, secondDone := filepath.Join(first.dir, "proxy"), filepath.Join(second.dir, "done")
	// The first agent waits, up to 10 s, for the second to be done.
	first.countStarts([]step{{"shell": fmt.Sprintf(`echo ${HTTP_PROXY##*:} > %s; i=0; while [ ! -e %s ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done`, proxyOfFirst, secondDone), "output": successSignal}})
	second.countStarts([]step{{"shell": fmt.Sprintf(`i=0; while [ ! -s %[1]s ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done; `, proxyOfFirst) +
		socketsLine() +
		fmt.Sprintf(`echo through-first:$(curl -s -m 5 -x http://127.0.0.1:$(cat %s) -o /dev/null -w '%%{http_code}' http://127.0.0.1:%s/ || true) > through; touch done`, proxyOfFirst, srv),
		"output": successSignal}})
	running := first.start(first.command("build", "-n", "1", "--sandbox", "workspace", "--sandbox-hosts", "127.0.0.1:"+srv))
	second.run("build", "-n", "1", "--sandbox", "workspace", "--sandbox-hosts", "127.0.0.1:1").expect(t, 0, "Success: the agent signaled SUCCESS")
	first.wait(running).expect(t, 0, "Success: the agent signaled SUCCESS")
	if sockets := readText(t, filepath.Join(second.dir, "sockets")); sockets != "" {
		t.Errorf("the second run's agent finds sockets of the proxies:\n%s", sockets)
	}
	if through := readText(t, filepath.Join(second.dir, "through")); strings.Contains(through, ":200") {
		t.Errorf("the second run's agent reached the first's server through its proxy: %s", through)
	}
}

// localServer is an HTTP server on 127.0.0.1 answering with its name,
// and its port.
func localServer(t *testing.T, name string) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, name) }))
	t.Cleanup(srv.Close)
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	return port
}

// outsideAddress is an address of this machine's other than loopback,
// or 127.0.0.3 where it has none.
func outsideAddress(t *testing.T) string {
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if ip, ok := a.(*net.IPNet); ok && !ip.IP.IsLoopback() && ip.IP.To4() != nil {
			return ip.IP.String()
		}
	}
	return "127.0.0.3"
}

// TestSandboxHostsLowPortAsUser: rooda run by a user other than root
// (uid 65534, through setpriv) gives its agent a loopback entry on a
// port below 1024, which only CAP_NET_BIND_SERVICE in the agent's user
// namespace lets the trampoline listen on; the agent keeps no
// capability. It needs root, to be another user and to serve that port.
func TestSandboxHostsLowPortAsUser(t *testing.T) {
	t.Parallel()
	if abi := sandbox.ABI(); abi < 6 {
		t.Skipf("SKIPPED: this kernel's Landlock ABI is %d; the sandbox's tests need 6", abi)
	}
	setpriv, err := exec.LookPath("setpriv")
	if os.Geteuid() != 0 || err != nil {
		t.Skip("SKIPPED: NOT TESTED: a loopback entry below port 1024 for a user other than root: this needs root and setpriv to run rooda as uid 65534")
	}
	port := lowPortServer(t)
	w := nobodyWorkspace(t, `curl -s -m 5 --noproxy '*' http://127.0.0.1:`+port+`/ > got; grep -E '^Cap(Prm|Eff|Amb)' /proc/$$/status > caps`)
	cmd := exec.Command(setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", filepath.Join(w.dir, "rooda"),
		"run", "--ai-cmd", filepath.Join(w.dir, "fakeagent")+" "+w.script, "build", "-n", "1", "--sandbox", "workspace", "--sandbox-hosts", "127.0.0.1:"+port)
	cmd.Dir, cmd.Env = w.dir, w.env
	o := w.wait(w.start(cmd))
	if strings.Contains(o.stderr, "network namespace of the agent's own") {
		t.Skipf("SKIPPED: NOT TESTED: uid 65534 gets no network namespace here:\n%s", o.stderr)
	}
	o.expect(t, 0, "Success: the agent signaled SUCCESS")
	if got := readText(t, filepath.Join(w.dir, "got")); got != "low" {
		t.Errorf("the agent got %q from 127.0.0.1:%s, want low", got, port)
	}
	if caps := readText(t, filepath.Join(w.dir, "caps")); strings.Count(caps, "0000000000000000") != 3 {
		t.Errorf("the agent holds capabilities:\n%s", caps)
	}
}

// lowPortServer serves "low" on 127.0.0.1 on the first free port below
// 1024; its port.
func lowPortServer(t *testing.T) string {
	for port := 1; port < 1024; port++ {
		ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
		if err != nil {
			continue
		}
		srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "low") })}
		go srv.Serve(ln)
		t.Cleanup(func() { srv.Close() })
		return strconv.Itoa(port)
	}
	t.Fatal("no free port below 1024 on 127.0.0.1")
	return ""
}

// nobodyWorkspace is a workspace that uid 65534 owns, in a directory it
// can reach, with copies of rooda and the fake agent that it can run, the
// agent's one step the shell line given, and an environment of its own.
func nobodyWorkspace(t *testing.T, shell string) *workspace {
	dir, err := os.MkdirTemp("", "rooda-nobody-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	w := &workspace{t: t, dir: dir, script: filepath.Join(dir, "script.json")}
	for _, name := range []string{"rooda", "fakeagent"} {
		data, err := os.ReadFile(filepath.Join(binaries(t), name))
		if err != nil {
			t.Fatal(err)
		}
		w.write(name, string(data))
		os.Chmod(filepath.Join(dir, name), 0o755)
	}
	w.countStarts([]step{{"shell": shell, "output": successSignal}})
	w.env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "ROODA_CONFIG_HOME=" + filepath.Join(dir, "no-global")}
	err = filepath.WalkDir(dir, func(path string, _ fs.DirEntry, err error) error {
		if err == nil {
			err = os.Lchown(path, 65534, 65534)
		}
		return err
	})
	if err != nil || os.Chmod(dir, 0o755) != nil {
		t.Fatal("giving the workspace to uid 65534: ", err)
	}
	return w
}
