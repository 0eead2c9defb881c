//! Independent jobs of one test spread over the machine's cores: the planted-bug tests run a search
//! and a shrink per bug and seed, each on one runner thread, and one after another they kept a core idle.
#![allow(dead_code)] // Each test target uses a part of the shared code.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// `work` applied to every job, on up to as many threads as the machine has cores; the results in job
/// order. A panicking job fails the test with its own message (the scope re-raises it).
pub fn map<T: Send, R: Send>(jobs: Vec<T>, work: impl Fn(T) -> R + Sync) -> Vec<R> {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let workers = cores.min(jobs.len()).max(1);
    let slots: Vec<Mutex<Option<T>>> = jobs.into_iter().map(|job| Mutex::new(Some(job))).collect();
    let results: Vec<Mutex<Option<R>>> = slots.iter().map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                let index = next.fetch_add(1, Ordering::Relaxed);
                let Some(slot) = slots.get(index) else { break };
                let job = slot.lock().unwrap().take().expect("each job is taken once");
                *results[index].lock().unwrap() = Some(work(job));
            });
        }
    });
    results.into_iter().map(|result| result.into_inner().unwrap().expect("every job ran")).collect()
}

/// `work` on every planted bug (with the law it breaks) and every seed, spread as [`map`] does; the
/// results in bug order, then seed order.
pub fn per_seed<B: Copy + Send + Sync, R: Send>(
    bugs: &[(B, &'static str)],
    seeds: &[u64],
    work: impl Fn(B, &'static str, u64) -> R + Sync,
) -> Vec<(B, u64, R)> {
    let jobs = bugs.iter().flat_map(|&(bug, law)| seeds.iter().map(move |&seed| (bug, law, seed))).collect();
    map(jobs, |(bug, law, seed)| (bug, seed, work(bug, law, seed)))
}
