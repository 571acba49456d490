#!/usr/bin/env python3
"""Splits one query_overhead process's CPU profile into the two sides' cost per operation.

A profile of one whole process cannot tell the sides apart (they share the session, its
connection tasks and the runtime), and two processes differ by more than the effect (BENCHMARKS.md,
issue 11). The bench alternates the sides in time, so the samples taken while one side's run
was going on are that side's. Record and split:

    QUERY_OVERHEAD_SLICES=/tmp/slices.tsv QUERY_OVERHEAD_ONLY='insert, 64' QUERY_OVERHEAD_PACE=0 \\
      QUERY_OVERHEAD_ROUNDS=40 QUERY_OVERHEAD_SLICE_MS=250 \\
      perf record -q -k CLOCK_MONOTONIC -F 4999 -g -o /tmp/qo.data <bench binary> --bench
    perf script -i /tmp/qo.data -F tid,time,ip,sym,dso --ns > /tmp/qo.txt
    python3 benches/perf_split.py /tmp/slices.tsv /tmp/qo.txt --freq 4999

Build the bench binary with frame pointers for the call chains (see BENCHMARKS.md). Prints, per
side, microseconds of CPU per operation: in total, by shared object, the leaf functions and the
inclusive frames that differ most, and the callers of memmove. The warm-up run of each side and
variant (the first in the log) is left out, as in the bench's own table.
"""

import argparse
import collections
import re
import bisect
import sys


def read_runs(path):
    runs, seen = [], set()
    with open(path) as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) != 6:
                continue
            side, workload, conc, start, end, ops = parts
            key = (side, workload, conc)
            if key not in seen:  # the warm-up run
                seen.add(key)
                continue
            runs.append((int(start) / 1e9, int(end) / 1e9, side, int(ops)))
    runs.sort()
    return runs


def samples(path):
    """(time in seconds, [(function, shared object)] leaf first) per sample."""
    header = re.compile(r"\s*\d+\s+([\d.]+):")
    frame = re.compile(r"\s*[0-9a-f]+ (.*) \((.*)\)$")
    time, frames = None, []
    with open(path) as f:
        for line in f:
            if not line.strip():
                if time is not None:
                    yield time, frames
                time, frames = None, []
                continue
            m = header.match(line)
            if m and time is None:
                time = float(m.group(1))
                continue
            m = frame.match(line)
            if m:
                name = re.sub(r"::h[0-9a-f]{16}$", "", m.group(1))
                frames.append((name, m.group(2).rsplit("/", 1)[-1]))
    if time is not None:
        yield time, frames


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("slices", help="the file QUERY_OVERHEAD_SLICES names")
    ap.add_argument("script", help="output of perf script -F tid,time,ip,sym,dso --ns")
    ap.add_argument("--freq", type=float, default=4999, help="perf record -F (samples/s)")
    ap.add_argument("--top", type=int, default=15)
    args = ap.parse_args()

    runs = read_runs(args.slices)
    if not runs:
        sys.exit("no measured runs in the slices file")
    starts = [r[0] for r in runs]
    ops = collections.Counter()
    for _, _, side, n in runs:
        ops[side] += n
    total = collections.Counter()
    by = {k: collections.defaultdict(collections.Counter) for k in ("dso", "leaf", "incl", "memmove")}

    for t, frames in samples(args.script):
        i = bisect.bisect_right(starts, t) - 1
        if i < 0 or t > runs[i][1] or not frames:
            continue
        side = runs[i][2]
        total[side] += 1
        leaf, dso = frames[0]
        by["dso"][side][dso] += 1
        by["leaf"][side][leaf[:120]] += 1
        for name in {f[:120] for f, _ in frames}:
            by["incl"][side][name] += 1
        if "memmove" in leaf or "memcpy" in leaf:
            by["memmove"][side][" <- ".join(f[:60] for f, _ in frames[1:3])] += 1

    sides = sorted(ops)
    if len(sides) != 2 or any(total[s] == 0 for s in sides):
        sys.exit(f"need samples of two sides, got {dict(total)}")
    us = 1e6 / args.freq

    def per(side, count):
        return count * us / ops[side]

    a, b = sides
    print(f"µs of CPU per operation: {a} (ops {ops[a]}) vs {b} (ops {ops[b]})")
    print(f"  total {per(a, total[a]):.3f} vs {per(b, total[b]):.3f}, ratio {per(a, total[a]) / per(b, total[b]):.3f}")
    for title, key, n in (
        ("by shared object", "dso", 10),
        ("leaf functions, largest differences", "leaf", args.top),
        ("inclusive frames, largest differences", "incl", args.top),
        ("memmove/memcpy by caller", "memmove", args.top),
    ):
        print(f"{title} ({a}, {b}, difference):")
        table = by[key]
        keys = set(table[a]) | set(table[b])
        keys = sorted(keys, key=lambda k: -abs(per(a, table[a][k]) - per(b, table[b][k])))
        for k in keys[:n]:
            x, y = per(a, table[a][k]), per(b, table[b][k])
            print(f"  {x:7.3f} {y:7.3f} {x - y:+7.3f}  {k}")


if __name__ == "__main__":
    main()
