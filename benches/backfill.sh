#!/usr/bin/env bash
# The backfill benchmark of BENCHMARKS.md: installs cqlsh 6.2.2 from PyPI (once, into
# ~/.cache/cassmodel/cqlsh-6.2.2), starts or reuses the local node, and runs every variant:
#   benches/backfill.sh --rows 1000000 --rounds 3
set -euo pipefail
cd "$(dirname "$0")/.."
venv="${CASSMODEL_CQLSH_VENV:-$HOME/.cache/cassmodel/cqlsh-6.2.2}"
if [ ! -x "$venv/bin/cqlsh" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check cqlsh==6.2.2
fi
"$venv/bin/cqlsh" --version
cargo run --quiet -p cassmodel-node -- start
cat /proc/loadavg
exec cargo bench --quiet --bench backfill -- all --cqlsh "$venv/bin/cqlsh" "$@"
