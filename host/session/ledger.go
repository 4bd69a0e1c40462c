package session

import (
	"os"
	"sync"

	"rooda/host/ledger"
)

// ledgerAddr is the accounts' ledger a fleet's worker serves the run it
// started (ledger.Env, unix:PATH, host/ledger's Dial); without it, the
// loops of this machine share a file under the user's state directory.
// It is taken out of rooda's environment before anything runs: the
// agents rooda starts inherit its environment, and an agent given the
// socket could write any entry of the fleet's ledger.
var ledgerAddr = takeEnv(ledger.Env)

// takeEnv is name's value, unset.
func takeEnv(name string) string {
	v := os.Getenv(name)
	os.Unsetenv(name)
	return v
}

// accountsLedger is the accounts' ledger of every loop of this rooda:
// one, shared by the parallel() loops of this rooda; nil when
// there is none to be had (no state directory).
var accountsLedger = sync.OnceValue(func() ledger.Store {
	if ledgerAddr != "" {
		return ledger.Dial(ledgerAddr)
	}
	path, err := ledger.DefaultPath()
	if err != nil {
		return nil
	}
	return &ledger.File{Path: path, Unbudgeted: true}
})
