//! What the Timeline shows of a run besides its series: the marks on the time axis (the scripted
//! happenings and elections, the splits the claim race parked, and the recovery) and the run's summary (the rules followed, the
//! figures, the marks and how many claims, quarantines, elections and events it had). The page
//! draws these as given; the review document's Timeline section lists the marks in the same
//! words ([`mark_text`]).

use crate::outcome::RecoveryText;
use crate::outcome::{Figures, Outcome, What};
use crate::recovery::recovery_text;
use crate::script::Script;
use crate::start::StartFrom;
use crate::words::clock_text;
use serde::{Deserialize, Serialize};
use spate_planner_core::{Rules, RulesSource};

/// What a mark is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename = "SimMarkKind"))]
pub enum MarkKind {
    Crash,
    Stop,
    Start,
    Cap,
    Election,
    Splits,
    Fail,
    Ignored,
    /// Splits parked by the claim race (timing.md §6.7) right after a claim: they never run
    /// again.
    Parked,
    /// Every split the events took runs again (`recovery_ms` after the first scripted event).
    Recovered,
}

impl MarkKind {
    /// The kind in words (the chart's legend and the report say the same).
    pub fn words(self) -> &'static str {
        match self {
            MarkKind::Crash => "crashed",
            MarkKind::Stop => "stopped gracefully",
            MarkKind::Start => "started",
            MarkKind::Cap => "lane cap changed",
            MarkKind::Election => "leader elected",
            MarkKind::Splits => "splits added",
            MarkKind::Fail => "split failed",
            MarkKind::Ignored => "event ignored (nothing to act on)",
            MarkKind::Parked => "parked by the claim race right after a claim, never to run again",
            MarkKind::Recovered => "recovered: every split the events took runs again",
        }
    }

    /// The mark a timeline event makes, with whom it is about; `None` for events not marked.
    fn of(what: &What) -> Option<(MarkKind, String)> {
        Some(match what {
            What::Crashed { member } => (MarkKind::Crash, member.clone()),
            What::Stopped { member } => (MarkKind::Stop, member.clone()),
            What::Started { member, .. } => (MarkKind::Start, member.clone()),
            What::CapSet { member, .. } => (MarkKind::Cap, member.clone()),
            What::LeaderElected { member, .. } => (MarkKind::Election, member.clone()),
            What::SplitsAdded { count, prefix } => (MarkKind::Splits, format!("{count} × {prefix}…")),
            What::Failed { member, .. } => (MarkKind::Fail, member.clone()),
            What::Ignored { reason, .. } => (MarkKind::Ignored, reason.clone()),
            What::ParkedByRace { split, .. } => (MarkKind::Parked, split.clone()),
            _ => return None,
        })
    }
}

/// A mark on the time axis: a scripted happening or an election (several of one kind at one
/// instant folded into one), or the recovery.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename = "SimMark"))]
pub struct Mark {
    pub t_ms: u64,
    pub kind: MarkKind,
    /// Whom it is about: members, the ignored events' reasons, or the added splits (names from
    /// the store or the script).
    #[serde(default)]
    pub who: Vec<String>,
}

/// One sentence per mark: `0:45 crashed: worker-03` (at most three names, then how many more).
pub fn mark_text(m: &Mark) -> String {
    let who = match m.who.len() {
        0 => String::new(),
        n if n > 3 => format!(": {} and {} more", m.who[..3].join(", "), n - 3),
        _ => format!(": {}", m.who.join(", ")),
    };
    format!("{} {}{who}", clock_text(m.t_ms), m.kind.words())
}

/// The first scripted event's time (the recovery is counted from it), if the script has events.
pub fn first_event_ms(script: &Script) -> Option<u64> {
    script.events.iter().map(|e| e.at_ms).min()
}

/// The marks of a run, in time order: each marked timeline event, consecutive ones of one kind
/// at one instant folded into one, and the recovery (after the marks at its instant) when every
/// split the events took runs again.
pub fn marks(o: &Outcome, script: &Script) -> Vec<Mark> {
    let mut out: Vec<Mark> = Vec::new();
    for e in &o.timeline {
        let Some((kind, who)) = MarkKind::of(&e.what) else {
            continue;
        };
        match out.last_mut() {
            Some(last) if last.t_ms == e.t_ms && last.kind == kind => last.who.push(who),
            _ => out.push(Mark {
                t_ms: e.t_ms,
                kind,
                who: vec![who],
            }),
        }
    }
    if let (Some(first), Some(r)) = (first_event_ms(script), o.figures.recovery_ms) {
        out.push(Mark {
            t_ms: first.saturating_add(r),
            kind: MarkKind::Recovered,
            who: Vec::new(),
        });
    }
    // stable: the recovery stays after the marks at its instant
    out.sort_by_key(|m| m.t_ms);
    out
}

/// A mark as the page shows it: the mark and its sentence.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename = "SimMarkShown"))]
pub struct MarkShown {
    #[serde(flatten)]
    pub mark: Mark,
    pub text: String,
}

/// How many of each the run had.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename = "SimCounts"))]
pub struct Counts {
    pub claims: u64,
    /// Quarantines by the rules (scan or failure).
    pub quarantines: u64,
    /// Splits parked by the claim race.
    pub parked_by_race: u64,
    pub elections: u64,
    /// Every timeline event.
    pub events: u64,
}

impl Counts {
    fn of(o: &Outcome) -> Counts {
        let mut c = Counts {
            events: o.timeline.len() as u64,
            ..Counts::default()
        };
        for e in &o.timeline {
            match e.what {
                What::Claim { .. } => c.claims += 1,
                What::Quarantine { .. } => c.quarantines += 1,
                What::ParkedByRace { .. } => c.parked_by_race += 1,
                What::LeaderElected { .. } => c.elections += 1,
                _ => {}
            }
        }
        c
    }
}

/// What the Timeline shows of a run besides its series: the document's rules, rules source,
/// rules note and figures (as `spate-planner simulate --json` writes them), the marks with their
/// sentences, the counts, and the first scripted event's time.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename = "SimSummary"))]
pub struct Summary {
    pub rules: Rules,
    pub rules_source: RulesSource,
    pub rules_note: String,
    pub figures: Figures,
    pub marks: Vec<MarkShown>,
    pub counts: Counts,
    pub first_event_ms: Option<u64>,
    /// What the recovery figure rests on, in words ([`recovery_text`]).
    pub recovery: RecoveryText,
}

impl Summary {
    /// The summary of `o`, the outcome of `script`.
    pub fn new(o: &Outcome, script: &Script) -> Summary {
        let shown = |mark: Mark| MarkShown {
            text: mark_text(&mark),
            mark,
        };
        Summary {
            rules: o.rules.rules,
            rules_source: o.rules.source,
            rules_note: o.rules.explain(),
            figures: o.figures.clone(),
            marks: marks(o, script).into_iter().map(shown).collect(),
            counts: Counts::of(o),
            first_event_ms: first_event_ms(script),
            recovery: recovery_text(
                &o.figures,
                !script.events.is_empty(),
                script.start == StartFrom::Planned,
            ),
        }
    }
}
