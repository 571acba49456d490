// What tests/pull_suite.rs includes outside `cargo xtask test`: no keyspace. `cargo xtask
// test` writes the suite of the keyspaces the test suite left and points
// `CASSMODEL_PULL_SUITE` at it.
suite! {}
