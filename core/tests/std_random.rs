//! Seeded std randomness: on the case's thread, `getrandom` (and so std's `RandomState` keys, seeded from
//! it once per thread) answers from the case's stream; elsewhere it is the operating system's.

use std::hash::{BuildHasher, RandomState};

use timelaw_core::{execute, Abort, CallResult, Contract, Outcome, Schedule, StdRandom, Step, Subject, World};

/// Hashes one value with a fresh `RandomState` and keeps the hash in the call's result (as a number of
/// attempts: the trace carries it out).
struct Hashing(StdRandom);

thread_local! {
    static HASH: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

impl Subject for Hashing {
    type Config = ();
    fn name(&self) -> &str {
        "hashing"
    }
    fn contract(&self, (): &()) -> Contract {
        Contract::default()
    }
    fn run(&self, (): &(), world: &mut World<'_>) -> Result<(), Abort> {
        world.for_each_call(|world, _| {
            HASH.with(|cell| cell.set(RandomState::new().hash_one("timelaw")));
            world.dispatch()?;
            Ok(CallResult::Ok)
        })
    }
    fn std_random(&self) -> StdRandom {
        self.0
    }
}

/// The hash a case of `subject` with `seed` saw, run on a thread of its own (as the facade runs it).
fn hash_on_a_fresh_thread(random: StdRandom, seed: u64) -> u64 {
    std::thread::spawn(move || {
        let schedule = Schedule::single(vec![Step::instant(Outcome::Ok)]);
        let trace = execute(&Hashing(random), &(), &schedule, seed);
        assert_eq!(trace.end, timelaw_core::TraceEnd::Complete, "{trace:?}");
        HASH.with(std::cell::Cell::get)
    })
    .join()
    .unwrap()
}

#[test]
fn a_case_sees_its_seeds_randomness_on_every_run() {
    let first = hash_on_a_fresh_thread(StdRandom::Seeded, 7);
    assert_eq!(first, hash_on_a_fresh_thread(StdRandom::Seeded, 7), "the same seed, the same keys");
    assert_ne!(first, hash_on_a_fresh_thread(StdRandom::Seeded, 8), "another seed, other keys");
}

#[test]
fn the_operating_systems_randomness_is_the_default() {
    let (one, two) = (hash_on_a_fresh_thread(StdRandom::Os, 7), hash_on_a_fresh_thread(StdRandom::Os, 7));
    assert_ne!(one, two, "two threads' keys from the operating system (equal once in 2^64)");
}

#[test]
fn other_threads_keep_the_operating_systems_randomness() {
    // While a seeded case runs on one thread, a thread it spawns draws its keys from the system.
    let spawned = std::thread::spawn(|| {
        struct Spawner;
        impl Subject for Spawner {
            type Config = ();
            fn name(&self) -> &str {
                "spawner"
            }
            fn contract(&self, (): &()) -> Contract {
                Contract::default()
            }
            fn run(&self, (): &(), world: &mut World<'_>) -> Result<(), Abort> {
                let outside = std::thread::spawn(|| RandomState::new().hash_one("timelaw")).join().unwrap();
                HASH.with(|cell| cell.set(outside));
                world.for_each_call(|world, _| world.dispatch().map(|_| CallResult::Ok))
            }
            fn std_random(&self) -> StdRandom {
                StdRandom::Seeded
            }
        }
        let schedule = Schedule::single(vec![Step::instant(Outcome::Ok)]);
        let runs: Vec<u64> = (0..2)
            .map(|_| {
                execute(&Spawner, &(), &schedule, 7);
                HASH.with(std::cell::Cell::get)
            })
            .collect();
        runs
    })
    .join()
    .unwrap();
    assert_ne!(spawned[0], spawned[1], "a thread outside the case is not seeded");
}
