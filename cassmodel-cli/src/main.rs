//! `cassmodel`: the commands that need no models (see `cassmodel --help`).

fn main() -> std::process::ExitCode {
    cassmodel_cli::tool::main()
}
