#!/usr/bin/env bash
# Installs the pinned real agent CLIs from the npm registry into a cache of
# their own, one directory per CLI and version, never globally:
#
#   ${XDG_CACHE_HOME:-~/.cache}/rooda/clis/<name>@<version>/node_modules/.bin/<name>
#
# A CLI whose directory holds a completed install is not fetched again, so a
# second run takes a moment and needs no network. The CLIs install in
# parallel. Usage: install.sh [--latest] [name...] (all of them by default).
#
# --latest installs each CLI's newest version on the registry (npm view
# PACKAGE version) instead of its pin, into the same layout: before a pin
# moves, the real-CLI suite runs against the newest (go test ./cmd/rooda
# -run '^TestRealCLIs$' -realcli -latest). CI installs the pins only.
#
# One line per CLI on stdout, tab-separated, for the Go helper (realcli.Install):
#   NAME  ok           PATH-OF-ITS-BINARY
#   NAME  unreachable  WHY   (the registry could not be reached)
#   NAME  failed       WHY   (anything else: a bug to fix, not a reason to skip)
# npm's own output goes to DIR/install.log.
set -uo pipefail

# The versions the real-CLI suite passes with: first checked by hand against a
# local model server (shared/notes/real-clis.md); claude and codex moved on
# 2026-11-28 after their newest passed the suite with -latest (CONTRIBUTING.md).
declare -A packages=(
	[claude]="@anthropic-ai/claude-code@2.1.332"
	[codex]="@openai/codex@0.171.0"
	[gemini]="@google/gemini-cli@0.61.0"
	[opencode]="opencode-ai@1.18.33"
	[copilot]="@github/copilot@1.0.102"
)

root="${XDG_CACHE_HOME:-$HOME/.cache}/rooda/clis"

# platform names npm's platform packages use, such as linux-x64.
platform() {
	local arch
	case "$(uname -m)" in
	x86_64 | amd64) arch=x64 ;;
	aarch64 | arm64) arch=arm64 ;;
	*) arch="$(uname -m)" ;;
	esac
	echo "$(uname -s | tr '[:upper:]' '[:lower:]')-$arch"
}

# extras names the packages a CLI needs beside its own. codex's native build
# is an optional dependency that npm has been seen to leave out, so it is named
# explicitly, under the alias codex's launcher looks for.
extras() {
	local name=$1 version=$2
	case "$name" in
	codex) echo "@openai/codex-$(platform)@npm:@openai/codex@$version-$(platform)" ;;
	esac
}

# report NAME SPEC LOG prints the line of a CLI that did not install, from
# what npm wrote to LOG: unreachable where the registry could not be
# reached, failed otherwise.
report() {
	local name=$1 spec=$2 log=$3
	if grep -qE 'ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH|network' "$log"; then
		printf '%s\tunreachable\tnpm could not reach the registry installing %s: %s\n' "$name" "$spec" \
			"$(grep -m1 -E 'ENOTFOUND|EAI_AGAIN|ECONN|ETIMEDOUT|UNREACH|network' "$log" | tr '\t' ' ')"
	else
		printf '%s\tfailed\tnpm install %s failed (see %s): %s\n' "$name" "$spec" "$log" \
			"$(grep -m1 -iE 'err' "$log" | tr '\t' ' ')"
	fi
}

# newest NAME prints the spec of the CLI's newest version on the registry,
# its pinned package at the version npm view names; or, where npm cannot
# tell, the CLI's line and fails.
newest() {
	local name=$1 package=${packages[$1]%@*} log version
	log="$root/$name@latest.log"
	if version=$(npm view "$package" version 2>"$log") && [[ -n "$version" ]]; then
		echo "$package@$version"
	else
		report "$name" "$package@latest" "$log"
		return 1
	fi
}

# install NAME installs one CLI and prints its line.
install() {
	local name=$1 spec=${packages[$1]}
	if [[ -n "$latest" ]]; then
		# newest prints the CLI's line instead where it cannot name a version.
		spec=$(newest "$name") || {
			echo "$spec"
			return
		}
	fi
	local version=${spec##*@}
	local dir="$root/$name@$version" bin
	bin="$dir/node_modules/.bin/$name"
	mkdir -p "$dir"
	(
		# Two test runs at once must not install into one directory together.
		flock 9
		if [[ -f "$dir/.installed" && -x "$bin" ]]; then
			exit 0
		fi
		rm -f "$dir/.installed"
		# shellcheck disable=SC2046 # extras is a list of words
		if npm install --prefix "$dir" --no-audit --no-fund --no-save --loglevel=error \
			"$spec" $(extras "$name" "$version") >"$dir/install.log" 2>&1 && [[ -x "$bin" ]]; then
			date -u +%FT%TZ >"$dir/.installed"
		else
			exit 1
		fi
	) 9>"$dir/.lock"
	if [[ $? -eq 0 ]]; then
		printf '%s\tok\t%s\n' "$name" "$bin"
	else
		report "$name" "$spec" "$dir/install.log"
	fi
}

latest=
if [[ "${1:-}" == --latest ]]; then
	latest=1
	shift
fi
mkdir -p "$root"
names=("$@")
if [[ ${#names[@]} -eq 0 ]]; then
	names=(claude codex gemini opencode copilot)
fi
for name in "${names[@]}"; do
	if [[ -z "${packages[$name]:-}" ]]; then
		printf '%s\tfailed\tno pinned version of %s\n' "$name" "$name"
		continue
	fi
	install "$name" &
done
wait
