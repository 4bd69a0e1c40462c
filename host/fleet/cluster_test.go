package fleet

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// cluster starts n real NATS servers with JetStream in the test's
// process, each on a store of its own, routed to one another as one
// cluster, and waits until JetStream has a leader.
func cluster(t *testing.T, n int) []*server.Server {
	t.Helper()
	var routes []*url.URL
	ports := freePorts(t, n)
	for _, p := range ports {
		routes = append(routes, &url.URL{Scheme: "nats", Host: fmt.Sprintf("127.0.0.1:%d", p)})
	}
	var servers []*server.Server
	for i := range n {
		ns, err := server.NewServer(&server.Options{
			ServerName: fmt.Sprintf("node-%d", i),
			Host:       "127.0.0.1",
			Port:       server.RANDOM_PORT,
			JetStream:  true,
			StoreDir:   t.TempDir(),
			NoSigs:     true,
			Cluster:    server.ClusterOpts{Name: "rooda", Host: "127.0.0.1", Port: ports[i]},
			Routes:     routes,
		})
		if err != nil {
			t.Fatal(err)
		}
		ns.Start()
		t.Cleanup(ns.Shutdown)
		servers = append(servers, ns)
	}
	deadline := time.Now().Add(30 * time.Second)
	for !hasLeader(servers) {
		if time.Now().After(deadline) {
			t.Fatal("the cluster elected no JetStream leader within 30 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	return servers
}

func hasLeader(servers []*server.Server) bool {
	for _, ns := range servers {
		if ns.Running() && ns.JetStreamIsLeader() {
			return true
		}
	}
	return false
}

// freePorts are n ports of 127.0.0.1 free a moment ago: the cluster's
// route ports, which each server must know of the others before they
// start.
func freePorts(t *testing.T, n int) []int {
	t.Helper()
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
		defer l.Close()
	}
	return ports
}

// clusterClient is a client that connects to servers, the first it names
// first, and goes on with another when that one is lost.
func clusterClient(t *testing.T, servers ...*server.Server) *Fleet {
	t.Helper()
	var urls []string
	for _, ns := range servers {
		urls = append(urls, ns.ClientURL())
	}
	// A cluster just started places streams only once its servers know
	// one another as online, a moment after it elected a leader.
	deadline := time.Now().Add(30 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		f, err := Connect(ctx, strings.Join(urls, ","), "")
		cancel()
		if err == nil {
			t.Cleanup(f.Close)
			return f
		}
		if time.Now().After(deadline) {
			t.Fatal(err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestTheFleetOnAClusterOfThree: on three servers, the fleet's queue and
// states are kept three times; a run queued through one server is taken
// through another, a lapsed lease gives the run to a worker on a third,
// and with the server the runs were queued through shut down, the
// workers take and end the rest.
func TestTheFleetOnAClusterOfThree(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a cluster")
	}
	nodes := cluster(t, 3)
	ctx := context.Background()
	adder := clusterClient(t, nodes[0])
	for i := range 4 {
		if _, err := adder.Add(ctx, testRun(fmt.Sprintf("run-%d", i))); err != nil {
			t.Fatal(err)
		}
	}
	info, err := adder.stream.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.Config.Replicas != 3 {
		t.Errorf("the queue keeps %d copies on a cluster of three, want 3", info.Config.Replicas)
	}
	lease := time.Second
	a := queue(t, clusterClient(t, nodes[1], nodes[2]), lease)
	b := queue(t, clusterClient(t, nodes[2], nodes[1]), lease)
	// a takes a run and never renews its lease; b, through another
	// server, works the others, and a's once its lease lapses. The server
	// the runs were queued through is shut down after b's first.
	stale := takeAsAWorker(t, a, "a")
	ended := map[string]State{}
	for len(ended) < 4 {
		l := takeAsAWorker(t, b, "b")
		if err := l.End(ctx, Ending{Status: "success"}); err != nil {
			t.Fatalf("ending %s (%d ended, a server down after the first): %v", l.State().Run.Name, len(ended), err)
		}
		ended[l.State().Run.Name] = l.State()
		if len(ended) == 1 {
			nodes[0].Shutdown()
		}
	}
	if st := ended[stale.State().Run.Name]; st.Attempt != 2 || st.Worker != "b" {
		t.Errorf("the run of a's lapsed lease: %+v, want ended by b at attempt 2", st)
	}
	if err := stale.End(ctx, Ending{Status: "aborted"}); !errors.Is(err, ErrRevisionMoved) {
		t.Errorf("a's end of the run it lost: %v, want ErrRevisionMoved", err)
	}
	states, err := clusterClient(t, nodes[1]).States(ctx)
	if err != nil {
		t.Fatal(err)
	}
	success := 0
	for _, st := range states {
		if st.Phase == Ended && st.Status == "success" {
			success++
		}
	}
	if len(states) != 4 || success != 4 {
		t.Errorf("states with a server down: %+v, want the 4 runs ended", states)
	}
}

// takeAsAWorker takes a run as a Worker's slot does: an error (a server
// lost, the cluster electing its leaders again) is followed by another
// try, for up to 30 s.
func takeAsAWorker(t *testing.T, q *Queue, worker string) *Lease {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		l, err := q.Take(ctx, worker)
		cancel()
		if err == nil {
			return l
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s took nothing within 30 s: %v", worker, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
