package process

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// Find returns the executable an agent's command names, as Run would
// start it: a name with a slash is taken as a path, any other is looked up
// in PATH. Its error says what was searched, so a user can tell a typo
// from a missing install before any iteration starts.
func Find(name string) (string, error) {
	path, err := exec.LookPath(name)
	if err == nil {
		return path, nil
	}
	if strings.Contains(name, "/") {
		if info, statErr := os.Stat(name); statErr == nil && !info.IsDir() {
			return "", fmt.Errorf("AI command is not executable: %s", name)
		}
		return "", fmt.Errorf("AI command binary not found: %s", name)
	}
	if errors.Is(err, exec.ErrDot) {
		return "", fmt.Errorf("AI command %s is found only in the current directory; write ./%s to run it", name, name)
	}
	return "", fmt.Errorf("AI command binary not found: %s\nSearched PATH: %s", name, os.Getenv("PATH"))
}
