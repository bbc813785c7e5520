//! What a run's recovery figure rests on, in words (docs/simulator.md, "Why a split does not run
//! again"): how many splits the events took, which of them never ran again and why (grouped by
//! reason, the largest group first), what else stopped, and what was idle or quarantined before
//! the first event — the starting fleet's, not the events' doing. `simulate`, the Timeline tab
//! and the review document's Timeline section say these same sentences.

use crate::outcome::{Document, Figures, NotRecovered, Outcome, RecoveryText, Stuck};
use crate::script::Script;
use crate::start::StartFrom;
use crate::words::thousands;
use serde::Serialize;

impl Stuck {
    /// The reason in words; `member` is the one it names (the lease's gone process, the departed
    /// owner, or the member it is given to), or a group's members joined.
    pub fn words(self, member: Option<&str>) -> String {
        let or = |default: &str| member.unwrap_or(default).to_string();
        match self {
            Stuck::ParkedByRace => "parked by the claim race right after a claim: it never runs again".into(),
            Stuck::Quarantined => "quarantined: its attempts ran out".into(),
            Stuck::LeasedByGone => format!(
                "still leased by {} that is gone (the lease expires a lease duration after its last write)",
                or("a process")
            ),
            Stuck::NoLeader => "nobody leads, so nobody assigns it".into(),
            Stuck::Withheld => format!(
                "still withheld by the rebalance delay ({} departed)",
                or("its owner")
            ),
            Stuck::NoSpec => "no spec: no worker may claim it".into(),
            Stuck::NoFreeLane => "no free lane: the leader's plan queues it".into(),
            Stuck::MemberFull => format!("given to {}, whose lanes are all held", or("a member")),
            Stuck::Pending => format!("given to {}, not claimed yet", or("a member")),
        }
    }
}

/// The splits not recovered for one reason: how many, the members named (first seen first) and
/// the splits (in the list's order).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct StuckGroup {
    pub reason: Stuck,
    pub count: u64,
    pub members: Vec<String>,
    pub splits: Vec<String>,
}

impl StuckGroup {
    /// The group as a phrase: `2 given to worker-03 or worker-05, whose lanes are all held`.
    pub fn phrase(&self) -> String {
        let who = match self.members.len() {
            0 => None,
            1..=3 => Some(self.members.join(" or ")),
            n => Some(format!("{} and {} more", self.members[..3].join(", "), n - 3)),
        };
        format!(
            "{} {}",
            thousands(self.count.into()),
            self.reason.words(who.as_deref())
        )
    }
}

/// The not-recovered splits by reason, the largest group first (equal ones in the order their
/// first split comes).
pub fn stuck_groups(list: &[NotRecovered]) -> Vec<StuckGroup> {
    let mut groups: Vec<StuckGroup> = Vec::new();
    for n in list {
        let at = match groups.iter().position(|g| g.reason == n.reason) {
            Some(at) => at,
            None => {
                groups.push(StuckGroup {
                    reason: n.reason,
                    count: 0,
                    members: Vec::new(),
                    splits: Vec::new(),
                });
                groups.len() - 1
            }
        };
        let g = &mut groups[at];
        g.count += 1;
        g.splits.push(n.split.clone());
        if let Some(m) = n.member.as_ref().filter(|m| !g.members.contains(m)) {
            g.members.push(m.clone());
        }
    }
    groups.sort_by_key(|g| std::cmp::Reverse(g.count));
    groups
}

/// `n noun` or `n nouns`, with thousands separators.
fn count(n: u64, noun: &str) -> String {
    format!("{} {noun}{}", thousands(n.into()), if n == 1 { "" } else { "s" })
}

/// The sentences for `f`. `has_events`: the script has events (without, there is nothing to
/// say); `planned`: the run started from the fleet settled on its plan (what was idle then is
/// the plan's queue).
pub fn recovery_text(f: &Figures, has_events: bool, planned: bool) -> RecoveryText {
    if !has_events {
        return RecoveryText::default();
    }
    let n = f.not_recovered.len() as u64;
    let taken = if f.splits_taken == 0 {
        "The events took no split (none ran on a member that crashed or stopped): recovery is immediate."
            .to_string()
    } else {
        format!(
            "The events took {} (running on a member as it crashed or stopped, or failed){}.",
            count(f.splits_taken, "split"),
            if n == 0 { "; every one runs again" } else { "" }
        )
    };
    let stuck = (n > 0).then(|| {
        let groups: Vec<String> = stuck_groups(&f.not_recovered)
            .iter()
            .map(StuckGroup::phrase)
            .collect();
        format!(
            "Not recovered: {} of them never ran again — {}.",
            thousands(n.into()),
            groups.join("; ")
        )
    });
    let others = (f.others_not_running > 0).then(|| {
        let one = f.others_not_running == 1;
        format!(
            "{} that ran before the first event {} not run at the end (the leader moved {}, and had no lane).",
            count(f.others_not_running, "other split"),
            if one { "does" } else { "do" },
            if one { "it" } else { "them" }
        )
    });
    let whose = if planned {
        "the settled fleet's own (what its plan queues, and its quarantined splits), not the events' doing"
    } else {
        "the snapshot's own, not the events' doing (start from the fleet settled on its plan to leave its motion out)"
    };
    let before = (f.idle_before > 0 || f.quarantined_before > 0).then(|| {
        format!(
            "Before the first event {} {} idle and {} quarantined: {whose}.",
            count(f.idle_before, "split"),
            if f.idle_before == 1 { "was" } else { "were" },
            thousands(f.quarantined_before.into())
        )
    });
    RecoveryText {
        taken: Some(taken),
        stuck,
        others,
        before,
    }
}

impl Outcome {
    /// The one document of `spate-planner simulate --json` (and the wasm module's `simulate`):
    /// [`Outcome::document`] with what the recovery rests on in words (`recovery`,
    /// [`recovery_text`]), which needs the script it ran.
    pub fn document_of(&self, script: &Script) -> Document<'_> {
        let planned = script.start == StartFrom::Planned;
        Document {
            recovery: Some(recovery_text(&self.figures, !script.events.is_empty(), planned)),
            ..self.document()
        }
    }
}
