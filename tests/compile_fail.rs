//! Compile-fail tests: every rule the derive macros and the typed API enforce at compile time
//! has a case under `tests/ui/`, with the exact compiler output in its `.stderr` file.
//! Regenerate outputs with `TRYBUILD=overwrite cargo test --test compile_fail`, then review
//! every changed `.stderr` by eye.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*/*.rs");
}
