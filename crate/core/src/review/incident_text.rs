//! The words of an incident at an instant: the card the dashboard shows first, the lines
//! `watch` prints, and their JSON (docs/live-protocol.md, "Incidents"). Every sentence and
//! figure is made here; the page and the terminal only show them.

use super::incident::{claim_race_per_mille, Incident, IncidentLog, Prediction, SeedRun, Tally};
use crate::live::FleetChangeKind;
use crate::report::human_bytes;
use crate::utc::{span_text, utc_clock, utc_text};
use serde::Serialize;

/// Where an incident stands at an instant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum IncidentPhase {
    /// The rebalance window is open: the departed member's splits are withheld.
    Withheld,
    /// The window's earliest end has passed; the store shows no publish ending it yet.
    Due,
    /// The leader has handed the splits out; some are not running again yet.
    Released,
    /// Every withheld split runs again (or completed, or was quarantined).
    Settled,
    /// The member came back within the window: cancelled, its splits stay with it.
    Returned,
    /// Nothing is withheld: the change needs no waiting.
    Informational,
}

/// One receiving member of a departure's splits (`member` `None`: left queued by the plan).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ReceiverRow {
    pub member: Option<String>,
    pub splits: u64,
    pub bytes: u64,
    pub text: String,
}

/// An incident as shown at an instant.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct IncidentView {
    pub id: u64,
    pub kind: FleetChangeKind,
    pub member: String,
    /// The store's time of the change.
    pub at_ms: i64,
    pub at_text: String,
    pub ago_text: String,
    pub phase: IncidentPhase,
    /// A few words: "worker-01 crashed".
    pub title: String,
    /// What happened and when.
    pub happened: String,
    /// What the leader does and when (the window counted down).
    pub leader: String,
    /// The window's bounds, when there is one: earliest end, latest end (ms since the epoch).
    pub window_ends_ms: Option<i64>,
    pub window_ends_by_ms: Option<i64>,
    pub withheld: Tally,
    /// Who takes which splits when the window ends, heaviest first.
    pub receivers: Vec<ReceiverRow>,
    /// What is at risk.
    pub risk: Vec<String>,
    /// When the fleet is whole again, as the simulator predicts it (empty: no prediction).
    pub recovery: Vec<String>,
    /// The predicted range of the instant every withheld split runs again (ms since the epoch).
    pub recovery_from_ms: Option<i64>,
    pub recovery_to_ms: Option<i64>,
    /// Whether the real fleet did what was predicted (empty until the leader acts).
    pub verdict: Vec<String>,
}

fn splits_text(t: Tally) -> String {
    counted(t, "")
}

/// The withheld splits: runnable ones only (a completed or quarantined split the member owned is
/// not waiting to run, though the findings' "withheld" count includes it).
fn runnable_text(t: Tally) -> String {
    counted(t, "runnable ")
}

/// "2 runnable splits (1.0 GiB)"
fn counted(t: Tally, adjective: &str) -> String {
    let noun = if t.splits == 1 { "split" } else { "splits" };
    format!("{} {adjective}{noun} ({})", t.splits, human_bytes(t.bytes))
}

/// "in 12 s" / "12 s ago" / "now".
fn relative(at_ms: i64, now_ms: i64) -> String {
    match at_ms.saturating_sub(now_ms) {
        d if d >= 1000 => format!("in {}", span_text(d)),
        d if d <= -1000 => format!("{} ago", span_text(d.saturating_neg())),
        _ => "now".into(),
    }
}

fn title(i: &Incident) -> String {
    let m = &i.change.member;
    match i.change.kind {
        FleetChangeKind::Crashed => format!("{m} crashed"),
        FleetChangeKind::Stopped => format!("{m} stopped"),
        FleetChangeKind::Joined => format!("{m} joined"),
        FleetChangeKind::Restarted => format!("{m} restarted"),
        FleetChangeKind::Cap => format!("{m}'s cap changed"),
        FleetChangeKind::Leader if m.is_empty() => "the leader key went".into(),
        FleetChangeKind::Leader => format!("{m} leads"),
    }
}

fn cap_words(c: Option<u32>) -> String {
    c.map_or("no cap of its own".into(), |c| c.to_string())
}

