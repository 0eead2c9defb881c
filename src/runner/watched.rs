//! The search under the watchdog ([`crate::watchdog`]): worker threads take chunks of case indices,
//! count every step of progress on their heartbeat, and send a tally per chunk; the calling thread
//! merges the tallies and watches the heartbeats. A worker whose subject makes no progress for the case
//! timeout is abandoned: its case is recorded as hung (saved to the scratch area at once), the rest of
//! its chunk (the cases before the hang too: their tally stayed with the thread) goes back in the
//! queue, and a new worker takes its place. Every case that does not hang is judged exactly once into
//! the merged tally, so verdicts and fixtures do not depend on thread count or timing.
//!
//! A run never stops judging silently: a replacement starts as soon as fewer than [`ABANDONED_MAX`]
//! abandoned threads of the process still spin (an abandoned thread that parked at a World call costs
//! nothing). When none can start for a whole case timeout and no worker is left, the cases still
//! queued are recorded as inconclusive for every law, with a reason that names them.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use timelaw_core::heartbeat::spinning_threads;
use timelaw_core::{mix, Heartbeat, Trace};
use timelaw_generators::coverage::classify;
use timelaw_generators::{sample_case, ConfigDomain, SWARM_BATCH_CASES};
use timelaw_laws::{Catalogue, Verdict};

use super::persist::Finds;
use super::progress::Progress;
use super::search::{judge_case_with, COVERAGE_EVERY, PROGRESS_CASES};
use super::tally::Tally;
use crate::config::Config;
use crate::watchdog::{hung, poll_interval, spawn_abandonable, Watch, POLLS_PER_TIMEOUT};

/// The fewest case indices a worker takes at a time.
const CHUNK_CASES_MIN: u64 = 256;
/// The most case indices a worker takes at a time.
const CHUNK_CASES_MAX: u64 = 4096;
/// A run hands out at least this many chunks per worker (while chunks stay within
/// [`CHUNK_CASES_MIN`]..=[`CHUNK_CASES_MAX`]), so the workers end together.
const CHUNKS_PER_WORKER_MIN: u64 = 32;

/// The cases a worker takes at a time in a run of `cases` cases on `workers` workers: larger chunks for
/// longer runs, where each chunk's tally, message and the watchdog's wake-up are a cost per chunk (a
/// chunk of 256 made them about 3% of a long run). A hang re-judges at most one chunk.
fn chunk_cases(cases: u64, workers: u64) -> u64 {
    (cases / workers.max(1).saturating_mul(CHUNKS_PER_WORKER_MIN)).clamp(CHUNK_CASES_MIN, CHUNK_CASES_MAX)
}
/// While this many abandoned threads of the process still spin in a subject's code (a loop in pure code
/// never parks: [`timelaw_core::heartbeat::spinning_threads`]), no replacement worker is started: each
/// keeps a core busy until the process ends, and more would starve the run (and make the watchdog see
/// hangs that are only starvation). Abandoned threads that parked at a World call do not count. A run
/// whose workers are all gone while the cap holds records every case left as inconclusive ("not
/// judged"), naming them; it never passes as if they had been judged.
pub const ABANDONED_MAX: u64 = 16;
/// The most unjudged index ranges a "not judged" reason lists.
const RANGES_LISTED_MAX: usize = 8;
/// `Slot::current` of a worker between cases.
const IDLE: u64 = u64::MAX;

/// The case indices still to judge: requeued ranges first, then the next fresh chunk.
struct Queue {
    requeued: Mutex<Vec<(u64, u64)>>,
    next: AtomicU64,
    last: u64,
    /// The cases of a fresh chunk ([`chunk_cases`]).
    chunk: u64,
}

impl Queue {
    fn take(&self) -> Option<(u64, u64)> {
        if let Some(range) = self.requeued.lock().unwrap_or_else(PoisonError::into_inner).pop() {
            return Some(range);
        }
        let start = self.next.fetch_add(self.chunk, Ordering::Relaxed);
        (start < self.last).then(|| (start, start.saturating_add(self.chunk).min(self.last)))
    }
    fn requeue(&self, first: u64, last: u64) {
        if first < last {
            self.requeued.lock().unwrap_or_else(PoisonError::into_inner).push((first, last));
        }
    }
    /// Whether every case was handed out.
    fn is_empty(&self) -> bool {
        self.requeued.lock().unwrap_or_else(PoisonError::into_inner).is_empty()
            && self.next.load(Ordering::Relaxed) >= self.last
    }
    /// Takes every range still queued, sorted.
    fn drain(&self) -> Vec<(u64, u64)> {
        let mut ranges = std::mem::take(&mut *self.requeued.lock().unwrap_or_else(PoisonError::into_inner));
        let next = self.next.swap(self.last, Ordering::Relaxed);
        if next < self.last {
            ranges.push((next, self.last));
        }
        ranges.sort_unstable();
        ranges
    }
}

/// What the watchdog sees of one worker.
struct Slot {
    heartbeat: Heartbeat,
    current: AtomicU64,
    range: Mutex<(u64, u64)>,
}

