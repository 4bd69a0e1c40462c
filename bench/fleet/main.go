// Command fleet measures what the fleet adds to a run: the same run of
// the fake agent (an agent that reads its prompt and prints a line,
// until the iteration limit), by rooda on its own and through
// `rooda fleet` (a server `rooda fleet serve` runs, one worker with one
// slot, both idle between runs), taking turns, with one iteration and
// with -iterations, -runs times each.
//
//	go run ./bench/fleet [-runs 5] [-iterations 50]
//
// rooda on its own is timed from its start to its exit. A run through
// the fleet is timed by the fleet's own clock, as the run's state says:
// from its queueing (`fleet add`) to the write of its end, after the
// worker read how it ended from its record. What the fleet adds to a run
// is the difference of the one-iteration runs (the queue, the worktree,
// the worker's start of rooda and its reading of the record); what it
// adds to an iteration is the difference of the differences between the
// two lengths, per iteration. It prints the medians, and each turn's
// figures.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

func main() {
	runs := flag.Int("runs", 5, "turns of each measure")
	iterations := flag.Int("iterations", 50, "iterations of the long runs")
	flag.Parse()
	tmp, err := os.MkdirTemp("", "rooda-bench-fleet")
	check(err)
	defer os.RemoveAll(tmp)
	b := newBench(tmp)
	defer b.stop()
	sizes := []int{1, *iterations}
	local := map[int][]time.Duration{}
	fleet := map[int][]time.Duration{}
	for turn := range *runs {
		for _, n := range sizes {
			l := b.local(n)
			f := b.fleet(fmt.Sprintf("t%d-n%d", turn, n), n, l)
			local[n], fleet[n] = append(local[n], l), append(fleet[n], f)
			fmt.Printf("turn %d, %3d iterations: rooda %8.1f ms, through the fleet %8.1f ms\n", turn+1, n, ms(l), ms(f))
		}
	}
	l1, lN, f1, fN := median(local[1]), median(local[*iterations]), median(fleet[1]), median(fleet[*iterations])
	fmt.Printf("\nmedians of %d turns:\n", *runs)
	fmt.Printf("  1 iteration:   rooda %.1f ms, through the fleet %.1f ms: the fleet adds %.1f ms a run\n", ms(l1), ms(f1), ms(f1-l1))
	fmt.Printf("  %d iterations: rooda %.1f ms, through the fleet %.1f ms\n", *iterations, ms(lN), ms(fN))
	perIteration := (ms(fN-f1) - ms(lN-l1)) / float64(*iterations-1)
	fmt.Printf("  the fleet adds %.2f ms an iteration ((%.1f - %.1f) - (%.1f - %.1f)) / %d\n", perIteration, ms(fN), ms(f1), ms(lN), ms(l1), *iterations-1)
}

// bench is a git checkout with the fake agent, rooda and rooda-fleet
// built, and a fleet's server and worker running.
type bench struct {
	bin, repo, aiCmd string
	env              []string
	url              string
	serve, worker    *exec.Cmd
}

func newBench(tmp string) *bench {
	b := &bench{bin: filepath.Join(tmp, "bin"), repo: filepath.Join(tmp, "repo")}
	for name, pkg := range map[string]string{"rooda": "./cmd/rooda", "rooda-fleet": "./cmd/rooda-fleet", "rooda-sandbox": "./cmd/rooda-sandbox", "fakeagent": "./internal/fakeagent"} {
		out, err := exec.Command("go", "build", "-o", filepath.Join(b.bin, name), pkg).CombinedOutput()
		check(err, string(out))
	}
	check(os.MkdirAll(b.repo, 0o755))
	script := filepath.Join(tmp, "script.json")
	check(os.WriteFile(script, []byte(`{"steps": [{"output": "working\n"}]}`), 0o644))
	b.aiCmd = filepath.Join(b.bin, "fakeagent") + " " + script
	check(os.WriteFile(filepath.Join(b.repo, ".gitignore"), []byte(".rooda/\n"), 0o644))
	b.env = append(os.Environ(), "ROODA_CONFIG_HOME="+filepath.Join(tmp, "no-global"), "XDG_STATE_HOME="+filepath.Join(tmp, "state"), "ROODA_LOG_LEVEL=", "ROODA_SHOW_AI_OUTPUT=")
	for _, args := range [][]string{{"init", "--quiet"}, {"add", "."}, {"-c", "user.name=b", "-c", "user.email=b@example.org", "commit", "--quiet", "-m", "start"}} {
		b.command("git", args...).Run()
	}
	b.serve = b.command(filepath.Join(b.bin, "rooda"), "fleet", "serve", "--listen", "127.0.0.1:0")
	out, err := b.serve.StdoutPipe()
	check(err)
	check(b.serve.Start())
	line, err := bufio.NewReader(out).ReadString('\n')
	check(err)
	b.url = strings.TrimSuffix(strings.Fields(strings.TrimPrefix(line, "Fleet server on "))[0], ",")
	b.worker = b.command(filepath.Join(b.bin, "rooda"), "fleet", "worker", "--server", b.url)
	check(b.worker.Start())
	return b
}

func (b *bench) command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = b.repo, b.env
	return cmd
}

func (b *bench) stop() {
	for _, cmd := range []*exec.Cmd{b.worker, b.serve} {
		if cmd != nil && cmd.Process != nil {
			cmd.Process.Signal(os.Interrupt)
			cmd.Wait()
		}
	}
}

// local is the wall time of rooda running n iterations on its own.
func (b *bench) local(n int) time.Duration {
	start := time.Now()
	cmd := b.command(filepath.Join(b.bin, "rooda"), "run", "build", "-n", fmt.Sprint(n), "--ai-cmd", b.aiCmd)
	if err := cmd.Run(); err != nil && cmd.ProcessState.ExitCode() != 2 { // 2: max iterations, as planned
		check(err)
	}
	return time.Since(start)
}

// fleet is the time from the queueing of a run of n iterations to the
// write of its end, as its state says; the run is expected to take about
// local, the same run's time on its own.
func (b *bench) fleet(name string, n int, local time.Duration) time.Duration {
	add := b.command(filepath.Join(b.bin, "rooda"), "fleet", "add", "--server", b.url, "--name", name, "build", "-n", fmt.Sprint(n), "--ai-cmd", b.aiCmd)
	out, err := add.CombinedOutput()
	check(err, string(out))
	// Its status is asked for only once it may have ended, and then
	// seldom: each ask starts rooda and rooda-fleet, CPU the run would
	// otherwise have.
	time.Sleep(local)
	for {
		time.Sleep(100 * time.Millisecond)
		out, err := b.command(filepath.Join(b.bin, "rooda"), "fleet", "status", "--server", b.url, "--json").Output()
		check(err)
		var states []struct {
			Run struct {
				Name   string    `json:"name"`
				Queued time.Time `json:"queued"`
			} `json:"run"`
			Phase   string    `json:"phase"`
			Status  string    `json:"status"`
			Updated time.Time `json:"updated"`
		}
		check(json.Unmarshal(out, &states))
		for _, st := range states {
			if st.Run.Name != name || st.Phase != "ended" {
				continue
			}
			if st.Status != "max-iters" {
				check(fmt.Errorf("run %s ended %s", name, st.Status))
			}
			return st.Updated.Sub(st.Run.Queued)
		}
	}
}

func median(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func check(err error, context ...string) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench/fleet:", err, strings.Join(context, " "))
		os.Exit(1)
	}
}