fn happened(i: &Incident, now_ms: i64) -> String {
    let c = &i.change;
    let when = format!("at {} ({})", utc_text(c.at_ms), relative(c.at_ms, now_ms));
    let m = &c.member;
    match c.kind {
        FleetChangeKind::Crashed => {
            format!("{m}'s presence lapsed {when}: it stopped renewing it (a crash or a partition).")
        }
        FleetChangeKind::Stopped => format!("{m} deleted its presence {when}: a graceful stop."),
        FleetChangeKind::Joined => format!("{m} announced its presence {when}."),
        FleetChangeKind::Restarted => {
            format!("{m} was written by a new process {when}: a restart under the same name.")
        }
        FleetChangeKind::Cap => {
            let (was, now) = c.cap.unwrap_or_default();
            format!(
                "{m}'s cap changed from {} to {} {when}.",
                cap_words(was),
                cap_words(now)
            )
        }
        FleetChangeKind::Leader => {
            let was = c.previous.as_deref().unwrap_or("(none)");
            let now = if m.is_empty() { "(none)" } else { m };
            format!("The leader key changed from {was} to {now} {when}.")
        }
    }
}

fn phase(i: &Incident, now_ms: i64) -> IncidentPhase {
    let Some(w) = i.window.filter(|_| !i.withheld.is_empty()) else {
        return IncidentPhase::Informational;
    };
    if i.outcome.returned_ms.is_some() {
        return IncidentPhase::Returned;
    }
    match (i.outcome.released_ms, i.outcome.settled_ms) {
        (_, Some(_)) => IncidentPhase::Settled,
        (Some(_), None) => IncidentPhase::Released,
        (None, None) if now_ms < w.ends_ms => IncidentPhase::Withheld,
        (None, None) => IncidentPhase::Due,
    }
}

fn leader_words(i: &Incident, p: IncidentPhase, now_ms: i64) -> String {
    let Some(w) = i.window else {
        return match i.change.kind {
            FleetChangeKind::Leader => {
                "The new leader publishes at its first step; every member keeps what it holds meanwhile."
                    .into()
            }
            _ if i.gains.splits > 0 => format!(
                "The leader's plan gives {} {} it does not hold; it moves them at its next publish.",
                i.change.member,
                splits_text(i.gains)
            ),
            _ => format!(
                "The leader's plan gives {} nothing it does not already hold.",
                i.change.member
            ),
        };
    };
    let t = i.withheld_tally();
    let (end, by) = (utc_clock(w.ends_ms), utc_clock(w.ends_by_ms));
    match p {
        IncidentPhase::Informational => {
            "Its records name it as owner of no runnable split: nothing is withheld, and the leader reassigns at its next publish.".into()
        }
        IncidentPhase::Returned => format!(
            "It came back at {}: the window is cancelled and its {} stay with it (timing.md §5.3).",
            i.outcome.returned_ms.map_or_else(|| "?".into(), utc_clock),
            runnable_text(t)
        ),
        IncidentPhase::Withheld | IncidentPhase::Due if w.ends_by_ms == w.from_ms => format!(
            "With no rebalance delay the leader withholds nothing: it hands its {} out in the step that sees it gone.",
            runnable_text(t)
        ),
        IncidentPhase::Withheld => format!(
            "The leader withholds its {} until {end} at the earliest ({}) and {by} at the latest ({}), then hands them out as below.",
            runnable_text(t),
            relative(w.ends_ms, now_ms),
            relative(w.ends_by_ms, now_ms)
        ),
        IncidentPhase::Due if now_ms < w.ends_by_ms => format!(
            "The window ended at {end}: the leader hands its {} out at its next publish, by {by} ({}).",
            runnable_text(t),
            relative(w.ends_by_ms, now_ms)
        ),
        IncidentPhase::Due => format!(
            "The window ended at {end} and the latest publish was due by {by}, {} ago: the store shows no publish handing its {} out yet (is the leader running?).",
            span_text(now_ms.saturating_sub(w.ends_by_ms)),
            runnable_text(t)
        ),
        IncidentPhase::Released | IncidentPhase::Settled => {
            let at = i.outcome.released_ms.unwrap_or(w.ends_ms);
            format!(
                "The leader handed its {} out by {} ({} after it left; the window allowed {} to {}).",
                runnable_text(t),
                utc_clock(at),
                span_text(at.saturating_sub(w.from_ms)),
                span_text(w.ends_ms.saturating_sub(w.from_ms)),
                span_text(w.ends_by_ms.saturating_sub(w.from_ms))
            )
        }
    }
}

