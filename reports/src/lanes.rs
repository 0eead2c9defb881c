//! Lanes: a trace whose calls overlap shown with one column per call, so interleaved calls read apart.
//!
//! A trace gets lanes when one call starts while another is in flight (started, not yet ended) and it
//! has at most [`LANES_MAX`] calls; a sequential trace, or one with more calls, keeps the single `what`
//! column. In a lane layout each event's words go into its own call's column; the columns of the other
//! calls in flight at that event hold [`IN_FLIGHT`], the others stay empty.

use std::collections::BTreeSet;

use timelaw_core::{EventKind, Trace};

/// The most calls shown as lanes; a trace with more keeps the single `what` column (and its `call`
/// column), since a table wider than a terminal reads worse than one column.
pub const LANES_MAX: usize = 8;

/// The cell of a call in flight at an event of another call.
pub const IN_FLIGHT: &str = "⋮";

/// The calls of `trace`, in index order, when its calls overlap and there are at most [`LANES_MAX`];
/// `None` for a trace shown in one column.
pub fn lanes(trace: &Trace) -> Option<Vec<u32>> {
    let mut in_flight = BTreeSet::new();
    let mut calls = BTreeSet::new();
    let mut overlap = false;
    for event in &trace.events {
        calls.insert(event.call);
        match event.kind {
            EventKind::CallStart { .. } => {
                overlap |= !in_flight.is_empty();
                in_flight.insert(event.call);
            }
            EventKind::CallEnd { .. } => {
                in_flight.remove(&event.call);
            }
            _ => {}
        }
    }
    (overlap && calls.len() <= LANES_MAX).then(|| calls.into_iter().collect())
}

/// Which calls are in flight, event by event, for the lane cells.
#[derive(Debug, Default)]
pub struct LaneCells {
    in_flight: BTreeSet<u32>,
}

impl LaneCells {
    /// The lane cells of the next event (`call`, `kind`, its words): `what` in `call`'s lane,
    /// [`IN_FLIGHT`] in the lanes of the other calls in flight, empty elsewhere.
    pub fn next(&mut self, lanes: &[u32], call: u32, kind: EventKind, what: String) -> Vec<String> {
        match kind {
            EventKind::CallStart { .. } => {
                self.in_flight.insert(call);
            }
            EventKind::CallEnd { .. } => {
                self.in_flight.remove(&call);
            }
            _ => {}
        }
        let mut what = Some(what);
        lanes
            .iter()
            .map(|&lane| match lane == call {
                true => what.take().unwrap_or_default(),
                false if self.in_flight.contains(&lane) => IN_FLIGHT.to_owned(),
                false => String::new(),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use timelaw_core::{CallResult, VInstant};

    use super::*;

    fn trace(events: &[(u32, EventKind)]) -> Trace {
        let mut trace = Trace::new();
        for &(call, kind) in events {
            trace.push(VInstant::EPOCH, call, 0, kind);
        }
        trace
    }

    const START: EventKind = EventKind::CallStart { idempotent: true };
    const END: EventKind = EventKind::CallEnd { result: CallResult::Ok };

    #[track_caller]
    fn check(events: &[(u32, EventKind)], expect: Option<&[u32]>) {
        assert_eq!(lanes(&trace(events)).as_deref(), expect);
    }

    #[test]
    fn lanes_only_when_calls_overlap() {
        check(&[(0, START), (0, END), (1, START), (1, END)], None);
        check(&[(0, START), (1, START), (0, END), (1, END)], Some(&[0, 1]));
        check(&[(0, START), (1, START), (1, END), (2, START), (2, END), (0, END)], Some(&[0, 1, 2]));
        let many: Vec<(u32, EventKind)> = (0..=LANES_MAX as u32).map(|call| (call, START)).collect();
        check(&many, None);
        check(&many[..LANES_MAX], Some(&(0..LANES_MAX as u32).collect::<Vec<_>>()));
    }

    #[test]
    fn cells_mark_the_calls_in_flight() {
        let mut cells = LaneCells::default();
        let lanes = [0, 1, 2];
        let mut next = |call, kind| cells.next(&lanes, call, kind, "x".to_owned());
        assert_eq!(next(0, START), ["x", "", ""]);
        assert_eq!(next(1, START), [IN_FLIGHT, "x", ""]);
        assert_eq!(next(0, EventKind::AttemptStart), ["x", IN_FLIGHT, ""]);
        assert_eq!(next(0, END), ["x", IN_FLIGHT, ""]);
        assert_eq!(next(2, START), ["", IN_FLIGHT, "x"]);
    }
}
