package session

import (
	"os"
	"sync"

	"rooda/host/ledger"
)

// LedgerEnv names the accounts' ledger a fleet's worker serves the runs
// it starts (unix:PATH, host/ledger's Dial); without it, the loops of
// this machine share a file under the user's state directory.
const LedgerEnv = "ROODA_LEDGER"

// accountsLedger is the accounts' ledger of every loop of this rooda:
// one, so that parallel() loops wait for its lock in turn; nil when
// there is none to be had (no state directory).
var accountsLedger = sync.OnceValue(func() ledger.Store {
	if addr := os.Getenv(LedgerEnv); addr != "" {
		return ledger.Dial(addr)
	}
	path, err := ledger.DefaultPath()
	if err != nil {
		return nil
	}
	return &ledger.File{Path: path, Unbudgeted: true}
})
