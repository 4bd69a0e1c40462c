package runpage

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"

	"rooda/host/loop"
)

// hostile is what a record may hold that would be script, markup or a
// link were it not escaped.
const hostile = `<script>alert(1)</script> "><img src=x onerror=alert(2)> </pre> javascript:alert(3)`

// TestHostileRecordIsEscaped: a record whose prompt, output, transcript,
// procedure, run name, cause and file names are hostile comes out as
// text, on the served page and in the report alike.
func TestHostileRecordIsEscaped(t *testing.T) {
	dir := t.TempDir()
	id := record(t, dir, hostile, hostile,
		step{prompt: hostile, output: hostile, transcript: hostile, outcome: loop.OutcomeFailure, cause: loop.Cause(hostile), took: time.Second, files: []string{hostile}},
		step{prompt: hostile + "\n" + hostile, output: hostile, outcome: loop.OutcomeContinue, files: []string{hostile}},
	)
	var report bytes.Buffer
	if err := WriteReport(&report, dir, id); err != nil {
		t.Fatal(err)
	}
	_, list := get(t, dir, "/")
	_, page := get(t, dir, "/runs/"+id)
	_, diff := get(t, dir, "/runs/"+id+"/diff?from=1&to=2")
	for what, html := range map[string]string{"the list": list, "the run page": page, "the diff page": diff, "the report": report.String()} {
		if !strings.Contains(html, "&lt;script&gt;alert(1)&lt;/script&gt;") {
			t.Errorf("%s does not show the hostile text at all", what)
		}
		for _, raw := range []string{"<script>alert", "<img", `href="javascript:`, `src="javascript:`} {
			if strings.Contains(html, raw) {
				t.Errorf("%s holds %q unescaped", what, raw)
			}
		}
		if opened, closed := count(html, "<pre[ >]"), count(html, "</pre>"); opened != closed {
			t.Errorf("%s: %d <pre> but %d </pre>: a record closed one", what, opened, closed)
		}
		for _, script := range regexp.MustCompile(`(?s)<script[^>]*>(.*?)</script>`).FindAllStringSubmatch(html, -1) {
			if script[1] != piecesJS {
				t.Errorf("%s has a script other than its own loader: %.80q", what, script[0])
			}
		}
	}
	res, prompt := get(t, dir, "/runs/"+id+"/iterations/1/prompt")
	if prompt != hostile || res.Header.Get("Content-Type") != "text/plain; charset=utf-8" || res.Header.Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("the hostile prompt is served as %s (nosniff %q), not as plain text: %q", res.Header.Get("Content-Type"), res.Header.Get("X-Content-Type-Options"), prompt)
	}
}

// TestReportIsSelfContained: the report links to nothing but its own
// sections and data: URLs, has no script and no form, and carries its
// CSP in a meta element.
func TestReportIsSelfContained(t *testing.T) {
	dir := t.TempDir()
	id := threeIterations(t, dir)
	var b bytes.Buffer
	if err := WriteReport(&b, dir, id); err != nil {
		t.Fatal(err)
	}
	report := b.String()
	mustContain(t, "the report", report, "<!doctype html>", `<svg id="timeline"`, `<section class="iteration" id="it-3"`,
		`<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;`, "<style>")
	for _, link := range regexp.MustCompile(`(?:href|src|action)="([^"]*)"`).FindAllStringSubmatch(report, -1) {
		if !strings.HasPrefix(link[1], "#") && !strings.HasPrefix(link[1], "data:") {
			t.Errorf("the report links to %q, which needs a server", link[0])
		}
	}
	for _, needsServer := range []string{"<script", "<form", `<link rel="stylesheet"`} {
		if strings.Contains(report, needsServer) {
			t.Errorf("the report has %s", needsServer)
		}
	}
}