fn receivers(i: &Incident) -> Vec<ReceiverRow> {
    let mut rows: Vec<ReceiverRow> = i
        .receivers()
        .into_iter()
        .map(|(m, t)| ReceiverRow {
            member: m.map(str::to_string),
            splits: t.splits,
            bytes: t.bytes,
            text: match m {
                Some(m) => format!("{m} takes {}", splits_text(t)),
                None => format!("{} stay queued: no member has a free lane", splits_text(t)),
            },
        })
        .collect();
    rows.sort_by(|a, b| b.bytes.cmp(&a.bytes).then(b.splits.cmp(&a.splits)));
    rows
}

fn risk(i: &Incident) -> Vec<String> {
    let mut out = Vec::new();
    if i.withheld.is_empty() || i.change.kind != FleetChangeKind::Crashed {
        return out;
    }
    let a = i.max_attempts;
    let from = if i.max_attempts_set {
        format!("max_attempts {a}, as set")
    } else {
        format!("max_attempts {a}, Spate's default; the store does not record it")
    };
    let lost = i.at_attempts(a.saturating_sub(1));
    if lost.splits > 0 {
        out.push(format!(
            "{} at attempts {} of {a}: taking over a crashed owner's split costs an attempt, so they are quarantined when their leases expire and never run again ({from}).",
            splits_text(lost),
            a.saturating_sub(1)
        ));
    }
    let exposed = if a >= 2 {
        i.exactly_at(a - 2)
    } else {
        Tally::default()
    };
    if exposed.splits > 0 {
        let p = f64::from(claim_race_per_mille(i.rules)) / 1000.0;
        let m = i32::try_from(i.peers.saturating_sub(1)).unwrap_or(i32::MAX);
        let each = 1.0 - (1.0 - p).powi(m);
        out.push(format!(
            "{} at attempts {} of {a}: the takeover writes {} and the claim race (timing.md §6.7: p ≈ {p} per live peer) parks each with probability about {:.0}% with {m} peer(s), about {:.1} expected ({from}).",
            splits_text(exposed),
            a - 2,
            a - 1,
            each * 100.0,
            each * exposed.splits as f64
        ));
    }
    out
}

/// The recovered runs' instants, sorted (ms since the epoch).
fn recovered_at(p: &Prediction) -> Vec<i64> {
    let mut at: Vec<i64> = p
        .runs
        .iter()
        .flatten()
        .filter_map(|r| r.recovery_ms)
        .map(|ms| p.from_ms.saturating_add(i64::try_from(ms).unwrap_or(i64::MAX)))
        .collect();
    at.sort_unstable();
    at
}

fn recovery(i: &Incident) -> Vec<String> {
    let Some(p) = &i.prediction else {
        return Vec::new();
    };
    let runs = match &p.runs {
        Ok(r) => r,
        Err(e) => return vec![format!("No recovery prediction: {e}")],
    };
    let n = runs.len();
    let at = recovered_at(p);
    let mut out = Vec::new();
    if !runs.is_empty() && runs.iter().all(|r| r.recovery_ms == Some(0)) {
        // The crash took no split in any seed: its splits already run elsewhere.
        out.push(format!(
            "Nothing to recover (simulated, {n} seeds): every split it owned already runs on another member."
        ));
    } else if let (Some(first), Some(last)) = (at.first(), at.last()) {
        out.push(format!(
            "Whole again by {} to {} (median {}; {} of {n} simulated seeds; {} to {} after the lapse).",
            utc_clock(*first),
            utc_clock(*last),
            utc_clock(at[(at.len() - 1) / 2]),
            at.len(),
            span_text(first.saturating_sub(p.from_ms)),
            span_text(last.saturating_sub(p.from_ms)),
        ));
    }
    let never = n - at.len();
    let seeds = |f: fn(&SeedRun) -> u64| {
        (
            runs.iter().filter(|r| f(r) > 0).count(),
            runs.iter().map(f).max().unwrap_or(0),
        )
    };
    let (parked, most_parked) = seeds(|r| r.parked);
    if parked > 0 {
        out.push(format!(
            "{parked} of {n} seeds park splits by the claim race (timing.md §6.7; up to {most_parked} in a seed): they never run again."
        ));
    }
    let (quarantined, most) = seeds(|r| r.quarantined);
    if quarantined > 0 {
        out.push(format!(
            "{quarantined} of {n} seeds quarantine splits at the attempt limit (up to {most} in a seed)."
        ));
    }
    if never > 0 {
        out.push(format!("In {never} of {n} seeds some split never runs again."));
    }
    out
}

