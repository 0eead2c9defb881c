//! `CallSet`, the set of call numbers the load laws walk traces with: a bit word for the first 128 calls
//! and words beyond, checked against a plain set on the edges of both (127, 128, each word's first and
//! last bit) and far beyond.

use std::collections::BTreeSet;

use timelaw_laws::catalogue::CallSet;

/// The calls the sequence of changes visits: both edges of the bit word, of the first words beyond it,
/// and a call far out.
const CALLS: [u32; 14] = [0, 1, 63, 64, 126, 127, 128, 129, 191, 192, 193, 255, 256, 5_000];

#[test]
fn a_call_set_agrees_with_a_plain_set() {
    let mut set = CallSet::default();
    let mut model = BTreeSet::new();
    // In every call, out again every third one, back in every fifth: each change checked against the
    // model, then every call of the list and its neighbours.
    let changes = CALLS.iter().map(|&call| (call, true));
    let changes = changes.chain(CALLS.iter().step_by(3).map(|&call| (call, false)));
    let changes = changes.chain(CALLS.iter().step_by(5).map(|&call| (call, true)));
    for (call, in_set) in changes {
        let changed = if in_set { model.insert(call) } else { model.remove(&call) };
        assert_eq!(set.set(call, in_set), changed, "set({call}, {in_set})");
        for &probe in &CALLS {
            for probe in [probe.saturating_sub(1), probe, probe + 1] {
                assert_eq!(
                    set.contains(probe),
                    model.contains(&probe),
                    "contains({probe}) after set({call}, {in_set})"
                );
            }
        }
    }
    // Setting a call that is already in (or out) changes nothing.
    assert!(!set.set(128, model.contains(&128)));
    assert!(!set.set(6_000, false));
    assert!(!set.contains(6_000));
}
