#!/usr/bin/env bash
# Instructions of the one `rustc` process that checks each crate of `cargo xtask compile-bench`
# (50 derived tables: cassmodel's derive, and scylla's own derives), counted by valgrind's
# callgrind: a count, not a time, so the machine's load does not move it. It ranks changes to
# the generated code, which a timed ratio on this shared 2-core VM cannot tell apart (two runs
# of one commit minutes apart gave 0.82x and 0.91x); the issue's bar stays the timed ratio.
#
#   benches/callgrind_check.sh [cassmodel|scylla ...]     # default: both
#
# Needs the crates under target/compile-bench/ (any `cargo xtask compile-bench` run writes
# them). The derive runs inside the counted process, built as in a user's debug build. Takes
# about 90 s per crate. Prints the total per crate and keeps `cg.out` for callgrind_annotate;
# appends it to benches/results/callgrind_check.csv with the date, commit and machine
# (`CALLGRIND_CSV=<file>` appends elsewhere, `CALLGRIND_CSV=` nowhere).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
sides=("$@")
[ ${#sides[@]} -gt 0 ] || sides=(cassmodel scylla)
out=$(mktemp -d)
csv=${CALLGRIND_CSV-$root/benches/results/callgrind_check.csv}
commit=$(git rev-parse --short HEAD 2>/dev/null || true)
[ -z "$(git status --porcelain --untracked-files=no 2>/dev/null)" ] || commit="$commit-dirty"
machine="$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), $(nproc) cores"
for side in "${sides[@]}"; do
    crate="$root/target/compile-bench/$side"
    [ -f "$crate/Cargo.toml" ] || { echo "no $crate: run cargo xtask compile-bench first" >&2; exit 1; }
    cd "$crate"
    # Dependencies (and the derive) built first, so that only this crate's rustc is left.
    touch src/main.rs && CARGO_INCREMENTAL=0 cargo check -q 2>/dev/null
    touch src/main.rs
    cmd=$(CARGO_INCREMENTAL=0 cargo check -v 2>&1 | sed -n 's/^ *Running `\(.*rustc --crate-name compile_bench.*\)`$/\1/p' | tail -1)
    [ -n "$cmd" ] || { echo "no rustc command for $side" >&2; exit 1; }
    # The same command, its output moved aside and its messages in plain text.
    cmd=$(echo "$cmd" | sed "s|--out-dir [^ ]*|--out-dir $out/$side|; s|--error-format=json||; s|--json=[^ ]*||")
    mkdir -p "$out/$side"
    eval valgrind --tool=callgrind --callgrind-out-file="$out/$side/cg.out" "$cmd" >"$out/$side/log" 2>&1
    total=$(sed -n 's/^summary: //p' "$out/$side/cg.out")
    printf '%-10s %15s instructions   (%s)\n' "$side" "$total" "$out/$side/cg.out"
    cd "$root"
    if [ -n "$csv" ]; then
        [ -s "$csv" ] || echo "date,commit,machine,crate,instructions_millions,notes" >"$csv"
        printf '%s,%s,"%s",%s,%s,\n' "$(date -u +%F)" "$commit" "$machine" "$side" \
            "$(awk -v n="$total" 'BEGIN { printf "%.1f", n / 1e6 }')" >>"$csv"
    fi
done
