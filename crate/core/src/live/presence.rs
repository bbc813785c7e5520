//! What a change did to the fleet's membership or leadership, with the store's time: the
//! evidence an incident starts from (docs/live-protocol.md, "Incidents").
//!
//! The store tells how a member left: a graceful stop deletes its presence key
//! (`timing.md` §3.1: an explicit delete marker), a crash lets it lapse (the bucket's `max_age`
//! expires it: a purge marker where the bucket has limit markers, else the expiry the state
//! keeps by the lease deadline). The time is the marker's creation time, or for an expiry the
//! entry's last write plus the bucket's `max_age` (when the store dropped it).

use super::change::LiveOp;
use crate::fleet::LeaseItem;
use crate::fleet::Side;
use serde::Serialize;

/// What happened.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum FleetChangeKind {
    /// A member's presence lapsed (no delete: the process stopped renewing it).
    Crashed,
    /// A member deleted its presence (a graceful stop).
    Stopped,
    /// A member's presence appeared.
    Joined,
    /// A member's presence was written by a new process (another nonce) without a gap.
    Restarted,
    /// A member's advertised cap (`max_in_flight`) changed.
    Cap,
    /// The `leader` key names another owner (or went: `member` is then the one it named).
    Leader,
}

/// One change to the fleet's membership or leadership.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FleetChange {
    pub kind: FleetChangeKind,
    /// The member it concerns (the new leader for [`FleetChangeKind::Leader`]; empty when the
    /// leader key went and names nobody).
    pub member: String,
    /// The store's time of the change, in ms since the Unix epoch.
    pub at_ms: i64,
    /// For [`FleetChangeKind::Cap`]: the cap before and after (`None`: none of its own).
    pub cap: Option<(Option<u32>, Option<u32>)>,
    /// For [`FleetChangeKind::Leader`]: the owner before (`None`: no leader key).
    pub previous: Option<String>,
}

/// What a lease-bucket key held, as the changes compare it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Held {
    Presence {
        nonce: Option<String>,
        cap: Option<u32>,
        created_ms: i64,
    },
    Leader {
        owner: String,
        created_ms: i64,
    },
    Other,
}

impl Held {
    /// What a lease-bucket key holds, from its parsed record (`records.lease_item`: nothing is
    /// parsed again) and its entry's creation time.
    pub(super) fn of(item: &LeaseItem, created_ms: i64) -> Held {
        match item {
            LeaseItem::Presence(v, ..) => Held::Presence {
                nonce: v.as_ref().map(|v| v.nonce.clone()),
                cap: v
                    .as_ref()
                    .and_then(|v| (v.max_in_flight > 0).then_some(v.max_in_flight)),
                created_ms,
            },
            LeaseItem::Leader(v) => Held::Leader {
                owner: v.owner.clone(),
                created_ms,
            },
            LeaseItem::Lease(..) | LeaseItem::Ignored => Held::Other,
        }
    }
}

/// The fleet change of `op` on the lease bucket, given what its key held before and after (`None`:
/// no entry, or a value that could not be read) and the bucket's `max_age` (for an expiry's time).
/// `None`: not such a change (a renewal, a split lease, a marker of a key already gone).
pub(super) fn fleet_change(
    side: Side,
    op: &LiveOp,
    (before, after): (Option<&Held>, Option<&Held>),
    max_age_ms: u64,
) -> Option<FleetChange> {
    if side != Side::Lease {
        return None;
    }
    let key = match op {
        LiveOp::Put(e) => e.key.as_str(),
        LiveOp::Delete { key, .. } | LiveOp::Expire { key, .. } => key.as_str(),
    };
    if let Some(member) = key.strip_prefix("worker.") {
        presence_change(member, op, (before, after), max_age_ms)
    } else if key == "leader" {
        leader_change(op, (before, after), max_age_ms)
    } else {
        None
    }
}

fn change(kind: FleetChangeKind, member: &str, at_ms: i64) -> FleetChange {
    FleetChange {
        kind,
        member: member.to_string(),
        at_ms,
        cap: None,
        previous: None,
    }
}

/// When an entry written at `created_ms` is dropped by a bucket whose `max_age` is `max_age_ms`.
fn lapsed_at(created_ms: i64, max_age_ms: u64) -> i64 {
    created_ms.saturating_add(i64::try_from(max_age_ms).unwrap_or(i64::MAX))
}

fn presence_change(
    member: &str,
    op: &LiveOp,
    (before, after): (Option<&Held>, Option<&Held>),
    max_age_ms: u64,
) -> Option<FleetChange> {
    let (was_nonce, was_cap, was_created) = match before {
        Some(Held::Presence {
            nonce,
            cap,
            created_ms,
        }) => (Some(nonce), *cap, Some(*created_ms)),
        _ => (None, None, None),
    };
    match op {
        LiveOp::Put(e) => {
            let Some(Held::Presence { nonce, cap, .. }) = after else {
                return None;
            };
            let (nonce, cap) = (nonce.clone(), *cap);
            match was_nonce {
                None => Some(change(FleetChangeKind::Joined, member, e.created_ms)),
                Some(old) if *old != nonce => Some(change(FleetChangeKind::Restarted, member, e.created_ms)),
                Some(_) if was_cap != cap => Some(FleetChange {
                    cap: Some((was_cap, cap)),
                    ..change(FleetChangeKind::Cap, member, e.created_ms)
                }),
                Some(_) => None,
            }
        }
        LiveOp::Delete {
            created_ms, purge, ..
        } => {
            was_created?;
            let kind = if *purge {
                FleetChangeKind::Crashed
            } else {
                FleetChangeKind::Stopped
            };
            Some(change(kind, member, *created_ms))
        }
        LiveOp::Expire { .. } => {
            let created = was_created?;
            Some(change(
                FleetChangeKind::Crashed,
                member,
                lapsed_at(created, max_age_ms),
            ))
        }
    }
}

