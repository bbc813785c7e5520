//! What the store shows of the leader's memory (decision-core.md section 7): its own cap, and
//! the instances that departed within the rebalance delay.

use super::model::{Fleet, SPATE_DEFAULT_CAP};
use serde::Serialize;
use std::collections::BTreeSet;

/// Where the leader's default cap comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum CapSource {
    /// Set by the user (`--default-cap`, or the scenario's `default_cap` / `set_default_cap`).
    User,
    /// The leader's own `max_in_flight`, from its presence value.
    LeaderPresence,
    /// Not shown by the store: Spate's default 8.
    SpateDefault,
}

/// Why the store does not show the leader's own cap.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum CapUnknown {
    /// There is no `leader` record.
    NoLeaderRecord,
    /// The leader record names an instance with no presence key.
    LeaderNotPresent,
    /// The leader's presence value does not parse.
    PresenceUnreadable,
    /// The leader's presence value has no `max_in_flight` (or 0).
    NoCap,
}

/// The leader's default cap (its own `max_in_flight`) and where it comes from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct DefaultCap {
    pub value: u32,
    pub source: CapSource,
    /// The leader instance, when the `leader` record names one.
    pub leader: Option<String>,
    /// Why the store does not show it, when [`CapSource::SpateDefault`].
    pub unknown: Option<CapUnknown>,
}

impl DefaultCap {
    /// A cap the user set.
    pub fn user(value: u32, leader: Option<String>) -> DefaultCap {
        DefaultCap {
            value,
            source: CapSource::User,
            leader,
            unknown: None,
        }
    }

    /// One sentence for people: the value and its source.
    pub fn explain(&self) -> String {
        let who = self.leader.as_deref().unwrap_or("?");
        match (self.source, self.unknown) {
            (CapSource::User, _) => format!("{} (set by the user)", self.value),
            (CapSource::LeaderPresence, _) => {
                format!(
                    "{} (the leader {who:?}'s own max_in_flight, from its presence)",
                    self.value
                )
            }
            (CapSource::SpateDefault, why) => format!(
                "{} (Spate's default: {}; set --default-cap if the leader runs with another max_in_flight)",
                self.value,
                match why {
                    Some(CapUnknown::NoLeaderRecord) | None => "no leader record".to_string(),
                    Some(CapUnknown::LeaderNotPresent) => format!("the leader {who:?} has no presence key"),
                    Some(CapUnknown::PresenceUnreadable) =>
                        format!("the leader {who:?}'s presence value is unreadable"),
                    Some(CapUnknown::NoCap) =>
                        format!("the leader {who:?}'s presence value carries no max_in_flight"),
                }
            ),
        }
    }
}

impl Fleet {
    /// The leader's own cap as the store shows it: the `leader` record's owner → that instance's
    /// presence `max_in_flight` when readable and > 0; else Spate's default 8, saying why.
    pub fn leader_cap(&self) -> DefaultCap {
        let leader = self.leader.as_ref().map(|l| l.owner.clone());
        let unknown = match leader.as_deref().map(|l| self.members.get(l)) {
            None => CapUnknown::NoLeaderRecord,
            Some(None) => CapUnknown::LeaderNotPresent,
            Some(Some(m)) if !m.readable => CapUnknown::PresenceUnreadable,
            Some(Some(m)) => match m.max_in_flight {
                Some(cap) => {
                    return DefaultCap {
                        value: cap,
                        source: CapSource::LeaderPresence,
                        leader,
                        unknown: None,
                    }
                }
                None => CapUnknown::NoCap,
            },
        };
        DefaultCap {
            value: SPATE_DEFAULT_CAP,
            source: CapSource::SpateDefault,
            leader,
            unknown: Some(unknown),
        }
    }

    /// Instances that departed within the rebalance delay, as the store shows them: a readable
    /// `assign.{X}` record with no `worker.{X}` presence key. The leader deletes the record of
    /// every instance neither present nor inside its window at each publish, and publishes at
    /// least every reconcile interval. (An unreadable record is not in the leader's cache, so it
    /// never deletes it: such a record says nothing about a departure.)
    pub fn recent_departures(&self) -> BTreeSet<String> {
        self.published
            .keys()
            .filter(|x| !self.members.contains_key(*x))
            .cloned()
            .collect()
    }
}
