// Command modelserver runs the local model server by hand, to point a real
// agent CLI at it:
//
//	go run ./internal/modelserver/cmd/modelserver -addr 127.0.0.1:8080 \
//	    -reply 'shell:echo hi > hello.txt' -reply 'text:done <promise>SUCCESS</promise>'
//	ANTHROPIC_BASE_URL=http://127.0.0.1:8080 ANTHROPIC_API_KEY=x claude -p < prompt.txt
//
// Replies are taken in turn, the last one again and again; each request is
// logged on stderr, its prompt too with -v.
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"strings"
	"time"

	"rooda/internal/modelserver"
)

// replies collects repeated -reply flags.
type replies modelserver.Script

func (r *replies) String() string { return fmt.Sprint(len(*r), " replies") }

func (r *replies) Set(s string) error {
	reply, err := modelserver.ParseReply(s)
	*r = append(*r, reply)
	return err
}

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "the address to listen on")
	verbose := flag.Bool("v", false, "log each request's prompt too")
	var script replies
	flag.Var(&script, "reply", "a reply: text:TEXT, shell:COMMAND, status:CODE, ratelimit:DURATION, limit:DURATION, overloaded or hang, each with an optional @DELAY (repeat for more)")
	flag.Parse()

	s, err := modelserver.Listen(*addr, modelserver.Script(script))
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("listening on %s", s.URL)
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt)
	seen := 0
	for {
		select {
		case <-stop:
			s.Close()
			return
		case <-time.After(100 * time.Millisecond):
		}
		requests := s.Requests()
		for _, r := range requests[seen:] {
			log.Printf("%s %s %s: status %d, reply %d, prompt of %d bytes", r.API, r.Method, r.Path, r.Status, r.Reply, len(r.Prompt))
			if *verbose && r.Prompt != "" {
				log.Printf("prompt:\n%s", strings.TrimRight(r.Prompt, "\n"))
			}
		}
		seen = len(requests)
	}
}
