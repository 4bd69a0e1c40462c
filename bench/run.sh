#!/usr/bin/env bash
# Measures rooda against the plainest shell doing the same work, in one run
# on one machine, and prints the figures the README records.
#
#   bench/run.sh              1 GiB flood, 200 iterations, 3 runs of each
#   BYTES=268435456 RUNS=5 ITERATIONS=100 bench/run.sh
#
# 1. flood: an agent prints BYTES of output, then <promise>SUCCESS</promise>.
#    rooda (max_output_buffer 10 MiB) against `agent </dev/null | cat >/dev/null`;
#    wall time (median of RUNS) and rooda's peak RSS.
# 2. loop: ITERATIONS iterations of an agent that only reads its prompt.
#    `rooda run build -n ITERATIONS` against a shell loop piping the same
#    prompt to the same agent ITERATIONS times.
set -euo pipefail
cd "$(dirname "$0")/.."
BYTES=${BYTES:-1073741824}
RUNS=${RUNS:-3}
ITERATIONS=${ITERATIONS:-200}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/rooda" ./cmd/rooda
go build -o "$work/fakeagent" ./internal/fakeagent
printf '{"steps": [{"bytes": %d, "after": "<promise>SUCCESS</promise>"}]}\n' "$BYTES" >"$work/flood.json"
printf '{"record": "%s", "steps": [{}]}\n' "$work" >"$work/record.json"
printf '{"steps": [{}]}\n' >"$work/quiet.json"
export ROODA_CONFIG_HOME="$work/no-global"
cd "$work"

# seconds runs a command and prints its wall time in seconds.
seconds() {
	local start end
	start=$(date +%s%N)
	"$@" >/dev/null 2>&1 || true
	end=$(date +%s%N)
	awk -v ns=$((end - start)) 'BEGIN { printf "%.3f\n", ns / 1e9 }'
}

# median of RUNS timings of a command.
median() {
	for _ in $(seq "$RUNS"); do seconds "$@"; done | sort -n | sed -n "$(((RUNS + 1) / 2))p"
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f\n", a / b }'; }

flood_rooda() { ./rooda run build -n 1 --ai-cmd "./fakeagent flood.json"; }
flood_pipe() { sh -c './fakeagent flood.json </dev/null | cat >/dev/null'; }
loop_rooda() { ./rooda run build -n "$ITERATIONS" --ai-cmd "./fakeagent quiet.json"; }
loop_shell() {
	i=0
	while [ "$i" -lt "$ITERATIONS" ]; do
		i=$((i + 1))
		ROODA_ITERATION=$i ./fakeagent quiet.json <prompt-1.txt >/dev/null
	done
}

./rooda run build -n 1 --ai-cmd "./fakeagent record.json" >/dev/null 2>&1 || true # the prompt, for the shell loop

r=$(median flood_rooda)
p=$(median flood_pipe)
rss=$(/usr/bin/time -f %M ./rooda run build -n 1 --ai-cmd "./fakeagent flood.json" 2>&1 >/dev/null | tail -1)
echo "flood $((BYTES >> 20)) MiB: rooda ${r}s, pipe ${p}s, ratio $(ratio "$r" "$p"); rooda peak RSS $((rss / 1024)) MiB (max_output_buffer 10 MiB)"

r=$(median loop_rooda)
s=$(median loop_shell)
echo "loop $ITERATIONS iterations: rooda ${r}s, shell ${s}s, ratio $(ratio "$r" "$s")"
