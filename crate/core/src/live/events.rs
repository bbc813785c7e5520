//! What happened between two frames of a live job, as the page's timeline rows
//! (docs/live-protocol.md, "A frame's events"): members joined and left, caps, the leader and
//! the plan generation changed (the two fleets shown compared), the whole state read again, and
//! per key changed since the last frame: splits claimed, completed and quarantined, assignments
//! published and removed (what the key held then against what it holds now).

use crate::fleet::{Fleet, Side};
use crate::records::SplitStatus;
use crate::snapshot::Entry;
use serde::Serialize;
use std::collections::BTreeMap;

/// A row names at most this many (the text counts the rest).
pub(super) const MAX_NAMES: usize = 8;

/// What a row tells.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum EventKind {
    Joined,
    Left,
    Cap,
    Leader,
    Plan,
    Resync,
    Claimed,
    Completed,
    Quarantined,
    Published,
}

/// One timeline row: its kind, its sentence and the names it mentions (at most [`MAX_NAMES`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct LiveEvent {
    pub kind: EventKind,
    pub text: String,
    pub names: Vec<String>,
}

/// "a, b, c and 5 more"
pub fn names_text(names: &[String]) -> String {
    let shown = names[..names.len().min(MAX_NAMES)].join(", ");
    match names.len().checked_sub(MAX_NAMES) {
        Some(more) if more > 0 => format!("{shown} and {more} more"),
        _ => shown,
    }
}

/// A row of `names` (none: no row): `verb` for one, `plural` for more, counted.
fn row(out: &mut Vec<LiveEvent>, kind: EventKind, (verb, plural): (&str, &str), names: Vec<String>) {
    if names.is_empty() {
        return;
    }
    let text = match names.len() {
        1 => format!("{verb}: {}", names_text(&names)),
        n => format!("{n} {plural}: {}", names_text(&names)),
    };
    let names = names.into_iter().take(MAX_NAMES).collect();
    out.push(LiveEvent { kind, text, names });
}

/// What the rows compare of a fleet shown: members with their caps, leader, plan generation.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Shown {
    members: BTreeMap<String, Option<u32>>,
    leader: Option<String>,
    plan_generation: Option<u64>,
}

impl Shown {
    pub(super) fn of(f: &Fleet) -> Shown {
        Shown {
            members: f
                .members
                .iter()
                .map(|(n, m)| (n.clone(), m.max_in_flight))
                .collect(),
            leader: f.leader.as_ref().map(|l| l.owner.clone()),
            plan_generation: f.plan.as_ref().map(|p| p.generation),
        }
    }
}

fn cap_text(cap: Option<u32>) -> String {
    cap.map_or("no cap of its own".into(), |c| format!("cap {c}"))
}

fn or_none<T: ToString>(v: &Option<T>) -> String {
    v.as_ref().map_or("(none)".into(), T::to_string)
}

/// Members joined and left, caps changed, the leader and the plan generation changed.
pub(super) fn fleet_rows(out: &mut Vec<LiveEvent>, was: &Shown, now: &Shown) {
    let joined = now.members.keys().filter(|n| !was.members.contains_key(*n));
    let left = was.members.keys().filter(|n| !now.members.contains_key(*n));
    let caps = now
        .members
        .iter()
        .filter_map(|(n, cap)| match was.members.get(n) {
            Some(before) if before != cap => Some(format!("{n} {} → {}", cap_text(*before), cap_text(*cap))),
            _ => None,
        });
    row(
        out,
        EventKind::Joined,
        ("member joined", "members joined"),
        joined.cloned().collect(),
    );
    row(
        out,
        EventKind::Left,
        ("member left", "members left"),
        left.cloned().collect(),
    );
    row(
        out,
        EventKind::Cap,
        ("cap changed", "caps changed"),
        caps.collect(),
    );
    if was.leader != now.leader {
        out.push(LiveEvent {
            kind: EventKind::Leader,
            text: format!("leader {} → {}", or_none(&was.leader), or_none(&now.leader)),
            names: now.leader.iter().filter(|l| !l.is_empty()).cloned().collect(),
        });
    }
    if was.plan_generation != now.plan_generation {
        out.push(LiveEvent {
            kind: EventKind::Plan,
            text: format!(
                "plan generation {} → {}",
                or_none(&was.plan_generation),
                or_none(&now.plan_generation)
            ),
            names: Vec::new(),
        });
    }
}

/// The row of a full state read again, at `revisions` (`S-L`).
pub(super) fn resync_row(revisions: &str) -> LiveEvent {
    LiveEvent {
        kind: EventKind::Resync,
        text: format!("the whole state was read again (revisions {revisions})"),
        names: Vec::new(),
    }
}

/// What the rows read of one key: its entry, and the split's lease owner or progress status.
#[derive(Clone, Debug, Default)]
pub(super) struct KeyFacts {
    pub entry: Option<Entry>,
    pub owner: Option<String>,
    pub status: Option<SplitStatus>,
}

/// One key changed since the last frame: what it held then and what it holds now.
pub(super) struct KeyChange<'a> {
    pub side: Side,
    pub key: &'a str,
    pub was: &'a KeyFacts,
    pub now: KeyFacts,
}

/// Names in the order their keys were last written (the revision of the entry held now).
#[derive(Default)]
struct Written(Vec<(u64, String)>);

impl Written {
    fn push(&mut self, now: &KeyFacts, name: String) {
        self.0.push((now.entry.as_ref().map_or(0, |e| e.revision), name));
    }

    fn names(mut self) -> Vec<String> {
        self.0.sort_by_key(|(rev, _)| *rev);
        self.0.into_iter().map(|(_, n)| n).collect()
    }
}

