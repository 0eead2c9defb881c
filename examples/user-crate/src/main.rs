fn main() -> std::process::ExitCode {
    timelaw::cli::main(user_crate::registry()) // the timelaw CLI for our subjects: `cargo run --features cli -- check --help`
}
