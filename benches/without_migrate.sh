#!/usr/bin/env bash
# The query-only build benchmark of BENCHMARKS.md (Compile time): what a service that only
# queries saves by leaving out migrations. One crate with one model and one read, depending on
# cassmodel with `default-features = false`, is built without and with the `migrate` feature.
# Each side has its own target directory (dependencies built once, unmeasured); each measured
# build recompiles cassmodel-runtime, cassmodel and the crate (`touch` of the runtime's
# lib.rs), CARGO_INCREMENTAL=0, the two sides interleaved (A B, then B A, ...). Wall time, user
# CPU of the process tree and peak resident memory come from GNU time; the figures are the
# medians, and a row goes to benches/results/without_migrate.csv.
# Usage: bash benches/without_migrate.sh [pairs]   (default 6; about a minute a pair)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
pairs=${1:-6}
dir=$root/target/without-migrate
mkdir -p "$dir/src"
cat > "$dir/Cargo.toml" <<TOML
[package]
name = "query-only"
version = "0.1.0"
edition = "2024"

[features]
migrate = ["cassmodel/migrate"]

[dependencies]
cassmodel = { path = "$root", default-features = false }
tokio = { version = "1", features = ["macros", "rt-multi-thread"] }
uuid = { version = "1", features = ["v4"] }

[workspace]
TOML
cat > "$dir/src/main.rs" <<'RS'
use cassmodel::value::Timeuuid;
use cassmodel::{CassTable, Db};
use uuid::Uuid;

#[derive(CassTable, Debug)]
#[cass(table = "posts")]
struct Post {
    #[partition_key]
    user_id: Uuid,
    #[clustering(desc)]
    post_id: Timeuuid,
    content: String,
}

#[tokio::main]
async fn main() -> cassmodel::Result<()> {
    let db = Db::connect_from_env().await?.with_keyspace("social")?;
    let latest: Vec<Post> = Post::select().user_id(&Uuid::new_v4()).limit(20).fetch_all(&db).await?;
    println!("{}", latest.len());
    Ok(())
}
RS
cp "$root/Cargo.lock" "$dir/Cargo.lock"
export CARGO_INCREMENTAL=0
build() { # side: off | on
  local features=(); [ "$1" = on ] && features=(--features migrate)
  touch "$root/cassmodel-runtime/src/lib.rs"
  /usr/bin/time -f "%e %U %M" -o "$dir/time" cargo build -q --manifest-path "$dir/Cargo.toml" \
    --target-dir "$dir/target-$1" "${features[@]}"
  cat "$dir/time"
}
build off >/dev/null; build on >/dev/null
load_start=$(cut -d' ' -f1 /proc/loadavg)
echo "load at start: $(cut -d' ' -f1-3 /proc/loadavg)"
declare -a off_wall off_user off_mem on_wall on_user on_mem
for i in $(seq 1 "$pairs"); do
  if [ $((i % 2)) = 1 ]; then a=$(build off); b=$(build on); else b=$(build on); a=$(build off); fi
  echo "pair $i: without migrate $a, with migrate $b (wall s, user s, peak KiB)"
  read -r w u m <<<"$a"; off_wall+=("$w"); off_user+=("$u"); off_mem+=("$m")
  read -r w u m <<<"$b"; on_wall+=("$w"); on_user+=("$u"); on_mem+=("$m")
done
median() { printf '%s\n' "$@" | sort -n | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
ratio() { awk "BEGIN {printf \"%.2f\", $1/$2}"; }
mib() { awk "BEGIN {printf \"%.0f\", $1/1024}"; }
ow=$(median "${off_wall[@]}"); nw=$(median "${on_wall[@]}")
ou=$(median "${off_user[@]}"); nu=$(median "${on_user[@]}")
om=$(mib "$(median "${off_mem[@]}")"); nm=$(mib "$(median "${on_mem[@]}")")
load_end=$(cut -d' ' -f1 /proc/loadavg)
echo "median without migrate: ${ow} s wall, ${ou} s user, ${om} MiB peak"
echo "median with migrate:    ${nw} s wall, ${nu} s user, ${nm} MiB peak"
echo "ratio (without / with): wall $(ratio "$ow" "$nw"), user $(ratio "$ou" "$nu")"
echo "load at end: $(cut -d' ' -f1-3 /proc/loadavg)"

csv=$root/benches/results/without_migrate.csv
[ -f "$csv" ] || echo "date,commit,machine,pairs,without_wall_s,with_wall_s,without_user_s,with_user_s,without_peak_mib,with_peak_mib,ratio_wall,ratio_user,load_start,load_end" > "$csv"
commit=$(git -C "$root" rev-parse --short=7 HEAD)
git -C "$root" diff --quiet HEAD || commit="$commit-dirty"
model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1)
case "$model" in *EPYC*) cpu="AMD EPYC" ;; *Xeon*) cpu="Intel Xeon" ;; *) cpu="$model" ;; esac
echo "$(date -u +%F),$commit,\"$cpu, $(nproc) cores\",$pairs,$ow,$nw,$ou,$nu,$om,$nm,$(ratio "$ow" "$nw"),$(ratio "$ou" "$nu"),$load_start,$load_end" >> "$csv"
echo "row added to benches/results/without_migrate.csv"
