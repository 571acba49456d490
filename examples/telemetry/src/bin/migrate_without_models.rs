//! The mistake `cassmodel_cli::main!` exists for, kept so that the tests see it refused: a
//! migration binary that never names the library, which the linker then leaves out with
//! every model in it.

fn main() -> std::process::ExitCode {
    cassmodel_cli::main()
}
