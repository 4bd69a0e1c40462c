package git

import "testing"

func TestRedactURL(t *testing.T) {
	for url, want := range map[string]string{
		"https://alice:s3cret@example.org/team.git": "https://alice:***@example.org/team.git",
		"https://ghp_token@github.com/org/team.git": "https://***@github.com/org/team.git",
		"ssh://git@example.org/team.git":            "ssh://git@example.org/team.git",
		"ssh://git:pw@example.org/team.git":         "ssh://git:***@example.org/team.git",
		"https://example.org/team.git?ref=a@b":      "https://example.org/team.git?ref=a@b",
		"https://a:p@ss@example.org/x":              "https://a:***@example.org/x",
		"git@github.com:org/team.git":               "git@github.com:org/team.git",
		"/srv/git/team.git":                         "/srv/git/team.git",
		"file:///srv/git/team.git":                  "file:///srv/git/team.git",
	} {
		if got := RedactURL(url); got != want {
			t.Errorf("RedactURL(%q) = %q, want %q", url, got, want)
		}
	}
}

func TestRedactHidesTheUserinfoGitQuotedApart(t *testing.T) {
	url := "https://alice:s3cret@example.org/team.git"
	got := Redact("git clone "+url+" failed: could not log in as alice:s3cret@example.org", url)
	want := "git clone https://alice:***@example.org/team.git failed: could not log in as alice:***@example.org"
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}
