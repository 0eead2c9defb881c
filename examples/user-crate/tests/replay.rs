fn main() {
    timelaw::replay::main(user_crate::registry(), &["tests/fixtures"]); // one test per fixture file
}