/// What one key's change tells, in the words of its row.
enum News {
    Claimed(String),
    Completed(String),
    Quarantined(String),
    Published(String),
    Removed(String),
}

/// A split claimed (a lease of another owner than before), completed or quarantined (a status
/// it did not have), an assignment published (written) or removed; nothing for a lease renewal,
/// a progress write that moves only the watermark, or any other key.
fn news_of(c: &KeyChange) -> Option<News> {
    let now = &c.now;
    if let Some(id) = c.key.strip_prefix("split.") {
        if c.side == Side::Lease {
            return match (&c.was.owner, &now.owner) {
                (Some(was), Some(o)) if was != o => Some(News::Claimed(format!("{id} by {o} (from {was})"))),
                (None, Some(o)) => Some(News::Claimed(format!("{id} by {o}"))),
                _ => None,
            };
        }
        let became = |s: SplitStatus| now.status == Some(s) && c.was.status != Some(s);
        if became(SplitStatus::Completed) {
            return Some(News::Completed(id.to_string()));
        }
        return became(SplitStatus::Quarantined).then(|| News::Quarantined(id.to_string()));
    }
    let x = c.key.strip_prefix("assign.").filter(|_| c.side == Side::State)?;
    let was = c.was.entry.as_ref().map(|e| e.revision);
    match (was, now.entry.as_ref().map(|e| e.revision)) {
        (w, Some(n)) if w != Some(n) => Some(News::Published(x.to_string())),
        (Some(_), None) => Some(News::Removed(x.to_string())),
        _ => None,
    }
}

/// Whether a key's change is news the timeline tells (see [`key_rows`]).
pub(super) fn is_news(c: &KeyChange) -> bool {
    news_of(c).is_some()
}

/// Splits claimed, completed and quarantined, assignments published, each in the order they
/// were written; and assignments removed, in key order.
pub(super) fn key_rows<'a>(out: &mut Vec<LiveEvent>, changes: impl Iterator<Item = KeyChange<'a>>) {
    let (mut claimed, mut completed, mut quarantined, mut published) = (
        Written::default(),
        Written::default(),
        Written::default(),
        Written::default(),
    );
    let mut removed = Vec::new();
    for c in changes {
        match news_of(&c) {
            Some(News::Claimed(t)) => claimed.push(&c.now, t),
            Some(News::Completed(id)) => completed.push(&c.now, id),
            Some(News::Quarantined(id)) => quarantined.push(&c.now, id),
            Some(News::Published(x)) => published.push(&c.now, x),
            Some(News::Removed(x)) => removed.push(x),
            None => {}
        }
    }
    row(
        out,
        EventKind::Claimed,
        ("split claimed", "splits claimed"),
        claimed.names(),
    );
    row(
        out,
        EventKind::Completed,
        ("split completed", "splits completed"),
        completed.names(),
    );
    let quarantine = ("split quarantined", "splits quarantined");
    row(out, EventKind::Quarantined, quarantine, quarantined.names());
    let publish = ("assignment published for", "assignments published for");
    row(out, EventKind::Published, publish, published.names());
    let remove = ("assignment removed for", "assignments removed for");
    row(out, EventKind::Published, remove, removed);
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn names(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("w{i}")).collect()
    }

    fn shown(members: &[(&str, Option<u32>)], leader: Option<&str>, generation: Option<u64>) -> Shown {
        Shown {
            members: members.iter().map(|(n, c)| (n.to_string(), *c)).collect(),
            leader: leader.map(str::to_string),
            plan_generation: generation,
        }
    }

    fn texts(rows: &[LiveEvent]) -> Vec<(EventKind, &str)> {
        rows.iter().map(|r| (r.kind, r.text.as_str())).collect()
    }

    #[test]
    fn two_fleets_compared_joined_left_caps_leader_and_plan_generation() {
        let prev = shown(&[("a", Some(4)), ("b", Some(2)), ("c", None)], Some("a"), Some(2));
        let next = shown(
            &[("a", Some(6)), ("c", Some(3)), ("d", Some(1))],
            Some("c"),
            Some(3),
        );
        let mut rows = Vec::new();
        fleet_rows(&mut rows, &prev, &next);
        assert_eq!(
            texts(&rows),
            [
                (EventKind::Joined, "member joined: d"),
                (EventKind::Left, "member left: b"),
                (
                    EventKind::Cap,
                    "2 caps changed: a cap 4 → cap 6, c no cap of its own → cap 3"
                ),
                (EventKind::Leader, "leader a → c"),
                (EventKind::Plan, "plan generation 2 → 3"),
            ]
        );
        rows.clear();
        fleet_rows(&mut rows, &prev, &prev);
        assert_eq!(rows, []);
    }

    #[test]
    fn a_row_names_at_most_max_names_then_counts_the_rest() {
        let all = names(MAX_NAMES + 3);
        assert_eq!(
            names_text(&all),
            format!("{} and 3 more", all[..MAX_NAMES].join(", "))
        );
        let mut rows = Vec::new();
        let members: Vec<(&str, Option<u32>)> = all.iter().map(|n| (n.as_str(), Some(1))).collect();
        fleet_rows(&mut rows, &shown(&[], None, None), &shown(&members, None, None));
        assert_eq!(rows[0].names.len(), MAX_NAMES);
        assert!(
            rows[0].text.starts_with("11 members joined: w0, "),
            "{}",
            rows[0].text
        );
        assert!(rows[0].text.ends_with(" and 3 more"), "{}", rows[0].text);
    }
}
