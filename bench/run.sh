#!/usr/bin/env bash
# Measures rooda against the plainest shell doing the same work, in one run
# on one machine, taking turns, and prints the figures the README records, each as the
# median of RUNS with the spread (min–max), in wall time and in CPU time
# (user+sys of the whole process tree, from GNU time).
#
#   bench/run.sh              every row below: 1 GiB floods (15 runs of each), 200 iterations, 5 runs of each
#   BYTES=268435456 RUNS=3 ITERATIONS=100 bench/run.sh
#   REPO=big RUNS=3 ITERATIONS=30 bench/run.sh    the loop alone, in a big repository
#   SANDBOX=1 RUNS=5 ITERATIONS=50 bench/run.sh   the sandbox's trampoline alone
#   HOSTS=1 RUNS=15 ITERATIONS=100 bench/run.sh  sandbox_hosts' namespace and proxy alone
#   STARTUP=1 RUNS=9 STARTS=200 bench/run.sh      rooda's start-up alone
#   LOOPS_ONLY=1 LOOPS=64 RUNS=5 bench/run.sh     64 parallel loops against 16 alone
#   FLOOD_ONLY=1 FLOOD_RUNS=21 bench/run.sh       the two floods alone
#   LOOP_DIR=/mnt/ext4 bench/run.sh               the loop outside git alone, its records there
#   DISK_DIR=/mnt/ext4 bench/run.sh               every row, and the loops outside git and in the small repository there too
#
# rooda-sandbox is built beside rooda, as installed: every agent starts
# through it (the sandbox, and signals scoped whatever the mode), so the
# loop's rows count it. rooda-full too, as installed, which a run started
# with OTEL_EXPORTER_OTLP_ENDPOINT set is handed over to.
#
# 1. flood: an agent prints BYTES of output, then <promise>SUCCESS</promise>,
#    by two writers: a fast one (64 KiB writes) and one in 8 KiB pieces, as
#    an agent printing as it goes does. rooda (max_output_buffer 10 MiB)
#    against `agent </dev/null | cat >/dev/null`; rooda's peak RSS.
#    The 8 KiB pieces are also read by bench/goreader, the plainest Go program
#    that keeps the newest 10 MiB as rooda does (Go's blocking reads into
#    a ring), its agent in a session of its own as rooda's are (which
#    costs the pieces, where the kernel schedules each session as a
#    group): what a Go reader pays here, against which what rooda adds
#    shows apart (docs/performance.md, "The capture of 8 KiB pieces"),
#    and by goreader once more in turns of its own: the same program
#    against itself, how far this measure parts two runs of one program.
#    The capture is what the flood adds: each turn also runs both with an
#    agent that prints only the signal, and the capture's cost is the
#    flood's run less that one, on each side. Each turn also runs both
#    printing 10 MiB, as much as rooda keeps: the flood's run less that
#    one is what the bytes past the kept ones cost, apart from keeping
#    (rooda writes them to its record, hashes them, scans them), shown
#    too. The whole runs, rooda's start and record included, are shown too.
# 2. loop: ITERATIONS iterations of an agent that reads its prompt and prints a line, run
#    records on (the default). `rooda run build -n ITERATIONS` against a
#    shell loop piping the same prompt to the same agent ITERATIONS times,
#    and both again with one iteration: an iteration's overhead is what
#    the ITERATIONS-1 more cost rooda beyond what they cost the shell. The
#    difference of the whole runs, per iteration, is shown too.
#
# 3. REPO=big: the loop alone (no floods), in a git repository of 11k files
#    made in the temporary directory (a copy of Go's src tree, committed),
#    where rooda takes each iteration's facts: HEAD before and after, the
#    files it changed. The agent appends a line to a tracked file each
#    iteration, as an agent at work leaves its tree dirty; the shell loop
#    runs the same agent there.
#
# 4. start-up: STARTS starts in a row of `rooda version`, `--help`,
#    `list` and `script check` of a small script, against a Go hello-world
#    built in the same run (and /bin/true, the cost of a start itself):
#    a start's wall and CPU time, the ratio to the hello-world's, and
#    rooda's against its target of 6 ms (docs/performance.md, "Start-up");
#    then the same four of rooda built as releases are.
#
# 5. The same loop in a git repository of 3 files, its tree left clean,
#    where rooda takes each iteration's git facts and keeps a snapshot of
#    its start; then the sandbox's cost (SANDBOX=1's rows).
#
# 6. resume: BenchmarkResume (internal/cli): `rooda runs resume` of a run of
#    5,000 iterations killed in its last, to its first new agent, against
#    a fresh start to its first agent.
#
# 7. loops: LOOPS (64) parallel loops in worktrees of their own and a
#    quarter as many, 3 iterations each of an agent pausing 0.2 s: the CPU
#    an iteration costs with many loops against with few.
#
# Each figure ends in PASS or MISS against its target: the capture of a
# flood costs at most 1.1x the pipe, wall and CPU, and the 8 KiB pieces'
# at most 1.1x bench/goreader's (the floor any Go reader of an agent in
# a session of its own pays; why, in docs/performance.md); an iteration at most
# 1 ms more than the shell loop's, outside git and in the small
# repository, and at most 20 ms in the big one; the sandbox at most 1 ms
# more; a start at most 6 ms; the resume at most 100 ms; an iteration of
# 64 loops at most 1.2x the CPU of one of 16.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
BYTES=${BYTES:-1073741824}
RUNS=${RUNS:-5}
# The floods take more turns: on the development VM two runs of one
# program parted by up to a quarter over 7 turns, by a tenth over 15
# (docs/performance.md, "The capture of 8 KiB pieces").
FLOOD_RUNS=${FLOOD_RUNS:-$((RUNS * 3))}
ITERATIONS=${ITERATIONS:-200}
REPO=${REPO:-}
SANDBOX=${SANDBOX:-}
HOSTS=${HOSTS:-}
STARTUP=${STARTUP:-}
STARTS=${STARTS:-200}
STARTUP_TARGET_MS=6
TRAMPOLINE_TARGET_MS=1
HOSTS_TARGET_MS=2
FLOOD_TARGET=1.1
OVERHEAD_TARGET_MS=1
BIG_REPO_TARGET_MS=20
RESUME_TARGET_MS=100
LOOPS_TARGET=1.2
LOOPS=${LOOPS:-64}