enum Message<C> {
    Chunk(Box<Tally<C>>),
    Idle,
}

/// Everything a worker borrows.
struct Shared<'s, S: ConfigDomain + ?Sized> {
    subject: &'s S,
    laws: &'s Catalogue,
    config: &'s Config,
    progress: &'s dyn Progress,
    finds: Option<&'s Finds<'s, S>>,
    queue: Queue,
}

/// The search of [`super::search_saving`] with the watchdog on (`config.case_timeout_ms > 0`).
pub(super) fn watched_search<'s, S: ConfigDomain + ?Sized>(
    subject: &'s S,
    laws: &'s Catalogue,
    config: &'s Config,
    progress: &'s dyn Progress,
    finds: Option<&'s Finds<'s, S>>,
) -> Tally<S::Config> {
    let (first, last) = config.case_range();
    let worker_count = rayon::current_num_threads().max(1);
    let chunk = chunk_cases(last - first, worker_count as u64);
    let queue = Queue { requeued: Mutex::default(), next: AtomicU64::new(first), last, chunk };
    let shared = Arc::new(Shared { subject, laws, config, progress, finds, queue });
    let (sender, receiver) = mpsc::channel();
    let poll = poll_interval(Duration::from_millis(config.case_timeout_ms));
    let mut workers: Vec<(Arc<Slot>, Watch)> = Vec::new();
    let mut handles = Vec::new();
    for _ in 0..worker_count {
        let (slot, handle) = start_worker(&shared, sender.clone());
        workers.push((slot, Watch::new(0, IDLE, poll)));
        handles.extend(handle);
    }
    let keep = config.violations_per_law();
    let mut tally = Tally::new(laws.len(), keep);
    let timeout = Duration::from_millis(config.case_timeout_ms);
    let mut live = handles.len();
    // Replacements owed for abandoned workers, and the polls for which none could start with none left.
    let (mut owed, mut stuck_polls) = (0_usize, 0_u32);
    while live > 0 || (owed > 0 && stuck_polls < POLLS_PER_TIMEOUT) {
        match receiver.recv_timeout(poll) {
            Ok(Message::Chunk(chunk)) => tally = tally.merge(*chunk),
            Ok(Message::Idle) => live -= 1,
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => break,
        }
        // An abandoned worker never says it is idle; its replacement will, once started.
        let abandoned = abandon_hung(&shared, &mut workers, timeout, &mut tally);
        (live, owed) = (live - abandoned, owed + abandoned);
        if shared.queue.is_empty() {
            owed = 0; // Nothing left for a replacement to do.
        }
        while owed > 0 && spinning_threads() < ABANDONED_MAX {
            let (replacement, handle) = start_worker(&shared, sender.clone());
            workers.push((replacement, Watch::new(0, IDLE, poll)));
            owed -= 1;
            live += usize::from(handle.is_some());
            handles.extend(handle);
        }
        stuck_polls = if live == 0 && owed > 0 { stuck_polls + 1 } else { 0 };
    }
    if owed > 0 {
        record_unjudged(&shared, &mut tally); // The cap held with no worker left: the cases queued.
    }
    for handle in handles {
        if handle.is_finished() {
            let _ = handle.join(); // Workers that sent Idle return at once; abandoned ones are left.
        }
    }
    tally
}

/// Abandons every worker whose case made no progress for `timeout`: its case is recorded as hung, the
/// rest of its chunk requeued, and it leaves `workers`. How many were abandoned.
fn abandon_hung<S: ConfigDomain + ?Sized>(
    shared: &Shared<'_, S>,
    workers: &mut Vec<(Arc<Slot>, Watch)>,
    timeout: Duration,
    tally: &mut Tally<S::Config>,
) -> usize {
    let mut abandoned = 0;
    for (slot, watch) in workers.iter_mut() {
        let current = slot.current.load(Ordering::Relaxed);
        if watch.stalled_for(slot.heartbeat.beats(), current) < timeout || current == IDLE {
            continue;
        }
        slot.heartbeat.abandon();
        let (chunk_first, chunk_last) = *slot.range.lock().unwrap_or_else(PoisonError::into_inner);
        shared.queue.requeue(chunk_first, current);
        shared.queue.requeue(current.saturating_add(1), chunk_last);
        record_hang(shared, current, tally);
        tally.abandoned_threads = tally.abandoned_threads.saturating_add(1);
        abandoned += 1;
    }
    workers.retain(|(slot, _)| !slot.heartbeat.is_abandoned());
    abandoned
}

