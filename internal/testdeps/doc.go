// Package testdeps holds install.sh, the first step of the README's test
// command and of .ci/run: it installs with apt-get, when missing, the
// programs some tests drive for real (chromium, zsh, fish, mypy), and when it
// cannot, says SKIPPED for each and lets the tests run, those tests then
// saying NOT TESTED. Its tests run it against a fake apt-get.
package testdeps