# room DIR: stop unless DIR's file system has the inodes the loops'
# records take there (five an iteration, two loops, the copied records of
# the small repository): one that runs out fails the record's writes,
# which rooda warns of and goes on, and the rows measure that instead
# (this VM's loop device of 488 MB, made with 32k inodes, ran out after
# a few runs and experiments).
room() {
	local need=$((RUNS * (ITERATIONS + 2) * 5 * 3)) avail
	avail=$(df --output=iavail "$1" | tail -1 | tr -d ' ')
	if [ "$avail" -lt "$need" ] 2>/dev/null; then
		echo "bench/run.sh: $1 has $avail inodes free; its rows need about $need" >&2
		exit 1
	fi
}

for dir in "${LOOP_DIR:-}" "${DISK_DIR:-}"; do
	[ -z "$dir" ] || room "$dir"
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/" ./cmd/rooda ./cmd/rooda-sandbox ./cmd/rooda-full
# rooda alone, as when only it is installed: it starts its agents through
# itself (rooda __sandbox), the trampoline of before rooda-sandbox.
mkdir "$work/alone"
cp "$work/rooda" "$work/alone/rooda"
go build -o "$work/fakeagent" ./internal/fakeagent
go build -o "$work/goreader" ./bench/goreader
for chunk in 65536 8192; do
	printf '{"steps": [{"bytes": %d, "chunk": %d, "after": "<promise>SUCCESS</promise>"}]}\n' "$BYTES" "$chunk" >"$work/flood-$chunk.json"
	# As much as rooda keeps (max_output_buffer, 10 MiB): what keeping it
	# costs, apart from the bytes that pass through.
	printf '{"steps": [{"bytes": %d, "chunk": %d, "after": "<promise>SUCCESS</promise>"}]}\n' $((10 << 20)) "$chunk" >"$work/kept-$chunk.json"
done
printf '{"steps": [{"after": "<promise>SUCCESS</promise>"}]}\n' >"$work/signal.json"
printf '{"record": "%s", "steps": [{}]}\n' "$work" >"$work/record.json"
# One line of output: an agent that ends at once without any is a loop that
# spins, which rooda backs off (1 s, doubling) from the third iteration on.
printf '{"steps": [{"output": "done\\n"}]}\n' >"$work/quiet.json"
# The big repository's agent: a line more in a tracked file each iteration.
printf '{"steps": [{"output": "done\\n", "shell": "echo $ROODA_ITERATION >>go.mod"}]}\n' >"$work/edit.json"
# loop.sh N SCRIPT: the shell loop, in the directory it is run in.
cat >"$work/loop.sh" <<EOF
i=0
while [ "\$i" -lt "\$1" ]; do
	i=\$((i + 1))
	ROODA_ITERATION=\$i "$work/fakeagent" "$work/\$2" <"$work/prompt-1.txt" >/dev/null
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

# turns runs the commands named by its arguments (arrays) RUNS times,
# taking turns so that all meet the same load, and leaves the timings of
# each in NAME.times, a line per turn. Each turn shuffles their order,
# so that whatever a command's place in the turn does to its time falls
# on no side (in a fixed order, bench/goreader against itself came out
# 0.75x-0.89x in wall time, every figure on the same side).
turns() {
	local name
	for name in "$@"; do : >"$name.times"; done
	for _ in $(seq "$RUNS"); do
		for name in $(shuf -e -- "$@"); do
			local cmd="$name[@]"
			timed "${!cmd}" >>"$name.times"
		done
	done
}

