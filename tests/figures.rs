//! The figures the top of BENCHMARKS.md and README.md quote are the ones `benches/results/*.csv`
//! hold: each file's block between `<!-- figures:begin NAME -->` and `<!-- figures:end NAME -->`
//! must be what `cargo xtask figures` renders from them (the same code, included from xtask).
//! Needs no Cassandra node.

#[allow(dead_code)]
#[path = "../xtask/src/figures.rs"]
mod figures;

use std::path::Path;

fn check(name: &str, file: &str) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    if let Err(e) = figures::check_file(root, name, &root.join(file), file, false) {
        panic!("\n{e}\n");
    }
}

#[test]
fn benchmarks_md_quotes_the_results() {
    check("benchmarks-summary", "BENCHMARKS.md");
}

#[test]
fn readme_quotes_the_results() {
    check("readme-costs", "README.md");
}
