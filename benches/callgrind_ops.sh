#!/usr/bin/env bash
# Instructions per operation of each side of `query_overhead`, counted by valgrind's callgrind:
# a count, not a time, so the machine's load does not move it (this 2-core VM has no hardware
# counters: `perf stat -e instructions` is "not supported").
#
#   benches/callgrind_ops.sh '^insert, 64' [rounds]
#
# Runs the bench twice under valgrind, once per side (`QUERY_OVERHEAD_SIDE`: both halves of the
# run execute that side's code), for the variants whose name has the given text (one variant:
# the counts are divided by the operations counted: calls of the bench's `one_operation`). The
# process runs without instrumentation while it connects and loads its rows, and is counted
# from the line before the warm-up to its end (`callgrind_control -i on`). Prints per side, per operation:
#   - `caller`: the instructions under `poll_operation` (the operation's future as the caller
#     polls it: building the values, the statement lookup, serializing, reading the rows);
#   - `process`: every instruction of the process while counted (also the driver's connection
#     tasks, which send and receive the frames, and tokio's scheduler), user space only.
# Needs the node of `cargo xtask node start` and the bench built
# (`cargo bench --bench query_overhead --no-run`). `CALLGRIND_OPTS` adds options to valgrind's
# (`CALLGRIND_OPTS=--cache-sim=yes`: simulated cache misses too; read them from the callgrind
# files with `callgrind_annotate`). Under valgrind the client, not the node,
# sets the pace, so the counts say what each side executes, not how the two interleave.
# The counts are appended to benches/results/callgrind_ops.csv with the date, commit and machine
# (`CALLGRIND_CSV=<file>` appends elsewhere, `CALLGRIND_CSV=` nowhere).
set -euo pipefail
variant=${1:?usage: benches/callgrind_ops.sh VARIANT [ROUNDS]}
rounds=${2:-3}
cd "$(dirname "$0")/.."
bin=$(cargo bench --bench query_overhead --no-run --message-format=json 2>/dev/null |
    python3 -c 'import json,sys
for l in sys.stdin:
    m = json.loads(l)
    if m.get("reason") == "compiler-artifact" and m["target"]["name"] == "query_overhead" and m.get("executable"):
        print(m["executable"])')
out=$(mktemp -d)
for side in raw cassmodel; do
    QUERY_OVERHEAD_CSV= QUERY_OVERHEAD_SIDE=$side QUERY_OVERHEAD_PEER=0 QUERY_OVERHEAD_PACE=0 \
        QUERY_OVERHEAD_ONLY="$variant" QUERY_OVERHEAD_ROUNDS=$rounds QUERY_OVERHEAD_SLICE_MS=1000 \
        valgrind --tool=callgrind ${CALLGRIND_OPTS:-} --instr-atstart=no --callgrind-out-file="$out/cg.$side" \
        "$bin" --bench >"$out/$side.log" 2>&1 &
    pid=$!
    for _ in $(seq 600); do
        grep -q "^A/A run" "$out/$side.log" && break
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.5
    done
    callgrind_control -i on "$pid" >/dev/null
    wait "$pid" || { tail -20 "$out/$side.log"; exit 1; }
    # The operations counted: calls of the bench's `one_operation` while counting (the run's
    # own total also has the ones before `callgrind_control -i on` took effect, a number that
    # varies from run to run).
    callgrind_annotate --inclusive=yes "$out/cg.$side" >"$out/$side.inclusive" 2>/dev/null
    ops=$(callgrind_annotate --tree=calling --auto=no "$out/cg.$side" 2>/dev/null |
        sed -n 's/.*>.*query_overhead::one_operation (\([0-9,]*\)x).*/\1/p' | tr -d , |
        awk '{n += $1} END {print n + 0}')
    run_ops=$(sed -n 's/.*s, \([0-9]*\) measured and warm-up operations.*/\1/p' "$out/$side.log")
    if [ "$ops" -eq 0 ]; then
        echo "$side: no call of one_operation counted (is the bench built from this tree?)" >&2
        exit 1
    fi
    total=$(sed -n 's/^ *\([0-9,]*\) .*PROGRAM TOTALS.*/\1/p' "$out/$side.inclusive" | tr -d ,)
    caller=$(grep -m1 'query_overhead::poll_operation' "$out/$side.inclusive" |
        awk '{print $1}' | tr -d ,)
    echo "$side: $ops operations counted (of $run_ops); caller $((caller / ops)) instructions/op; process $((total / ops)) instructions/op"
    eval "caller_$side=$((caller / ops)) process_$side=$((total / ops))"
done
echo "logs and callgrind files: $out"
csv=${CALLGRIND_CSV-benches/results/callgrind_ops.csv}
if [ -n "$csv" ]; then
    commit=$(git rev-parse --short HEAD 2>/dev/null || true)
    [ -z "$(git status --porcelain --untracked-files=no 2>/dev/null)" ] || commit="$commit-dirty"
    machine="$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), $(nproc) cores"
    cache_sim=0
    case "${CALLGRIND_OPTS:-}" in *cache-sim=yes*) cache_sim=1 ;; esac
    ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }
    [ -s "$csv" ] || echo "date,commit,machine,variant,rounds,cache_sim,caller_cassmodel,caller_raw,caller_ratio,process_cassmodel,process_raw,process_ratio,notes" >"$csv"
    printf '%s,%s,"%s","%s",%s,%s,%s,%s,%s,%s,%s,%s,"%s"\n' "$(date -u +%F)" "$commit" "$machine" \
        "${variant//\"/\"\"}" "$rounds" "$cache_sim" "$caller_cassmodel" "$caller_raw" \
        "$(ratio "$caller_cassmodel" "$caller_raw")" "$process_cassmodel" "$process_raw" \
        "$(ratio "$process_cassmodel" "$process_raw")" "${CALLGRIND_OPTS:-}" >>"$csv"
    echo "appended to $csv"
fi