median() { sort -n | sed -n "$(((RUNS + 1) / 2))p"; }

# column prints field f (1 wall, 2 CPU) of each turn of a file of timings,
# less that of the same turn in the file less, when given.
column() {
	if [ -n "${3:-}" ]; then
		paste -d' ' "$1" "$3" | awk -v f="$2" '{ printf "%.3f\n", $f - $(f + 2) }'
	else
		cut -d' ' -f"$2" "$1"
	fi
}

# figure prints "MEDIAN (MIN–MAX)" of field f of the turns, less another
# file's when given.
figure() {
	local values
	values=$(column "$@" | sort -n)
	echo "$(median <<<"$values")s ($(head -1 <<<"$values")–$(tail -1 <<<"$values"))"
}

ratio() { awk -v a="${1%%s*}" -v b="${2%%s*}" 'BEGIN { printf "%.2f", a / b }'; }

# verdict prints PASS when value <= target, else MISS.
verdict() { awk -v v="$1" -v t="$2" 'BEGIN { print (v + 0 <= t + 0 ? "PASS" : "MISS") }'; }

# signed prints a figure with its sign: an overhead may come out below 0.
signed() { awk -v v="$1" 'BEGIN { printf "%+.3f", v }'; }

# row WHAT ROODA BASELINE TARGET VALUE adds a row to the summary table
# printed at the end, for docs/performance.md: VALUE against TARGET, or
# no verdict when TARGET is empty.
row() {
	local held="(no target)"
	[ -n "$4" ] && held="<= $4 $(verdict "$5" "$4")"
	printf '| %s | %s | %s | %s |\n' "$1" "$2" "$3" "$held" >>"$work/summary.md"
}

# compared prints one line of SUBJECT's figure (rooda's, unless set)
# against the baseline's, the ratio, and the verdict when a target is
# given.
compared() {
	local what=$1 r=$2 b=$3 target=${4:-} q
	q=$(ratio "$r" "$b")
	printf '  %-5s %s %s, %s %s, ratio %s' "$what" "${SUBJECT:-rooda}" "$r" "$BASELINE" "$b" "$q"
	[ -n "$target" ] && printf ' (target <= %s) %s' "$target" "$(verdict "$q" "$target")"
	echo
}

# capture_rows LESS LABEL [BASE [SUBJECT]] prints the flood's runs less
# LESS's (signal or kept), SUBJECT (rooda) against BASE (pipe, or
# goreader), wall then CPU, and adds each as a row: held to the target
# for rooda; for another subject (goreader against itself) the row is the
# measure's own spread, held to nothing.
capture_rows() {
	local less=$1 label=$2 base=${3:-pipe} subject=${4:-rooda} f what r b q shown
	local BASELINE=$base SUBJECT=$subject # what compared names
	local target=$FLOOD_TARGET
	[ "$subject" = rooda ] || target=
	for f in 1 2; do
		what=$([ "$f" = 1 ] && echo wall || echo CPU)
		r=$(figure "${subject}_flood.times" "$f" "${subject}_$less.times")
		b=$(figure "${base}_flood.times" "$f" "${base}_$less.times")
		q=$(ratio "$r" "$b")
		shown=${r%% *}
		[ "$subject" = rooda ] || shown="$subject $shown"
		compared "$what" "$r" "$b" "$target"
		row "$label, $what" "$shown" "$base ${b%% *}: ${q}x" "${target:+${target}x}" "$q"
	done
}

