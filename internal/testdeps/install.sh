#!/usr/bin/env bash
# Installs, when missing, the programs some tests drive for real: Debian's
# chromium (the browser tests of `rooda runs serve`), zsh and fish (the
# completion tests), mypy (the type check of `rooda script stub`'s .pyi;
# Debian's package mypy brings python3-mypy). It runs in front of the
# README's test command and in .ci/run:
#
#   bash internal/testdeps/install.sh && go test ./... && …
#
# Each missing program is installed with apt-get, as root, or through sudo
# when not root (sudo -n: a password prompt would hang the test command).
# `apt-get update` runs only when the first install fails: the package
# lists of a fresh container may be absent or stale.
#
# A program that cannot be installed (no apt-get, no root, no registry)
# never fails the test command: the script prints, for each,
#   SKIPPED: <tool> could not be installed (<why>); the tests that need it will say NOT TESTED
# and exits 0, and those tests skip saying "NOT TESTED". apt-get's own
# output goes to a log whose path is printed.
set -euo pipefail

# The programs the tests look for on PATH, each with its Debian package.
tools=(chromium zsh fish mypy)
declare -A packages=([chromium]=chromium [zsh]=zsh [fish]=fish [mypy]=mypy)

# skip WHY TOOL... prints the loud line for each tool left uninstalled.
skip() {
	local why=$1 tool
	shift
	for tool in "$@"; do
		echo "SKIPPED: $tool could not be installed ($why); the tests that need it will say NOT TESTED"
	done
}

# absent TOOL... prints the tools not on PATH.
absent() {
	local tool
	for tool in "$@"; do
		command -v "$tool" >/dev/null 2>&1 || echo "$tool"
	done
}

mapfile -t missing < <(absent "${tools[@]}")
if ((${#missing[@]} == 0)); then
	echo "testdeps: ${tools[*]} already installed"
	exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
	skip "apt-get is not available; install it with the system's package manager" "${missing[@]}"
	exit 0
fi

# as_root is the prefix that runs a command as root.
as_root=()
if ((EUID != 0)); then
	if ! command -v sudo >/dev/null 2>&1; then
		skip "not root, and sudo is not installed" "${missing[@]}"
		exit 0
	fi
	if ! sudo -n true 2>/dev/null; then
		skip "not root, and sudo asks for a password" "${missing[@]}"
		exit 0
	fi
	as_root=(sudo -n)
fi

log=$(mktemp "${TMPDIR:-/tmp}/rooda-testdeps.XXXXXX")

# apt_get runs apt-get as root, quietly, into the log. It waits for the
# lock another apt-get holds (an install running beside the tests) rather
# than failing at once.
apt_get() {
	"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive \
		apt-get -o DPkg::Lock::Timeout=300 "$@" >>"$log" 2>&1
}

# install PACKAGE... installs the packages, nothing they only recommend.
install() {
	apt_get install -y --no-install-recommends "$@"
}

# last_error is apt-get's last error line in the log: the reason given
# in a SKIPPED line.
last_error() {
	local line error="apt-get failed"
	while IFS= read -r line; do
		[[ $line == E:* ]] && error=${line#E: }
	done <"$log"
	echo "$error"
}

start=$SECONDS
wanted=()
for tool in "${missing[@]}"; do
	wanted+=("${packages[$tool]}")
done
echo "testdeps: installing ${wanted[*]} with apt-get (log: $log)"
# why[PACKAGE] is why it was not installed; an update that failed, when
# one did, is the cause of everything after it.
declare -A why=()
update_failed=""
if ! install "${wanted[@]}"; then
	apt_get update || update_failed="apt-get update: $(last_error)"
	if ! install "${wanted[@]}"; then
		# One package the archive lacks must not keep the others out.
		for package in "${wanted[@]}"; do
			install "$package" || why[$package]=$(last_error)
		done
	fi
fi

installed=()
for tool in "${missing[@]}"; do
	if command -v "$tool" >/dev/null 2>&1; then
		installed+=("$tool")
	else
		skip "${update_failed:-${why[${packages[$tool]}]:-$(last_error)}}; see $log" "$tool"
	fi
done
if ((${#installed[@]} > 0)); then
	echo "testdeps: installed ${installed[*]} in $((SECONDS - start)) s"
fi
exit 0
