//! The `timelaw` binary: the CLI over the built-in subjects.

fn main() -> std::process::ExitCode {
    timelaw::cli::main(timelaw::Registry::builtin())
}
