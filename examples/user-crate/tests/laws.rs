//! The law suite: each loop against the whole catalogue (a violation is shrunk and written to tests/fixtures).
use user_crate::{SYNC_RETRY, TOKIO_RETRY};

#[test]
fn both_loops_keep_their_promises() {
    timelaw::check(&SYNC_RETRY).fixtures("tests/fixtures").run().assert_holds();
    // tokio cannot time out within a millisecond (its timer granularity): a known violation in tests/fixtures.
    timelaw::check(&TOKIO_RETRY).without_laws(&["eventually_succeeds"]).fixtures("tests/fixtures").run().assert_holds();
    (0..=255).for_each(|byte| timelaw::fuzz::check_bytes(&SYNC_RETRY, &[byte; 48]));
    // the fuzz target's body
}
