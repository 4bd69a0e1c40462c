#!/usr/bin/env bash
# Measures rooda against the plainest shell doing the same work, in one run
# on one machine, taking turns, and prints the figures the README records, each as the
# median of RUNS with the spread (min–max), in wall time and in CPU time
# (user+sys of the whole process tree, from GNU time).
#
#   bench/run.sh              1 GiB floods, 200 iterations, 5 runs of each
#   BYTES=268435456 RUNS=3 ITERATIONS=100 bench/run.sh
#
# 1. flood: an agent prints BYTES of output, then <promise>SUCCESS</promise>,
#    by two writers: a fast one (64 KiB writes) and one in 8 KiB pieces, as
#    an agent printing as it goes does. rooda (max_output_buffer 10 MiB)
#    against `agent </dev/null | cat >/dev/null`; rooda's peak RSS.
# 2. loop: ITERATIONS iterations of an agent that only reads its prompt, run
#    records on (the default). `rooda run build -n ITERATIONS` against a
#    shell loop piping the same prompt to the same agent ITERATIONS times;
#    the difference per iteration is rooda's overhead.
#
# Each figure ends in PASS or MISS against the target of issue 18: a flood
# costs at most 1.1x the pipe, wall and CPU; an iteration at most 0.5 ms
# more than the shell loop's.
set -euo pipefail
cd "$(dirname "$0")/.."
BYTES=${BYTES:-1073741824}
RUNS=${RUNS:-5}
ITERATIONS=${ITERATIONS:-200}
FLOOD_TARGET=1.1
OVERHEAD_TARGET_MS=0.5

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/rooda" ./cmd/rooda
go build -o "$work/fakeagent" ./internal/fakeagent
for chunk in 65536 8192; do
	printf '{"steps": [{"bytes": %d, "chunk": %d, "after": "<promise>SUCCESS</promise>"}]}\n' "$BYTES" "$chunk" >"$work/flood-$chunk.json"
done
printf '{"record": "%s", "steps": [{}]}\n' "$work" >"$work/record.json"
printf '{"steps": [{}]}\n' >"$work/quiet.json"
cat >"$work/loop.sh" <<'EOF'
i=0
while [ "$i" -lt "$1" ]; do
	i=$((i + 1))
	ROODA_ITERATION=$i ./fakeagent quiet.json <prompt-1.txt >/dev/null
done
EOF
export ROODA_CONFIG_HOME="$work/no-global"
cd "$work"

# timed runs a command once and prints "WALL CPU" in seconds, CPU being
# the user and system time of it and every process it waited for.
timed() {
	local start end
	start=$(date +%s%N)
	/usr/bin/time -f '%U %S' -o cpu "$@" >/dev/null 2>&1 || true
	end=$(date +%s%N)
	# The last line: GNU time puts a line on a failing exit status before.
	tail -1 cpu | awk -v ns=$((end - start)) '{ printf "%.3f %.2f\n", ns / 1e9, $1 + $2 }'
}

# compare runs the commands in the arrays rooda and baseline RUNS times,
# taking turns so that both meet the same load, and leaves their timings
# in rooda.times and baseline.times.
compare() {
	: >rooda.times
	: >baseline.times
	for _ in $(seq "$RUNS"); do
		timed "${rooda[@]}" >>rooda.times
		timed "${baseline[@]}" >>baseline.times
	done
}

# summary prints "WALL CPU WALL_RANGE CPU_RANGE" of a file of timings:
# the medians, and min–max of each.
summary() {
	local wall cpu
	wall=$(cut -d' ' -f1 "$1" | sort -n)
	cpu=$(cut -d' ' -f2 "$1" | sort -n)
	echo "$(median <<<"$wall") $(median <<<"$cpu") $(head -1 <<<"$wall")–$(tail -1 <<<"$wall") $(head -1 <<<"$cpu")–$(tail -1 <<<"$cpu")"
}

median() { sed -n "$(((RUNS + 1) / 2))p"; }

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

# verdict prints PASS when value <= target, else MISS.
verdict() { awk -v v="$1" -v t="$2" 'BEGIN { print (v <= t ? "PASS" : "MISS") }'; }

flood() {
	local chunk=$1 name=$2 r c rss
	rooda=(./rooda run build -n 1 --ai-cmd "./fakeagent flood-$chunk.json")
	baseline=(sh -c "./fakeagent flood-$chunk.json </dev/null | cat >/dev/null")
	compare
	read -r rw rc rwr rcr < <(summary rooda.times)
	read -r pw pc pwr pcr < <(summary baseline.times)
	rss=$(/usr/bin/time -f %M ./rooda run build -n 1 --ai-cmd "./fakeagent flood-$chunk.json" 2>&1 >/dev/null | tail -1)
	r=$(ratio "$rw" "$pw")
	c=$(ratio "$rc" "$pc")
	echo "flood $((BYTES >> 20)) MiB, $name:"
	echo "  wall: rooda ${rw}s ($rwr), pipe ${pw}s ($pwr), ratio $r (target <= $FLOOD_TARGET) $(verdict "$r" "$FLOOD_TARGET")"
	echo "  CPU:  rooda ${rc}s ($rcr), pipe ${pc}s ($pcr), ratio $c (target <= $FLOOD_TARGET) $(verdict "$c" "$FLOOD_TARGET")"
	echo "  rooda peak RSS $((rss / 1024)) MiB (max_output_buffer 10 MiB)"
}

./rooda run build -n 1 --ai-cmd "./fakeagent record.json" >/dev/null 2>&1 || true # the prompt, for the shell loop

flood 65536 "fast writer (64 KiB writes)"
flood 8192 "8 KiB pieces"

rooda=(./rooda run build -n "$ITERATIONS" --ai-cmd "./fakeagent quiet.json")
baseline=(bash loop.sh "$ITERATIONS")
compare
read -r rw rc rwr rcr < <(summary rooda.times)
read -r sw sc swr scr < <(summary baseline.times)
# The overhead is the median of each turn's difference: the turns ran
# side by side, under the same load.
overhead() {
	paste -d' ' rooda.times baseline.times |
		awk -v f="$1" -v n="$ITERATIONS" '{ printf "%.2f\n", ($f - $(f + 2)) * 1000 / n }' | sort -n | median
}
over=$(overhead 1)
overcpu=$(overhead 2)
echo "loop $ITERATIONS iterations, records on:"
echo "  wall: rooda ${rw}s ($rwr), shell ${sw}s ($swr), ratio $(ratio "$rw" "$sw")"
echo "  CPU:  rooda ${rc}s ($rcr), shell ${sc}s ($scr), ratio $(ratio "$rc" "$sc")"
echo "  overhead per iteration (median of the turns' differences): ${over} ms wall (target <= $OVERHEAD_TARGET_MS) $(verdict "$over" "$OVERHEAD_TARGET_MS"), ${overcpu} ms CPU"