fn leader_change(
    op: &LiveOp,
    (before, after): (Option<&Held>, Option<&Held>),
    max_age_ms: u64,
) -> Option<FleetChange> {
    let (was, was_created) = match before {
        Some(Held::Leader { owner, created_ms }) => (Some(owner.clone()), Some(*created_ms)),
        _ => (None, None),
    };
    let (now, at_ms) = match op {
        LiveOp::Put(_) => match after {
            Some(Held::Leader { owner, created_ms }) => (Some(owner.clone()), *created_ms),
            _ => return None,
        },
        LiveOp::Delete { created_ms, .. } => (None, *created_ms),
        LiveOp::Expire { .. } => (None, lapsed_at(was_created?, max_age_ms)),
    };
    if was == now || (was.is_none() && now.is_none()) {
        return None;
    }
    Some(FleetChange {
        previous: was,
        ..change(FleetChangeKind::Leader, now.as_deref().unwrap_or(""), at_ms)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::snapshot::Entry;

    /// What a presence with `nonce` and `cap` written at `created_ms` holds.
    fn presence(nonce: &str, cap: u32, created_ms: i64) -> Held {
        Held::Presence {
            nonce: Some(nonce.into()),
            cap: Some(cap),
            created_ms,
        }
    }

    /// A put of `key` at `created_ms` (its value is read through `after`).
    fn put(key: &str, created_ms: i64) -> LiveOp {
        LiveOp::Put(Entry {
            key: key.into(),
            revision: 9,
            created_ms,
            value: Vec::new(),
        })
    }

    #[test]
    fn a_lapsed_presence_is_a_crash_at_its_last_write_plus_the_ttl() {
        let was = presence("n1", 8, 1_000);
        let op = LiveOp::Expire {
            key: "worker.w-1".into(),
            revision: 1,
        };
        let c = fleet_change(Side::Lease, &op, (Some(&was), None), 30_000).expect("a change");
        assert_eq!(
            (c.kind, c.member.as_str(), c.at_ms),
            (FleetChangeKind::Crashed, "w-1", 31_000)
        );
    }

    #[test]
    fn a_delete_marker_is_a_stop_and_a_purge_marker_a_crash_at_the_markers_time() {
        let was = presence("n1", 8, 1_000);
        let del = |purge| LiveOp::Delete {
            key: "worker.w-1".into(),
            revision: 2,
            created_ms: 5_000,
            purge,
        };
        let stop = fleet_change(Side::Lease, &del(false), (Some(&was), None), 30_000).expect("a change");
        let crash = fleet_change(Side::Lease, &del(true), (Some(&was), None), 30_000).expect("a change");
        assert_eq!((stop.kind, stop.at_ms), (FleetChangeKind::Stopped, 5_000));
        assert_eq!((crash.kind, crash.at_ms), (FleetChangeKind::Crashed, 5_000));
        // The marker of a key already gone (a stop's later expiry marker) is no second change.
        assert_eq!(fleet_change(Side::Lease, &del(true), (None, None), 30_000), None);
    }

    #[test]
    fn puts_are_joins_restarts_and_cap_changes_but_a_renewal_is_nothing() {
        let was = presence("n1", 8, 1_000);
        let op = put("worker.w-1", 2_000);
        let kind = |before: Option<&Held>, after: &Held| {
            fleet_change(Side::Lease, &op, (before, Some(after)), 30_000).map(|c| c.kind)
        };
        assert_eq!(
            kind(None, &presence("n1", 8, 2_000)),
            Some(FleetChangeKind::Joined)
        );
        assert_eq!(
            kind(Some(&was), &presence("n2", 8, 2_000)),
            Some(FleetChangeKind::Restarted)
        );
        assert_eq!(kind(Some(&was), &presence("n1", 8, 2_000)), None);
        let cap = fleet_change(
            Side::Lease,
            &op,
            (Some(&was), Some(&presence("n1", 4, 2_000))),
            30_000,
        )
        .expect("a change");
        assert_eq!(
            (cap.kind, cap.cap, cap.at_ms),
            (FleetChangeKind::Cap, Some((Some(8), Some(4))), 2_000)
        );
        // The state bucket's keys are never fleet changes.
        assert_eq!(
            fleet_change(Side::State, &op, (None, Some(&presence("n1", 8, 2_000))), 30_000),
            None
        );
    }

    #[test]
    fn the_leader_key_names_another_owner() {
        let leader = |owner: &str| Held::Leader {
            owner: owner.into(),
            created_ms: 7_000,
        };
        let op = put("leader", 7_000);
        let c = fleet_change(
            Side::Lease,
            &op,
            (Some(&leader("w-1")), Some(&leader("w-2"))),
            30_000,
        )
        .expect("a change");
        assert_eq!(
            (c.kind, c.member.as_str(), c.previous.as_deref()),
            (FleetChangeKind::Leader, "w-2", Some("w-1"))
        );
        assert_eq!(
            fleet_change(
                Side::Lease,
                &op,
                (Some(&leader("w-1")), Some(&leader("w-1"))),
                30_000
            ),
            None
        );
    }
}