/// Records every case still queued (none once the search ran to its end) as inconclusive for every law:
/// no worker was left to judge it while [`ABANDONED_MAX`] abandoned threads still spun.
fn record_unjudged<S: ConfigDomain + ?Sized>(shared: &Shared<'_, S>, tally: &mut Tally<S::Config>) {
    let ranges = shared.queue.drain();
    let Some(&(first, _)) = ranges.first() else { return };
    let listed: Vec<String> = ranges.iter().take(RANGES_LISTED_MAX).map(|(a, b)| format!("{a}..{b}")).collect();
    let more = ranges.len().saturating_sub(RANGES_LISTED_MAX);
    let and_more = if more > 0 { format!(" and {more} more ranges") } else { String::new() };
    let reason = format!(
        "not judged: no worker was left while {} abandoned threads still spun in the subject's code \
         (at most {ABANDONED_MAX}); cases {}{and_more} were not judged",
        spinning_threads(),
        listed.join(", "),
    );
    let config = shared.config;
    // Only a violation clones the case it is recorded with: one sampled case serves every record.
    let case = sample_case(shared.subject, mix(config.seed, first), &config.swarm_of(first));
    let trace = Trace::new();
    for index in ranges.iter().flat_map(|&(a, b)| a..b) {
        tally.begin_unjudged_case(index, super::unjudged::UnjudgedReason::NotRun);
        for law in 0..shared.laws.len() {
            let verdict = Verdict::Inconclusive(std::borrow::Cow::Owned(reason.clone()));
            tally.record(law, index, &case, &trace, verdict);
        }
    }
}

/// Starts a worker on its own slot; `None` for the handle when the OS refused a thread (its work stays
/// in the queue for the others).
fn start_worker<'s, S: ConfigDomain + ?Sized>(
    shared: &Arc<Shared<'s, S>>,
    sender: Sender<Message<S::Config>>,
) -> (Arc<Slot>, Option<std::thread::JoinHandle<()>>) {
    let slot = Arc::new(Slot { heartbeat: Heartbeat::new(), current: AtomicU64::new(IDLE), range: Mutex::default() });
    let (mine, theirs) = (Arc::clone(&slot), Arc::clone(shared));
    let handle = spawn_abandonable("timelaw-worker".to_owned(), move || work(&theirs, &mine, &sender)).ok();
    (slot, handle)
}

/// A worker: judges chunks until the queue is empty, sending one tally per chunk.
fn work<S: ConfigDomain + ?Sized>(shared: &Shared<'_, S>, slot: &Slot, sender: &Sender<Message<S::Config>>) {
    let keep = shared.config.violations_per_law();
    while let Some((first, last)) = shared.queue.take() {
        *slot.range.lock().unwrap_or_else(PoisonError::into_inner) = (first, last);
        let mut tally = Tally::new(shared.laws.len(), keep);
        // The batch of the case at hand and its swarm, drawn once per batch.
        let mut batch = (first / SWARM_BATCH_CASES, shared.config.swarm_of(first));
        for index in first..last {
            if shared.finds.is_some_and(Finds::failed) {
                break;
            }
            slot.current.store(index, Ordering::Relaxed);
            if index / SWARM_BATCH_CASES != batch.0 {
                batch = (index / SWARM_BATCH_CASES, shared.config.swarm_of(index));
            }
            judge_case_with(
                shared.subject,
                shared.laws,
                shared.config,
                index,
                &batch.1,
                &mut tally,
                shared.finds,
                Some(&slot.heartbeat),
            );
            if index % PROGRESS_CASES == PROGRESS_CASES - 1 {
                shared.progress.advance(PROGRESS_CASES);
            }
        }
        slot.current.store(IDLE, Ordering::Relaxed);
        if sender.send(Message::Chunk(Box::new(tally))).is_err() {
            return;
        }
    }
    let _ = sender.send(Message::Idle);
}

/// Records case `index` as hung: every law judges the hung evaluation ("no progress for N ms" for
/// `terminates`), and a kept violation is saved to the scratch area at once.
fn record_hang<S: ConfigDomain + ?Sized>(shared: &Shared<'_, S>, index: u64, tally: &mut Tally<S::Config>) {
    let config = shared.config;
    let case = sample_case(shared.subject, mix(config.seed, index), &config.swarm_of(index));
    let evaluation = hung(shared.subject, &case, config.case_timeout_ms);
    if index.is_multiple_of(COVERAGE_EVERY) {
        tally.coverage.record(classify(&case.schedule, &evaluation.contract));
    }
    let observation = evaluation.observation(&case);
    shared.laws.judge_each(&observation, |law_index, law, verdict| {
        let kept = tally.record(law_index, index, &case, &evaluation.trace, verdict);
        if let (true, Some(finds)) = (kept, shared.finds) {
            finds.offer_evaluated(law, index, &case, Some(&evaluation));
        }
    });
}

#[cfg(test)]
mod tests {
    use super::{chunk_cases, CHUNK_CASES_MAX, CHUNK_CASES_MIN};

    #[test]
    fn chunks_grow_with_the_run_within_their_bounds() {
        assert_eq!(chunk_cases(1_000, 2), CHUNK_CASES_MIN, "a short run keeps small chunks for both workers");
        assert_eq!(chunk_cases(0, 0), CHUNK_CASES_MIN);
        assert_eq!(chunk_cases(100_000, 2), 1_562, "32 chunks a worker");
        assert_eq!(chunk_cases(1_000_000, 1), CHUNK_CASES_MAX);
        assert_eq!(chunk_cases(u64::MAX, u64::MAX), CHUNK_CASES_MIN);
    }
}
