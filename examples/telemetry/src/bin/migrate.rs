cassmodel_cli::main!(telemetry);