fn verdict(i: &Incident) -> Vec<String> {
    let o = &i.outcome;
    let Some(released) = o.released_ms else {
        return Vec::new();
    };
    let placed = i.withheld.values().filter(|w| w.receiver.is_some()).count() as u64;
    let mut out = vec![format!(
        "Published as predicted: {} of {placed}{}.",
        o.published_as_predicted,
        if o.published_elsewhere > 0 {
            format!(" ({} to another member)", o.published_elsewhere)
        } else {
            String::new()
        }
    )];
    out.push(format!(
        "Claimed by the predicted member: {} of {placed}; by another: {}; not yet: {}.",
        o.claimed_as_predicted, o.claimed_elsewhere, o.unclaimed
    ));
    if o.quarantined > 0 {
        out.push(format!(
            "Quarantined since: {} (they never run again).",
            o.quarantined
        ));
    }
    if let (Some(s), Some(w)) = (o.settled_ms, i.window) {
        out.push(format!(
            "Running again (or done) by {}: {} after it left, {} after the leader handed them out.",
            utc_clock(s),
            span_text(s.saturating_sub(w.from_ms)),
            span_text(s.saturating_sub(released))
        ));
        if let Some(p) = &i.prediction {
            let at = recovered_at(p);
            if let (Some(first), Some(last)) = (at.first(), at.last()) {
                let word = match s {
                    s if s < *first => "earlier than",
                    s if s > *last => "later than",
                    _ => "within",
                };
                out.push(format!(
                    "That is {word} the simulated range ({} to {}).",
                    utc_clock(*first),
                    utc_clock(*last)
                ));
            }
        }
    }
    out
}

/// Every incident of `log` at `now_ms`: those still awaited first (a crash whose splits are
/// withheld, due or not yet running again: the card shows the first), newest first within each.
/// A leader change that follows a crash by milliseconds never hides the crash.
pub fn incident_views(log: &IncidentLog, now_ms: i64) -> Vec<IncidentView> {
    let (open, closed): (Vec<&Incident>, Vec<&Incident>) =
        log.incidents().iter().rev().partition(|i| !i.closed());
    open.into_iter().chain(closed).map(|i| view(i, now_ms)).collect()
}

/// `i` at `now_ms`.
fn view(i: &Incident, now_ms: i64) -> IncidentView {
    let p = phase(i, now_ms);
    IncidentView {
        id: i.id,
        kind: i.change.kind,
        member: i.change.member.clone(),
        at_ms: i.change.at_ms,
        at_text: utc_text(i.change.at_ms),
        ago_text: relative(i.change.at_ms, now_ms),
        phase: p,
        title: title(i),
        happened: happened(i, now_ms),
        leader: leader_words(i, p, now_ms),
        window_ends_ms: i.window.map(|w| w.ends_ms),
        window_ends_by_ms: i.window.map(|w| w.ends_by_ms),
        withheld: i.withheld_tally(),
        receivers: receivers(i),
        risk: risk(i),
        recovery: recovery(i),
        recovery_from_ms: i
            .prediction
            .as_ref()
            .and_then(|p| recovered_at(p).first().copied()),
        recovery_to_ms: i
            .prediction
            .as_ref()
            .and_then(|p| recovered_at(p).last().copied()),
        verdict: verdict(i),
    }
}
