package runpage

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"maps"
	"net/http"
	"slices"
	"sync"
	"time"

	"rooda/host/ledger"
	"rooda/host/units"
)

// FleetStatus is the fleet's runs as `rooda fleet status --json` prints
// them. rooda links no NATS (docs/design.md, "The fleet"): the command
// line asks rooda-fleet, and the page only reads what it says.
type FleetStatus func(ctx context.Context) ([]byte, error)

// fleetState is what the page reads of a run's state in the fleet
// (host/fleet's State, as JSON).
type fleetState struct {
	Run struct {
		Name string   `json:"name"`
		Argv []string `json:"argv"`
	} `json:"run"`
	Phase      string    `json:"phase"`
	Status     string    `json:"status"`
	ExitCode   int       `json:"exit_code"`
	Worker     string    `json:"worker"`
	Workspace  string    `json:"workspace"`
	Record     string    `json:"record"`
	Attempt    int       `json:"attempt"`
	Iterations int       `json:"iterations"`
	Tokens     int64     `json:"tokens"`
	CostUSD    float64   `json:"cost_usd"`
	Updated    time.Time `json:"updated"`
}

// fleetRow is one run of the fleet page.
type fleetRow struct {
	Name, Status, Command, Spent, Worker, Workspace, Record, Updated string
	Iterations, Attempt                                              int
}

// fleetView is the fleet page: its runs and its accounts' ledger, or why
// they cannot be read, and a version that changes whenever what it shows
// does.
type fleetView struct {
	Runs     []fleetRow
	Accounts []ledger.Shown
	Error    string
	Version  string
}

// fleetStatus is what `rooda fleet status --json --with-accounts` prints.
type fleetStatus struct {
	Runs     []fleetState            `json:"runs"`
	Accounts map[string]ledger.Entry `json:"accounts"`
}

// readFleet asks status for the fleet's runs and accounts, their limits
// as of now.
func readFleet(ctx context.Context, status FleetStatus, now time.Time) fleetView {
	out, err := status(ctx)
	var v fleetView
	var st fleetStatus
	if err == nil {
		err = json.Unmarshal(out, &st)
	}
	if err != nil {
		v.Error = fmt.Sprintf("The fleet's status could not be read: %v", err)
		out = []byte(v.Error)
	}
	for _, run := range st.Runs {
		v.Runs = append(v.Runs, fleetRowOf(run))
	}
	// The version is of out, which shared() hands every request alike:
	// hashed as it is, never appended to.
	version := sha256.New()
	version.Write(out)
	for _, name := range slices.Sorted(maps.Keys(st.Accounts)) {
		shown := ledger.Show(name, st.Accounts[name], now)
		v.Accounts = append(v.Accounts, shown)
		// A limit that ends changes what the page says, not the
		// status: the version changes with it.
		version.Write([]byte(shown.Limit))
	}
	v.Version = hex.EncodeToString(version.Sum(nil)[:8])
	return v
}

// fleetRowOf is a run as the page shows it: queued or running while it
// goes on, then how it ended in the words of rooda runs list.
func fleetRowOf(st fleetState) fleetRow {
	r := fleetRow{Name: st.Run.Name, Status: st.Phase, Iterations: st.Iterations, Attempt: st.Attempt,
		Worker: st.Worker, Workspace: st.Workspace, Record: st.Record, Spent: "-"}
	if st.Phase == "ended" && st.Status != "" {
		r.Status = st.Status
	}
	if len(st.Run.Argv) > 0 {
		r.Command = fmt.Sprint(st.Run.Argv)
		r.Command = r.Command[1 : len(r.Command)-1]
	}
	switch {
	case st.CostUSD > 0:
		r.Spent = units.Dollars(st.CostUSD)
	case st.Tokens > 0:
		r.Spent = fmt.Sprintf("%d tokens", st.Tokens)
	}
	if !st.Updated.IsZero() {
		r.Updated = st.Updated.Local().Format("2006-01-02 15:04:05")
	}
	return r
}

// statusTimeout bounds an ask of the fleet's status: a fleet that does
// not answer makes the page say so, not wait.
const statusTimeout = 10 * time.Second

// shared is status asked at most once a second, by one request at a
// time, each ask within statusTimeout: every open page asks for its
// version every two seconds, and each ask starts rooda-fleet and
// connects to the fleet, so a slow fleet must not have the asks pile up.
func shared(status FleetStatus) FleetStatus {
	var mu sync.Mutex
	var out []byte
	var err error
	var at time.Time
	return func(ctx context.Context) ([]byte, error) {
		mu.Lock()
		defer mu.Unlock()
		if !at.IsZero() && time.Since(at) < time.Second {
			return out, err
		}
		ctx, cancel := context.WithTimeout(ctx, statusTimeout)
		defer cancel()
		out, err = status(ctx)
		at = time.Now()
		return out, err
	}
}

// fleetServer serves the fleet page at / and its version, which the
// page's script asks for to reload as the fleet changes.
type fleetServer struct {
	*server
	status FleetStatus
}

func (s fleetServer) fleet(w http.ResponseWriter, r *http.Request) {
	v := readFleet(r.Context(), s.status, s.now())
	s.render(w, http.StatusOK, "fleet", page{Title: "rooda fleet", Fleet: &v, Scripts: []template.JS{template.JS(liveJS)}})
}

func (s fleetServer) version(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	io.WriteString(w, readFleet(r.Context(), s.status, s.now()).Version)
}