flood() {
	local chunk=$1 name=$2 rss f
	local RUNS=$FLOOD_RUNS # for turns and median
	# The bytes past the kept ones are the flood's run less one printing
	# 10 MiB: a smaller flood would come out below nothing.
	if [ "$BYTES" -le $((10 << 20)) ]; then
		echo "bench/run.sh: BYTES ($BYTES) must be more than the 10 MiB rooda keeps" >&2
		exit 1
	fi
	rooda_flood=(./rooda run build -n 1 --ai-cmd "./fakeagent flood-$chunk.json")
	pipe_flood=(sh -c "./fakeagent flood-$chunk.json </dev/null | cat >/dev/null")
	rooda_signal=(./rooda run build -n 1 --ai-cmd "./fakeagent signal.json")
	pipe_signal=(sh -c "./fakeagent signal.json </dev/null | cat >/dev/null")
	rooda_kept=(./rooda run build -n 1 --ai-cmd "./fakeagent kept-$chunk.json")
	pipe_kept=(sh -c "./fakeagent kept-$chunk.json </dev/null | cat >/dev/null")
	goreader_flood=(./goreader ./fakeagent "flood-$chunk.json")
	goreader_signal=(./goreader ./fakeagent signal.json)
	goreader_kept=(./goreader ./fakeagent "kept-$chunk.json")
	# again_* is goreader once more, in its own turns: goreader against
	# itself shows how far two runs of the same program part here, the
	# spread any ratio of this table carries.
	again_flood=("${goreader_flood[@]}")
	again_signal=("${goreader_signal[@]}")
	again_kept=("${goreader_kept[@]}")
	# The pieces' target is against goreader too (the header), the fast
	# writer's against the pipe alone.
	local readers=()
	[ "$chunk" = 8192 ] && readers=(goreader_flood goreader_signal goreader_kept again_flood again_signal again_kept)
	turns rooda_flood pipe_flood rooda_signal pipe_signal rooda_kept pipe_kept "${readers[@]}"
	rss=$(/usr/bin/time -f %M ./rooda run build -n 1 --ai-cmd "./fakeagent flood-$chunk.json" 2>&1 >/dev/null | tail -1)
	echo "flood $((BYTES >> 20)) MiB, $name:"
	BASELINE=pipe
	echo " the capture (the flood's run less a run printing only the signal):"
	capture_rows signal "capture of $((BYTES >> 20)) MiB, $name"
	echo " of which the bytes past the 10 MiB kept (the flood's run less one printing 10 MiB):"
	capture_rows kept "the same, the bytes past the 10 MiB kept (less a run printing 10 MiB)"
	if [ ${#readers[@]} -gt 0 ]; then
		echo " against the plainest Go program keeping 10 MiB (bench/goreader: Go's blocking reads into a ring, the agent in a session of its own, no record):"
		capture_rows signal "the same capture against bench/goreader" goreader
		echo "  of which the bytes past the 10 MiB kept:"
		capture_rows kept "the same, the bytes past the 10 MiB kept, against bench/goreader" goreader
		echo "  and keeping 10 MiB: goreader $(figure goreader_kept.times 1 goreader_signal.times) wall, $(figure goreader_kept.times 2 goreader_signal.times) CPU"
		echo " goreader against itself, in turns of its own (how far the same program's runs part):"
		capture_rows signal "goreader's capture against itself" goreader again
		echo "  of which the bytes past the 10 MiB kept:"
		capture_rows kept "the same, the bytes past the 10 MiB kept" goreader again
	fi
	echo "  and keeping 10 MiB (a run printing 10 MiB less one printing only the signal): rooda $(figure rooda_kept.times 1 rooda_signal.times) wall, $(figure rooda_kept.times 2 rooda_signal.times) CPU; pipe $(figure pipe_kept.times 1 pipe_signal.times), $(figure pipe_kept.times 2 pipe_signal.times)"
	echo " the whole runs, rooda's start and record included:"
	for f in 1 2; do
		compared "$([ $f = 1 ] && echo wall || echo CPU)" "$(figure rooda_flood.times $f)" "$(figure pipe_flood.times $f)"
	done
	echo "  a run printing only the signal: rooda $(figure rooda_signal.times 1) wall, $(figure rooda_signal.times 2) CPU; pipe $(figure pipe_signal.times 1), $(figure pipe_signal.times 2)"
	echo "  rooda peak RSS $((rss / 1024)) MiB (max_output_buffer 10 MiB)"
}

# per_iteration prints, per iteration, the median over the turns of
# what rooda's runs cost beyond the shell's in field f: the ITERATIONS-1
# more iterations (slope), or the whole runs (whole).
per_iteration() {
	paste -d' ' rooda_loop.times shell_loop.times rooda_once.times shell_once.times |
		awk -v f="$1" -v n="$ITERATIONS" -v how="$2" '{
			if (how == "slope") printf "%.3f\n", (($f - $(f + 4)) - ($(f + 2) - $(f + 6))) * 1000 / (n - 1)
			else printf "%.3f\n", ($f - $(f + 2)) * 1000 / n
		}' | median
}
# loop DIR SCRIPT TARGET_MS TITLE: ITERATIONS iterations of the agent
# SCRIPT, by rooda and by the shell, in DIR, and what an iteration costs
# rooda beyond the shell's.
loop() {
	local dir=$1 script=$2 target=$3 title=$4 over
	# The prompt the shell loop pipes: the one rooda gives there.
	env -C "$dir" "$work/rooda" run build -n 1 --ai-cmd "$work/fakeagent $work/record.json" >/dev/null 2>&1 || true
	rooda_loop=(env -C "$dir" "$work/rooda" run build -n "$ITERATIONS" --ai-cmd "$work/fakeagent $work/$script")
	shell_loop=(env -C "$dir" bash "$work/loop.sh" "$ITERATIONS" "$script")
	rooda_once=(env -C "$dir" "$work/rooda" run build -n 1 --ai-cmd "$work/fakeagent $work/$script")
	shell_once=(env -C "$dir" bash "$work/loop.sh" 1 "$script")
	turns rooda_loop shell_loop rooda_once shell_once
	over=$(per_iteration 1 slope)
	BASELINE=shell
	echo "$title:"
	compared wall "$(figure rooda_loop.times 1)" "$(figure shell_loop.times 1)"
	compared CPU "$(figure rooda_loop.times 2)" "$(figure shell_loop.times 2)"
	echo "  one iteration: rooda $(figure rooda_once.times 1) wall, $(figure rooda_once.times 2) CPU; shell $(figure shell_once.times 1), $(figure shell_once.times 2)"
	echo "  an iteration's overhead (what the $((ITERATIONS - 1)) more iterations cost rooda beyond the shell, per iteration, median of the turns):"
	echo "    ${over} ms wall (target <= $target) $(verdict "$over" "$target"), $(per_iteration 2 slope) ms CPU"
	row "$title: an iteration over the shell loop, wall, CPU" "$(signed "$over") ms, $(signed "$(per_iteration 2 slope)") ms" "shell $(figure shell_loop.times 1 | awk -v n="$ITERATIONS" '{ printf "%.2f ms", $1 * 1000 / n }') an iteration" "+$target ms" "$over"
	echo "  the whole runs' difference per iteration, rooda's start included: $(per_iteration 1 whole) ms wall, $(per_iteration 2 whole) ms CPU"
}

# unpruned NAME makes a directory of $work for a section's runs, where
# no record is ever pruned. In $work itself, the floods' and the loops'
# runs reach keep_runs (50), and each run's start then removes the oldest
# record: one of 200 iterations (805 files and directories) took 124 to
# 152 ms to remove on the development VM's disk, 0.6 to 0.75 ms on each
# iteration of the slope of whichever run it fell to.
unpruned() {
	mkdir "$work/$1"
	printf 'loop:\n  keep_runs: 100000\n' >"$work/$1/rooda-config.yml"
	echo "$work/$1"
}

# trampoline: what an iteration's agent started through the sandbox's
# trampoline (rooda-sandbox, restricting itself with Landlock, then
# exec'ing the agent) costs beyond the agent started as it is: ITERATIONS
# iterations and one, each way, the slopes compared, per iteration; and
# the same through rooda itself (rooda __sandbox), where rooda-sandbox is
# not installed.
trampoline() {
	local d agent="$work/fakeagent $work/quiet.json"
	d=$(unpruned sandbox)
	plain_loop=(env -C "$d" ROODA_SANDBOX_ABI=0 "$work/rooda" run build -n "$ITERATIONS" --ai-cmd "$agent")
	boxed_loop=(env -C "$d" "$work/rooda" run build -n "$ITERATIONS" --sandbox workspace --ai-cmd "$agent")
	alone_loop=(env -C "$d" "$work/alone/rooda" run build -n "$ITERATIONS" --sandbox workspace --ai-cmd "$agent")
	plain_once=(env -C "$d" ROODA_SANDBOX_ABI=0 "$work/rooda" run build -n 1 --ai-cmd "$agent")
	boxed_once=(env -C "$d" "$work/rooda" run build -n 1 --sandbox workspace --ai-cmd "$agent")
	alone_once=(env -C "$d" "$work/alone/rooda" run build -n 1 --sandbox workspace --ai-cmd "$agent")
	off_loop=(env -C "$d" "$work/rooda" run build -n "$ITERATIONS" --ai-cmd "$agent")
	off_once=(env -C "$d" "$work/rooda" run build -n 1 --ai-cmd "$agent")
	turns plain_loop boxed_loop alone_loop off_loop plain_once boxed_once alone_once off_once
	echo "sandbox: workspace, $ITERATIONS iterations, against agents started as they are:"
	slopes "the trampoline's cost per iteration (rooda-sandbox)" "$TRAMPOLINE_TARGET_MS"
	slopes "without rooda-sandbox (rooda __sandbox)" "$TRAMPOLINE_TARGET_MS" alone
	echo "sandbox: off (the default: the agent's signals scoped), against agents started as they are:"
	slopes "rooda-sandbox's cost per iteration" "$TRAMPOLINE_TARGET_MS" off
	# The issue's target: sandbox: workspace at most 1 ms more than an
	# iteration of the default, whose own cost over the shell loop's is
	# the loop rows'. Against agents started as they are (above), the
	# default's signal scoping is counted twice.
	echo "sandbox: workspace against the default (sandbox: off, the agent's signals scoped):"
	slopes "sandbox: workspace over the default" "$TRAMPOLINE_TARGET_MS" boxed off
}

# slopes says what boxed_loop (or NAME_loop) costs per iteration over
# plain_loop (or BASE_loop), the runs of one iteration taken off
# (start-up falls out), in wall time against target, then in CPU time:
# the median of the turns.
slopes() {
	local what=$1 target=$2 boxed=${3:-boxed} base=${4:-plain} over wall
	for f in 1 2; do
		over=$(paste -d' ' "${boxed}_loop.times" "${base}_loop.times" "${boxed}_once.times" "${base}_once.times" |
			awk -v f="$f" -v n="$ITERATIONS" '{ printf "%.3f\n", (($f - $(f + 4)) - ($(f + 2) - $(f + 6))) * 1000 / (n - 1) }' | median)
		if [ "$f" = 1 ]; then
			echo "  $what: ${over} ms wall (target <= $target) $(verdict "$over" "$target")"
			wall=$over
		else
			echo "  and ${over} ms CPU"
			row "$what, wall, CPU" "$(signed "$wall") ms, $(signed "$over") ms" "" "+$target ms" "$wall"
		fi
	done
}

# hosts: what sandbox_hosts adds to an iteration under sandbox: workspace
# (the proxy started and stopped, the network namespace, the loopback
# brought up, the listeners handed over): ITERATIONS iterations and one, with
# and without it, the slopes compared, per iteration.
hosts() {
	local over d agent="$work/fakeagent $work/quiet.json"
	d=$(unpruned hosts)
	plain_loop=(env -C "$d" "$work/rooda" run build -n "$ITERATIONS" --sandbox workspace --ai-cmd "$agent")
	boxed_loop=(env -C "$d" "$work/rooda" run build -n "$ITERATIONS" --sandbox workspace --sandbox-hosts 127.0.0.1:9 --ai-cmd "$agent")
	plain_once=(env -C "$d" "$work/rooda" run build -n 1 --sandbox workspace --ai-cmd "$agent")
	boxed_once=(env -C "$d" "$work/rooda" run build -n 1 --sandbox workspace --sandbox-hosts 127.0.0.1:9 --ai-cmd "$agent")
	turns plain_loop boxed_loop plain_once boxed_once
	echo "sandbox: workspace with sandbox_hosts, $ITERATIONS iterations, against sandbox: workspace alone:"
	slopes "sandbox_hosts' cost per iteration" "$HOSTS_TARGET_MS"
}

# resume: BenchmarkResume's figures: `rooda runs resume` of a run of 5,000
# iterations killed in its last, to the start of its first new agent,
# against `rooda run build -n 1` to its first agent, means of RUNS.
resume() {
	local out fresh resumed
	out=$(go test -C "$repo" ./internal/cli -run '^$' -bench 'BenchmarkResume' -benchtime "${RUNS}x" 2>&1) || {
		echo "$out"
		return 1
	}
	fresh=$(awk '/BenchmarkResume\/fresh/ { print $(NF-1) }' <<<"$out")
	resumed=$(awk '/BenchmarkResume\/resume/ { print $(NF-1) }' <<<"$out")
	echo "resume of a 5,000-iteration run, to its first new agent (BenchmarkResume, mean of $RUNS):"
	echo "  rooda runs resume ${resumed} ms (target <= $RESUME_TARGET_MS) $(verdict "$resumed" "$RESUME_TARGET_MS"); a fresh start to its first agent ${fresh} ms, ratio $(ratio "$resumed" "$fresh")"
	row "\`rooda runs resume\` of 5,000 iterations, to its first new agent" "${resumed} ms" "a fresh start to its first agent ${fresh} ms" "$RESUME_TARGET_MS ms" "$resumed"
}

# loops: LOOPS parallel loops and a quarter as many, each in a worktree
# of its own, 3 iterations each of an agent that pauses 0.2 s: the CPU an
# iteration costs with LOOPS against with LOOPS/4 (worktrees made and
# removed, git's facts, the agents' starts), whose ratio should stay
# under LOOPS_TARGET.
loops() {
	local few=$((LOOPS / 4)) many_cpu few_cpu
	mkdir -p loops
	git -C loops init --quiet -b main
	echo loops >loops/README
	git -C loops add README
	git -C loops -c user.name=bench -c user.email=bench@example.org commit --quiet -m first
	printf '{"steps": [{"output": "done\\n", "delay": "200ms"}]}\n' >pause.json
	cat >loops/loops.star <<'STAR'
def task(wt, agent):
    return iterate(compose(wt.name, act = [fragment(content = "Work.")]), agent = agent, worktree = wt, max_iterations = 3).status

opts = flags(n = 4, agent = "")
trees = [worktree("t%d" % i) for i in range(opts.n)]
parallel([(task, wt, opts.agent) for wt in trees])
STAR
	many_loops=(env -C loops "$work/rooda" script run loops.star --no-record -- --n "$LOOPS" --agent "$work/fakeagent $work/pause.json")
	few_loops=(env -C loops "$work/rooda" script run loops.star --no-record -- --n "$few" --agent "$work/fakeagent $work/pause.json")
	turns many_loops few_loops
	many_cpu=$(cut -d' ' -f2 many_loops.times | median | awk -v n="$LOOPS" '{ printf "%.2f", $1 * 1000 / (n * 3) }')
	few_cpu=$(cut -d' ' -f2 few_loops.times | median | awk -v n="$few" '{ printf "%.2f", $1 * 1000 / (n * 3) }')
	echo "$LOOPS parallel worktree loops against $few, 3 iterations each of a 0.2 s agent:"
	echo "  wall: $LOOPS loops $(figure many_loops.times 1), $few loops $(figure few_loops.times 1)"
	echo "  CPU an iteration: $LOOPS loops ${many_cpu} ms, $few loops ${few_cpu} ms, ratio $(ratio "$many_cpu" "$few_cpu") (target <= $LOOPS_TARGET) $(verdict "$(ratio "$many_cpu" "$few_cpu")" "$LOOPS_TARGET")"
	row "$LOOPS parallel worktree loops against $few, CPU an iteration" "${many_cpu} ms" "$few loops ${few_cpu} ms: $(ratio "$many_cpu" "$few_cpu")x" "${LOOPS_TARGET}x" "$(ratio "$many_cpu" "$few_cpu")"
}

# startup: what a start of rooda costs, for the commands that do little
# else: STARTS starts in a row of each, by a shell loop, against the same
# loop of a Go hello-world built here with the same toolchain, and of
# /bin/true. The figures are per start: the loop's time over STARTS.
startup() {
	local name
	mkdir -p hello
	printf 'package main\n\nimport "os"\n\nfunc main() { os.Stdout.WriteString("hello\\n") }\n' >hello/main.go
	printf 'module hello\n' >hello/go.mod
	go build -C hello -o "$work/hello-go" .
	# As releases are built (docs/performance.md, "Start-up").
	CGO_ENABLED=0 go build -C "$repo" -trimpath -tags urfave_cli_no_docs -ldflags='-s -w' -o "$work/rooda-release" ./cmd/rooda
	printf 'def main():\n    return iterate(compose("build"), max_iterations = 1)\n\nif __main__:\n    main()\n' >small.star
	# starts.sh N COMMAND...: COMMAND N times, its output dropped.
	cat >starts.sh <<'EOF'
n=$1
shift
i=0
while [ "$i" -lt "$n" ]; do
	i=$((i + 1))
	"$@" >/dev/null 2>&1
done
EOF
	true_starts=(sh starts.sh "$STARTS" /bin/true)
	hello_starts=(sh starts.sh "$STARTS" ./hello-go)
	version_starts=(sh starts.sh "$STARTS" ./rooda version)
	help_starts=(sh starts.sh "$STARTS" ./rooda --help)
	list_starts=(sh starts.sh "$STARTS" ./rooda list)
	check_starts=(sh starts.sh "$STARTS" ./rooda script check small.star)
	release_version_starts=(sh starts.sh "$STARTS" ./rooda-release version)
	release_list_starts=(sh starts.sh "$STARTS" ./rooda-release list)
	release_help_starts=(sh starts.sh "$STARTS" ./rooda-release --help)
	release_check_starts=(sh starts.sh "$STARTS" ./rooda-release script check small.star)
	turns true_starts hello_starts version_starts help_starts list_starts check_starts release_version_starts release_help_starts release_list_starts release_check_starts
	echo "start-up, $STARTS starts in a row, per start (median of the turns), against a Go hello-world:"
	echo "  /bin/true $(per_start true_starts 1) ms wall, $(per_start true_starts 2) ms CPU; hello-world $(per_start hello_starts 1) ms, $(per_start hello_starts 2) ms CPU"
	for name in version help list check; do
		started "$name" "${name}_starts"
	done
	echo " built as releases are (CGO_ENABLED=0, -trimpath -tags urfave_cli_no_docs -ldflags='-s -w'):"
	for name in version help list check; do
		started "$name" "release_${name}_starts"
	done
}

# per_start prints field f (1 wall, 2 CPU) of the timings of STARTS
# starts in a row, in ms a start: the median of the turns.
per_start() {
	cut -d' ' -f"$2" "$1.times" | awk -v n="$STARTS" '{ printf "%.2f\n", $1 * 1000 / n }' | median
}

# started prints a command's start against the hello-world's, and its
# wall time against STARTUP_TARGET_MS.
started() {
	local what=$1 name=$2 wall cpu
	wall=$(per_start "$name" 1)
	cpu=$(per_start "$name" 2)
	printf '  rooda %-8s %s ms wall (target <= %s) %s, %s ms CPU; ratio to the hello-world %s wall, %s CPU\n' "$what" "$wall" "$STARTUP_TARGET_MS" "$(verdict "$wall" "$STARTUP_TARGET_MS")" "$cpu" \
		"$(ratio "$wall" "$(per_start hello_starts 1)")" "$(ratio "$cpu" "$(per_start hello_starts 2)")"
	row "a start of \`rooda $what\`$([ "${name#release}" != "$name" ] && echo ", built as releases are"), wall, CPU" "$wall ms, $cpu ms" "Go hello-world $(per_start hello_starts 1) ms" "$STARTUP_TARGET_MS ms" "$wall"
}

if [ -n "$STARTUP" ]; then
	startup
	exit
fi
if [ -n "$SANDBOX" ]; then
	trampoline
	exit
fi
if [ -n "$HOSTS" ]; then
	hosts
	exit
fi

if [ "$REPO" = big ]; then
	# Go's src tree, as it is on this machine: 11k files.
	cp -r "$(go env GOROOT)/src" big
	git -C big init --quiet
	git -C big add -A
	git -C big -c user.name=bench -c user.email=bench@example.org commit --quiet -m "Go's src tree"
	loop big edit.json "$BIG_REPO_TARGET_MS" "loop $ITERATIONS iterations in a git repository of $(git -C big ls-files | wc -l) files, records on"
	exit
fi

if [ -n "${LOOPS_ONLY:-}" ]; then
	loops
	exit
fi

if [ -n "${FLOOD_ONLY:-}" ]; then
	echo "machine: $(nproc) cores, $(uname -sr), load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%Y-%m-%dT%H:%MZ)"
	flood 65536 "fast writer (64 KiB writes)"
	flood 8192 "8 KiB pieces"
	exit
fi

# LOOP_DIR=DIR: the loop outside git alone, its records in DIR (another
# file system: ext4 with its journal, where the default's is without).
if [ -n "${LOOP_DIR:-}" ]; then
	d=$(mktemp -d -p "$LOOP_DIR")
	trap 'rm -rf "$work" "$d"' EXIT
	echo "machine: $(nproc) cores, $(uname -sr), load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%Y-%m-%dT%H:%MZ)"
	loop "$d" quiet.json "$OVERHEAD_TARGET_MS" "loop $ITERATIONS iterations outside git, records on, in $LOOP_DIR ($(findmnt -no FSTYPE,OPTIONS -T "$LOOP_DIR"))"
	exit
fi

# A small repository: three files, committed, the tree left clean.
mkdir small
for f in a b c; do echo "$f" >"small/$f.txt"; done
git -C small init --quiet
git -C small add -A
git -C small -c user.name=bench -c user.email=bench@example.org commit --quiet -m first

echo "machine: $(nproc) cores, $(uname -sr), load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%Y-%m-%dT%H:%MZ)"
flood 65536 "fast writer (64 KiB writes)"
flood 8192 "8 KiB pieces"
loop "$(unpruned outside)" quiet.json "$OVERHEAD_TARGET_MS" "loop $ITERATIONS iterations outside git, records on"
loop small quiet.json "$OVERHEAD_TARGET_MS" "loop $ITERATIONS iterations in a git repository of 3 files, records on"
# The records' files on tmpfs: what rooda costs apart from the disk's file
# system (ext4 without a journal, as on the development VM, scans past
# every inode deleted in the last minutes to make a new one: a record's
# file replaced each iteration makes the next cost more).
if [ -d /dev/shm ] && shm=$(mktemp -d -p /dev/shm 2>/dev/null); then
	trap 'rm -rf "$work" "$shm"' EXIT
	loop "$shm" quiet.json "$OVERHEAD_TARGET_MS" "loop $ITERATIONS iterations outside git, records on, on tmpfs (/dev/shm)"
fi
# DISK_DIR=DIR: the same with the records on another file system too (an
# ext4 with its journal, what distributions install).
if [ -n "${DISK_DIR:-}" ] && disk=$(mktemp -d -p "$DISK_DIR"); then
	trap 'rm -rf "$work" "${shm:-}" "$disk"' EXIT
	loop "$disk" quiet.json "$OVERHEAD_TARGET_MS" "loop $ITERATIONS iterations outside git, records on, in $DISK_DIR ($(findmnt -no FSTYPE -T "$DISK_DIR"))"
	cp -a small "$disk/small"
	loop "$disk/small" quiet.json "$OVERHEAD_TARGET_MS" "loop $ITERATIONS iterations in a git repository of 3 files, records on, in $DISK_DIR ($(findmnt -no FSTYPE -T "$DISK_DIR"))"
fi
trampoline
startup
resume
loops
echo
echo "Summary, for docs/performance.md (machine: $(nproc) cores, $(uname -sr), load at the end $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%Y-%m-%dT%H:%MZ), commit $(git -C "$repo" rev-parse --short HEAD)):"
echo
echo "| what | rooda | baseline | target |"
echo "| --- | --- | --- | --- |"
cat "$work/summary.md"
