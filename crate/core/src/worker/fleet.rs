//! Every worker's next reconcile at once, in time near-linear in splits + members (plus what
//! the workers are told to do).
//!
//! [`super::next_actions`] is the definition: one worker, every split. Asking it for each of m
//! workers costs m times the splits (a minute at 100,000 splits × 1,000 members). But a split
//! with no lease is the same candidate for every worker, and a split under a lease matters only
//! to the lease's owner (to anyone else it is under a foreign lease: skipped). So one pass builds
//! what is shared — the unleased runnable splits' candidacies — and the leases by owner; each
//! worker then looks only at its own leases, its assignment and the shared quarantines, and
//! counts what it passes over instead of listing it. `tests/claims.rs` checks the result equals
//! [`super::next_actions`] worker by worker.

use super::{fenced, holds, NextActions, WorkerView};
use crate::claims::{ClaimAction, ClaimCandidate, ClaimKind, Claimant};
use crate::records::SplitStatus;
use crate::rules::Rules;
use crate::state::SplitState;
use foldhash::{HashMap, HashMapExt};
use std::collections::BTreeMap;

/// The candidacies every worker shares at one `max_attempts`: those of the runnable splits with
/// no lease.
struct Shared<'a> {
    /// The quarantines, in candidate order (every worker takes them all).
    quarantines: Vec<ClaimCandidate>,
    /// The claims, by split id (a worker takes those its assignment names, while it has lanes).
    claims: HashMap<&'a str, ClaimKind>,
    /// How many candidates in all.
    count: usize,
}

impl<'a> Shared<'a> {
    fn new(unleased: &[(&'a str, &'a SplitState)], rules: Rules, max_attempts: u32) -> Shared<'a> {
        let mut quarantines = Vec::new();
        let mut claims = HashMap::with_capacity(unleased.len());
        // with no lease, neither the instance nor its nonce plays a part
        let anyone = Claimant {
            rules,
            instance: "",
            run: None,
            max_attempts,
        };
        for &(id, s) in unleased {
            match anyone.candidacy(s) {
                Some((kind, ClaimAction::Quarantine)) => {
                    quarantines.push(candidate(id, kind, ClaimAction::Quarantine))
                }
                Some((kind, ClaimAction::Claim)) => drop(claims.insert(id, kind)),
                None => {}
            }
        }
        quarantines.sort_by(|a, b| (a.kind, &a.id).cmp(&(b.kind, &b.id)));
        Shared {
            count: quarantines.len() + claims.len(),
            quarantines,
            claims,
        }
    }
}

fn candidate(id: &str, kind: ClaimKind, action: ClaimAction) -> ClaimCandidate {
    ClaimCandidate {
        id: id.to_string(),
        action,
        kind,
    }
}

/// [`super::next_actions`] for each of `views`, in their order.
#[cfg_attr(feature = "testing", visibility::make(pub))]
pub(crate) fn next_actions_of_all(
    splits: &BTreeMap<String, SplitState>,
    views: &[WorkerView],
) -> Vec<NextActions> {
    let mut own: HashMap<&str, Vec<(&str, &SplitState)>> =
        views.iter().map(|w| (w.instance, Vec::new())).collect();
    let mut unleased = Vec::new();
    for (id, s) in splits {
        match &s.lease {
            Some(l) => {
                if let Some(v) = own.get_mut(l.value.owner.as_str()) {
                    v.push((id.as_str(), s));
                }
            }
            None if s.progress.status == SplitStatus::Runnable => unleased.push((id.as_str(), s)),
            None => {}
        }
    }
    let mut shared: BTreeMap<(Rules, u32), Shared> = BTreeMap::new();
    views
        .iter()
        .map(|w| {
            let sh = shared
                .entry((w.rules, w.max_attempts))
                .or_insert_with(|| Shared::new(&unleased, w.rules, w.max_attempts));
            one(w, &own[w.instance], sh)
        })
        .collect()
}

/// One worker's next reconcile from its own leases (in id order) and the shared candidacies.
fn one(w: &WorkerView, own: &[(&str, &SplitState)], shared: &Shared) -> NextActions {
    let mut out = NextActions {
        actions: shared.quarantines.clone(),
        drains: Vec::new(),
        held: Vec::new(),
        fenced: Vec::new(),
        skipped: 0,
    };
    let mut eligible: Vec<(ClaimKind, &str)> = Vec::new();
    let assigned = |id: &str| w.assignment.is_some_and(|a| a.contains(id));
    let mut candidates = shared.count;
    let me = Claimant {
        rules: w.rules,
        instance: w.instance,
        run: w.nonce,
        max_attempts: w.max_attempts,
    };
    for &(id, s) in own {
        if holds(s, w.instance, w.nonce) {
            out.held.push(id.to_string());
            continue;
        }
        if fenced(s, w.instance, w.nonce) {
            out.fenced.push(id.to_string());
        }
        if s.progress.status != SplitStatus::Runnable {
            continue;
        }
        match me.candidacy(s) {
            Some((kind, ClaimAction::Quarantine)) => {
                out.actions.push(candidate(id, kind, ClaimAction::Quarantine))
            }
            Some((kind, ClaimAction::Claim)) if assigned(id) => eligible.push((kind, id)),
            Some(_) => {}
            None => continue,
        }
        candidates += 1;
    }
    if let Some(a) = w.assignment {
        eligible.extend(
            a.iter()
                .filter_map(|id| shared.claims.get(id.as_str()).map(|k| (*k, id.as_str()))),
        );
        out.drains = out.held.iter().filter(|id| !a.contains(*id)).cloned().collect();
    }
    eligible.sort_unstable();
    eligible.truncate((w.cap as usize).saturating_sub(out.held.len()));
    out.actions.extend(
        eligible
            .into_iter()
            .map(|(kind, id)| candidate(id, kind, ClaimAction::Claim)),
    );
    out.actions.sort_by(|a, b| (a.kind, &a.id).cmp(&(b.kind, &b.id)));
    out.skipped = crate::exact::count(candidates - out.actions.len());
    out
}
