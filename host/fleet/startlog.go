package fleet

import (
	"fmt"
	"sync"
)

// startLog is the embedded server's logger: it keeps nothing but the
// first fatal error, which the server only logs (a port in use, a store
// it cannot open), so that a start that cannot succeed says why at once
// instead of waiting out the start's time.
type startLog struct {
	once  sync.Once
	fatal chan string
}

func newStartLog() *startLog { return &startLog{fatal: make(chan string, 1)} }

func (l *startLog) Fatalf(format string, v ...any) {
	l.once.Do(func() { l.fatal <- fmt.Sprintf(format, v...) })
}

func (l *startLog) Noticef(string, ...any) {}
func (l *startLog) Warnf(string, ...any)   {}
func (l *startLog) Errorf(string, ...any)  {}
func (l *startLog) Debugf(string, ...any)  {}
func (l *startLog) Tracef(string, ...any)  {}
