package main

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
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
// the agent's namespace.
func hostsLine(a, b, other string) string {
	get := func(label, flags, url string) string {
		return fmt.Sprintf(`echo %s:$(curl -s -m 5 %s -o /dev/null -w '%%{http_code}' %s || true); `, label, flags, url)
	}
	return `for c in $(cat /proc/$PPID/task/*/children); do [ $c = $$ ] || echo $c >> children; done; touch children; ` +
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
	if children := readText(t, filepath.Join(w.dir, "children")); children != "" {
		t.Errorf("the agent had children besides its shell: %s", children)
	}
	show := w.rooda("runs", "show", "last", "--iteration", "1").stdout
	if !strings.Contains(show, "Refused by the proxy: 127.0.0.1:"+b+" (2)") {
		t.Errorf("runs show lacks the refusal:\n%s", show)
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
