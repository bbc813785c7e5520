//! Sweeps: the plan's figures across a range of fleet sizes or caps, for design reviews ("how
//! many workers does this job need?", "what should `max_in_flight` be?").
//!
//! Each step is an ordinary what-if: the base scenario plus the step's changes (see
//! [`step_scenario`]), planned through [`crate::pipeline::analyse`]. So every step's figures are
//! exactly those of `spate-planner plan --what-if` with that step's scenario.

use crate::codes::ErrorCode;
use crate::exact::count;
use crate::exact::wide;
use crate::fleet::Fleet;
use crate::natural::natural_cmp;
use crate::pipeline::{analyse, Analysis};
use crate::report::{at_cap, ratio4, Report};
use crate::scenario::{Change, Departure, Scenario, ScenarioError};
use serde::{Deserialize, Serialize};

/// Most steps one sweep may take (a bound on work).
pub const MAX_STEPS: u32 = 1024;

/// What a sweep varies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Axis {
    /// Add `value` members, `added-01`, `added-02`, …, each with `cap` (the default cap if none).
    AddMembers { cap: Option<u32> },
    /// The leader's default cap is `value`.
    DefaultCap,
    /// Every member's cap is `value`.
    MemberCap,
    /// The fleet has `value` members: below today's count, members leave gracefully (each
    /// releases what it holds) in `remove`'s order; above it, `added-01`, `added-02`, … join,
    /// each with `cap` (the default cap if none).
    Members { cap: Option<u32>, remove: RemoveOrder },
}

/// Which members a shrinking fleet loses first ([`Axis::Members`]), by what each carries now
/// (its load in the plan of today's fleet, `load_now`) or by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RemoveOrder {
    /// The member carrying the least now first (ties: the last in natural name order first).
    LightestFirst,
    /// The member carrying the most now first (ties: the first in natural name order first).
    HeaviestFirst,
    /// The last in natural name order first (worker-10 before worker-9), as a scale-down of a
    /// set of numbered replicas removes the highest ordinal first.
    LastNamedFirst,
}

impl RemoveOrder {
    /// The order named `name` (`lightest_first`, `heaviest_first`, `last_named_first`).
    pub fn parse(name: &str) -> Result<RemoveOrder, SweepError> {
        match name {
            "lightest_first" => Ok(RemoveOrder::LightestFirst),
            "heaviest_first" => Ok(RemoveOrder::HeaviestFirst),
            "last_named_first" => Ok(RemoveOrder::LastNamedFirst),
            _ => Err(SweepError::Invalid(format!(
                "removal order {name:?} is not lightest_first, heaviest_first or last_named_first"
            ))),
        }
    }

    /// The order in words.
    pub fn words(self) -> &'static str {
        match self {
            RemoveOrder::LightestFirst => "the lightest first",
            RemoveOrder::HeaviestFirst => "the heaviest first",
            RemoveOrder::LastNamedFirst => "the last by name first",
        }
    }
}

impl Axis {
    /// The axis named `name` (`add_members`, `default_cap`, `member_cap`, or `members` with
    /// its removal order as `members_lightest_first`, `members_heaviest_first` or
    /// `members_last_named_first`; `members` alone removes the lightest first), as the sweep
    /// document and the page name them; `cap` is the added members' (`add_members`, `members`).
    /// The one reading of an axis: the command line's flags and the page's form both come here.
    pub fn parse(name: &str, cap: Option<u32>) -> Result<Axis, SweepError> {
        match name {
            "add_members" => Ok(Axis::AddMembers { cap }),
            "default_cap" => Ok(Axis::DefaultCap),
            "member_cap" => Ok(Axis::MemberCap),
            "members" => Ok(Axis::Members {
                cap,
                remove: RemoveOrder::LightestFirst,
            }),
            _ => match name.strip_prefix("members_").map(RemoveOrder::parse) {
                Some(Ok(remove)) => Ok(Axis::Members { cap, remove }),
                _ => Err(SweepError::Invalid(format!(
                    "axis {name:?} is not add_members, default_cap, member_cap or members (members_lightest_first, members_heaviest_first, members_last_named_first)"
                ))),
            },
        }
    }

    /// What the axis varies, in words (a table's heading).
    pub fn label(self) -> &'static str {
        match self {
            Axis::AddMembers { .. } => "members added",
            Axis::DefaultCap => "default cap",
            Axis::MemberCap => "every member's cap",
            Axis::Members { .. } => "members",
        }
    }

    /// The step a verdict names, in words.
    fn smallest_words(self) -> &'static str {
        match self {
            Axis::AddMembers { .. } => "Fewest members to add",
            Axis::DefaultCap => "Smallest default cap",
            Axis::MemberCap => "Smallest cap of every member",
            Axis::Members { .. } => "Fewest members",
        }
    }
}

/// A sweep's range from its text: `FROM..TO` (or `FROM..=TO`, inclusive either way) or one
/// value, at most [`MAX_STEPS`] values. The one reading of a range (`sweep --add-members 0..8`,
/// `report --sweep-default-cap 2..32`).
pub fn parse_range(text: &str) -> Result<std::ops::RangeInclusive<u32>, SweepError> {
    let num = |s: &str| {
        s.trim()
            .parse::<u32>()
            .map_err(|_| SweepError::Invalid(format!("{text:?} is not a range FROM..TO of whole numbers")))
    };
    let (a, b) = match text.split_once("..") {
        Some((a, b)) => (num(a)?, num(b.trim_start_matches('='))?),
        None => (num(text)?, num(text)?),
    };
    check_range(a, b).map_err(|e| match e {
        SweepError::Invalid(m) => SweepError::Invalid(format!("{text:?}: {m}")),
        SweepError::RangeTooLarge(m) => SweepError::RangeTooLarge(format!("{text:?}: {m}")),
        e => e,
    })
}

/// `from..=to` when it is not empty and has at most [`MAX_STEPS`] values.
pub fn check_range(from: u32, to: u32) -> Result<std::ops::RangeInclusive<u32>, SweepError> {
    if from > to {
        return Err(SweepError::Invalid(format!("the range is empty ({from} > {to})")));
    }
    let steps = u64::from(to - from) + 1;
    if steps > u64::from(MAX_STEPS) {
        return Err(SweepError::RangeTooLarge(format!(
            "{steps} steps; a sweep takes at most {MAX_STEPS} (narrow the range)"
        )));
    }
    Ok(from..=to)
}

/// The plan's figures at one step. Read back (`Deserialize`) from the sweep's own document, as
/// a page hands its steps back to ask which meet its targets.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename = "SweepStep"))]
pub struct Step {
    pub value: u32,
    pub members: u32,
    /// The largest member's total assigned weight.
    #[serde(deserialize_with = "wide::u64")]
    pub max_load: u64,
    pub mean_load: f64,
    /// `max_load / mean_load` with four decimals.
    pub max_over_mean: String,
    /// `max_load / lower_bound` with four decimals (1 is the best any assignment can do).
    pub max_over_bound: String,
    /// Assignable splits left unassigned (no free lane).
    pub queued: u32,
    /// Splits that change hands from now.
    pub moves: u32,
    #[serde(deserialize_with = "wide::u64")]
    pub bytes_moved: u64,
    /// Members whose lanes are all used.
    pub at_cap: u32,
    pub bound_hit: bool,
    /// This step is today's fleet (the base scenario as it is: [`today`]).
    #[serde(default)]
    pub today: bool,
    /// The members this step's fleet loses (a sweep of [`Axis::Members`] below today's count),
    /// in the order they are removed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub removed: Vec<String>,
    /// With a crash script: the heaviest member crashed in the step's steady state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub crash: Option<CrashFigures>,
}

/// What a crash of the step's heaviest member costs, as a [`CrashModel`] prices it from the fleet
/// settled on the step's plan.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct CrashFigures {
    /// The member crashed: the one with the largest planned load (ties: the first by name).
    pub member: String,
    /// From the crash until every split that ran before it runs again (`None`: not by the end).
    #[serde(deserialize_with = "wide::nullable_u64")]
    pub recovery_ms: Option<u64>,
    /// Runnable splits' time unread, summed (splits queued for lack of lanes count too).
    #[serde(deserialize_with = "wide::u64")]
    pub idle_split_ms: u64,
    /// The same, each split weighted by `max(1, weight)`.
    #[serde(deserialize_with = "wide::u128")]
    pub idle_weighted: u128,
    /// `recovery_ms` in seconds with one decimal, as the table shows it (`None`: never).
    #[serde(default)]
    pub recovery_s: Option<String>,
    /// `idle_split_ms` in whole seconds (rounded), as the table shows it.
    #[serde(default, deserialize_with = "wide::u64")]
    pub idle_split_s: u64,
}

impl CrashFigures {
    /// The figures of a crash of `member`, with the seconds the tables show.
    pub fn new(
        member: String,
        recovery_ms: Option<u64>,
        idle_split_ms: u64,
        idle_weighted: u128,
    ) -> CrashFigures {
        CrashFigures {
            member,
            recovery_ms,
            idle_split_ms,
            idle_weighted,
            recovery_s: recovery_ms.map(|ms| format!("{:.1}", ms as f64 / 1000.0)),
            idle_split_s: idle_split_ms.saturating_add(500) / 1000,
        }
    }
}

/// What a sweep asks of a timing model for its crash columns. The decision core names no
/// simulator: the caller passes one (`spate-planner-sim`'s `CrashScript`), so the sweep's crash
/// steps follow whatever rules that model was given.
pub trait CrashModel {
    /// The cost of a crash of `member` at t = 0, from `fleet` settled on `analysis`'s plan.
    fn crash(&self, fleet: &Fleet, analysis: &Analysis, member: &str) -> Result<CrashFigures, CrashError>;
}

/// A crash model's failure: a stable code, the path of the field at fault, and its message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CrashError {
    pub code: ErrorCode,
    pub path: String,
    /// The whole message, as the model words it.
    pub message: String,
}

/// A sweep step's failure: its scenario, or its crash model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SweepError {
    Scenario(ScenarioError),
    Simulation {
        value: u32,
        error: CrashError,
    },
    /// The range has more than [`MAX_STEPS`] values.
    TooManySteps,
    /// An axis or a range that does not read.
    Invalid(String),
    /// A range of more than [`MAX_STEPS`] values, refused before any step is planned.
    RangeTooLarge(String),
}

impl SweepError {
    /// The stable code of the failure.
    pub fn code(&self) -> ErrorCode {
        match self {
            SweepError::Scenario(e) => e.code,
            SweepError::Simulation { error, .. } => error.code,
            SweepError::TooManySteps => ErrorCode::TooLarge,
            SweepError::Invalid(_) => ErrorCode::InvalidSweep,
            SweepError::RangeTooLarge(_) => ErrorCode::TooLarge,
        }
    }
}

impl std::fmt::Display for SweepError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SweepError::Scenario(e) => e.fmt(f),
            SweepError::Simulation { value, error } => write!(f, "step {value}: {}", error.message),
            SweepError::TooManySteps => write!(
                f,
                "the range has more than {MAX_STEPS} values; a sweep takes at most {MAX_STEPS} steps"
            ),
            SweepError::Invalid(m) | SweepError::RangeTooLarge(m) => f.write_str(m),
        }
    }
}

impl From<ScenarioError> for SweepError {
    fn from(e: ScenarioError) -> SweepError {
        SweepError::Scenario(e)
    }
}

/// The name of the `n`-th added member (1-based): `added-01`, …, `added-100`.
pub fn added_name(n: u32) -> String {
    format!("added-{n:02}")
}

/// The scenario of one step: `base` plus the step's changes, appended.
#[cfg_attr(feature = "testing", visibility::make(pub))]
pub(crate) fn step_scenario(
    fleet: &Fleet,
    base: &Scenario,
    axis: Axis,
    value: u32,
) -> Result<Scenario, ScenarioError> {
    let mut s = base.clone();
    match axis {
        Axis::AddMembers { cap } => {
            for n in 1..=value {
                s.changes.push(Change::AddMember {
                    member: added_name(n),
                    cap,
                });
            }
        }
        Axis::DefaultCap => s.changes.push(Change::SetDefaultCap { cap: value }),
        Axis::MemberCap => {
            // every member of the base scenario's fleet
            let members = base.apply(fleet)?.inputs.members;
            s.changes.extend(
                members
                    .into_iter()
                    .map(|member| Change::SetCap { member, cap: value }),
            );
        }
        Axis::Members { cap, remove } => {
            let order = removal_order(fleet, base, remove)?;
            let now = count(order.len());
            s.changes.extend(
                order
                    .into_iter()
                    .take(now.saturating_sub(value) as usize)
                    .map(|member| Change::RemoveMember {
                        member,
                        departure: Some(Departure::Graceful),
                        within_rebalance_delay: None,
                    }),
            );
            for n in 1..=value.saturating_sub(now) {
                s.changes.push(Change::AddMember {
                    member: added_name(n),
                    cap,
                });
            }
        }
    }
    Ok(s)
}

/// The base scenario's members in the order a shrinking fleet loses them: by each one's load
/// in the plan of the base (`load_now`, what it carries now) or by name, natural order
/// (`natural_cmp`) breaking ties.
pub fn removal_order(
    fleet: &Fleet,
    base: &Scenario,
    remove: RemoveOrder,
) -> Result<Vec<String>, ScenarioError> {
    let a = analyse(fleet, base)?;
    let mut members: Vec<(&str, u64)> = a
        .report
        .members
        .iter()
        .map(|m| (m.name.as_str(), m.load_now))
        .collect();
    members.sort_by(|x, y| match remove {
        RemoveOrder::LightestFirst => x.1.cmp(&y.1).then_with(|| natural_cmp(y.0, x.0)),
        RemoveOrder::HeaviestFirst => y.1.cmp(&x.1).then_with(|| natural_cmp(x.0, y.0)),
        RemoveOrder::LastNamedFirst => natural_cmp(y.0, x.0),
    });
    Ok(members.into_iter().map(|(m, _)| m.to_string()).collect())
}

/// The members the step of `scenario` removes from its base: those of its `remove_member`
/// changes after the base's own.
fn removed_by(base: &Scenario, scenario: &Scenario) -> Vec<String> {
    scenario.changes[base.changes.len()..]
        .iter()
        .filter_map(|c| match c {
            Change::RemoveMember { member, .. } => Some(member.clone()),
            _ => None,
        })
        .collect()
}

fn figures(value: u32, r: &Report) -> Step {
    Step {
        value,
        members: count(r.members.len()),
        max_load: r.balance.max_load,
        mean_load: r.balance.mean_load,
        max_over_mean: ratio4(r.balance.max_over_mean),
        max_over_bound: ratio4(r.balance.max_over_bound),
        queued: r.counts.queued,
        moves: r.churn.moves,
        bytes_moved: r.churn.weight_moved,
        at_cap: count(r.members.iter().filter(|m| at_cap(m, true)).count()),
        bound_hit: r.bound_hit,
        today: false,
        removed: Vec::new(),
        crash: None,
    }
}

/// The member with the largest planned load (ties: the first by name).
fn heaviest(r: &Report) -> Option<&str> {
    r.members
        .iter()
        .max_by(|a, b| a.load_planned.cmp(&b.load_planned).then(b.name.cmp(&a.name)))
        .map(|m| m.name.as_str())
}

/// The cost of a crash of the step's heaviest member, priced by `model`. `None` when the step
/// has no member.
pub fn crash_heaviest(
    fleet: &Fleet,
    a: &Analysis,
    model: &dyn CrashModel,
) -> Result<Option<CrashFigures>, CrashError> {
    match heaviest(&a.report) {
        None => Ok(None),
        Some(member) => model.crash(fleet, a, member).map(Some),
    }
}

/// The figures at one value; with `crash`, also the cost of a crash of its heaviest member
/// ([`crash_heaviest`]).
pub fn sweep_step(
    fleet: &Fleet,
    base: &Scenario,
    axis: Axis,
    value: u32,
    crash: Option<&dyn CrashModel>,
) -> Result<Step, SweepError> {
    let scenario = step_scenario(fleet, base, axis, value)?;
    let a = analyse(fleet, &scenario)?;
    let mut step = figures(value, &a.report);
    step.removed = removed_by(base, &scenario);
    if let Some(model) = crash {
        step.crash =
            crash_heaviest(fleet, &a, model).map_err(|error| SweepError::Simulation { value, error })?;
    }
    Ok(step)
}

/// The figures at each value of `values`: at most [`MAX_STEPS`] of them, more are refused
/// (never cut silently) before any step is planned.
pub fn sweep(
    fleet: &Fleet,
    base: &Scenario,
    axis: Axis,
    values: impl IntoIterator<Item = u32>,
    crash: Option<&dyn CrashModel>,
) -> Result<Vec<Step>, SweepError> {
    let values: Vec<u32> = values.into_iter().take(MAX_STEPS as usize + 1).collect();
    if values.len() > MAX_STEPS as usize {
        return Err(SweepError::TooManySteps);
    }
    let now = today(fleet, base, axis)?.value;
    values
        .into_iter()
        .map(|value| {
            let mut step = sweep_step(fleet, base, axis, value, crash)?;
            step.today = now == Some(value);
            Ok(step)
        })
        .collect()
}

/// Which value of a sweep is today's fleet (the base scenario as it is), and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename = "SweepToday"))]
pub struct Today {
    /// The step that plans today's fleet; `None` when none does (members' caps that differ,
    /// for "every member's cap").
    pub value: Option<u32>,
    /// The value in words.
    pub note: String,
}

/// Today's value of `axis` on `base`: no member added; the default cap the base plans with;
/// every member's cap, when they are all one.
pub fn today(fleet: &Fleet, base: &Scenario, axis: Axis) -> Result<Today, ScenarioError> {
    if let Axis::AddMembers { .. } = axis {
        return Ok(Today {
            value: Some(0),
            note: "no member added".into(),
        });
    }
    let applied = base.apply(fleet)?;
    let inputs = &applied.inputs;
    if let Axis::Members { .. } = axis {
        let n = count(inputs.members.len());
        return Ok(Today {
            value: Some(n),
            note: format!("{} members now", grouped(n.into())),
        });
    }
    if axis == Axis::DefaultCap {
        let cap = inputs.default_cap;
        return Ok(Today {
            value: Some(cap),
            note: format!("the default cap now ({cap})"),
        });
    }
    let caps: std::collections::BTreeSet<u32> = inputs.members.iter().map(|m| inputs.cap_of(m)).collect();
    Ok(match (caps.first(), caps.last()) {
        (Some(&lo), Some(&hi)) if lo == hi => Today {
            value: Some(lo),
            note: format!("every member's cap now ({lo})"),
        },
        (Some(lo), Some(hi)) => Today {
            value: None,
            note: format!("the members' caps differ now ({lo}–{hi}): no step is today's fleet"),
        },
        _ => Today {
            value: None,
            note: "there are no members: no step is today's fleet".into(),
        },
    })
}

/// The targets a sweep's steps are measured against.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Targets {
    /// The largest max/mean acceptable.
    pub max_over_mean: f64,
    /// The most queued splits acceptable.
    pub max_queued: u32,
}

/// The format tag of the sweep document.
pub const SWEEP_FORMAT: &str = "spate-planner-sweep/1";

/// The sweep as one document (`spate-planner sweep --json`): its axis and base scenario, which
/// value is today's fleet (each step says whether it is, `today`), the steps, and with targets
/// the smallest value meeting them. Serialize it through [`crate::exact::Exact`].
#[derive(Serialize)]
pub struct SweepDocument<'a> {
    pub format: &'static str,
    pub job: &'a str,
    pub taken_at_ms: i64,
    pub axis: Axis,
    pub scenario: &'a Scenario,
    pub today: Today,
    pub targets: Option<Targets>,
    pub steps: &'a [Step],
    pub smallest_meeting: Option<u32>,
    /// With targets: which step first meets them, or that none does, in words ([`verdict`]).
    pub verdict: Option<String>,
}

/// The sweep document of `steps` (a sweep of `axis` on `base`), with the smallest value that
/// meets `targets`, if given.
pub fn sweep_document<'a>(
    fleet: &'a Fleet,
    base: &'a Scenario,
    axis: Axis,
    steps: &'a [Step],
    targets: Option<Targets>,
) -> Result<SweepDocument<'a>, ScenarioError> {
    Ok(SweepDocument {
        format: SWEEP_FORMAT,
        job: &fleet.job,
        taken_at_ms: fleet.taken_at_ms,
        axis,
        scenario: base,
        today: today(fleet, base, axis)?,
        targets,
        steps,
        smallest_meeting: targets
            .and_then(|t| smallest_meeting(steps, t.max_over_mean, t.max_queued))
            .map(|s| s.value),
        verdict: targets.map(|t| verdict(axis, steps, t).text),
    })
}

impl Step {
    /// Whether the step meets the targets: max/mean at most `max_over_mean` and at most `queued`
    /// splits queued.
    pub fn meets(&self, max_over_mean: f64, queued: u32) -> bool {
        self.queued <= queued
            && self
                .max_over_mean
                .parse::<f64>()
                .is_ok_and(|r| r <= max_over_mean)
    }
}

/// The smallest step that meets the targets ([`Step::meets`]). `None` if no step does.
#[cfg_attr(feature = "testing", visibility::make(pub))]
pub(crate) fn smallest_meeting(steps: &[Step], max_over_mean: f64, queued: u32) -> Option<&Step> {
    steps
        .iter()
        .filter(|s| s.meets(max_over_mean, queued))
        .min_by_key(|s| s.value)
}

/// Which steps of a sweep meet the targets, and the first (the smallest value) that does, in
/// the words every view writes (`sweep`, the page's Sweep tab, the review document).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename = "SweepVerdict"))]
pub struct Verdict {
    /// Per step, whether it meets the targets ([`Step::meets`]).
    pub meets: Vec<bool>,
    /// The smallest value that meets them ([`smallest_meeting`]).
    pub smallest: Option<u32>,
    /// The verdict in words.
    pub text: String,
}

/// `1234567` as `1,234,567`.
fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Which members a step loses, in words: at most five names, then how many more.
fn losing(axis: Axis, removed: &[String]) -> String {
    let Axis::Members { remove, .. } = axis else {
        return String::new();
    };
    if removed.is_empty() {
        return String::new();
    }
    let shown = removed.iter().take(5).cloned().collect::<Vec<_>>().join(", ");
    let more = match removed.len().saturating_sub(5) {
        0 => String::new(),
        n => format!(" and {} more", grouped(n as u64)),
    };
    format!(
        "; it loses {} ({}): {shown}{more}",
        grouped(removed.len() as u64),
        remove.words()
    )
}

/// The verdict of a sweep of `axis` (its `steps`) against `targets`: which step first meets
/// them, with its figures (and its crash's recovery, if priced), or that none does.
pub fn verdict(axis: Axis, steps: &[Step], targets: Targets) -> Verdict {
    let (r, q) = (targets.max_over_mean, targets.max_queued);
    let goal = format!("max/mean at most {r} and at most {} queued", grouped(q.into()));
    let best = smallest_meeting(steps, r, q);
    let text = match (best, steps.first(), steps.last()) {
        (Some(b), _, _) => {
            let crash = match &b.crash {
                None => String::new(),
                Some(c) => format!(
                    "; a crash of its heaviest member, {}, recovers {}",
                    c.member,
                    c.recovery_s.as_deref().map_or_else(
                        || "never (not within the simulation)".to_string(),
                        |s| format!("in {s} s")
                    )
                ),
            };
            format!(
                "{} meeting the targets ({goal}): {} — {} members, max/mean {}, {} queued, {} moves{}{crash}.",
                axis.smallest_words(),
                grouped(b.value.into()),
                grouped(b.members.into()),
                b.max_over_mean,
                grouped(b.queued.into()),
                grouped(b.moves.into()),
                losing(axis, &b.removed)
            )
        }
        (None, Some(first), Some(last)) => format!(
            "No value of {} from {} to {} meets the targets ({goal}).",
            axis.label(),
            grouped(first.value.into()),
            grouped(last.value.into())
        ),
        _ => format!("The sweep has no step: none meets the targets ({goal})."),
    };
    Verdict {
        meets: steps.iter().map(|s| s.meets(r, q)).collect(),
        smallest: best.map(|s| s.value),
        text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn one_reading_of_axes_and_ranges() {
        assert_eq!(
            Axis::parse("add_members", Some(4)),
            Ok(Axis::AddMembers { cap: Some(4) })
        );
        assert_eq!(Axis::parse("member_cap", None), Ok(Axis::MemberCap));
        assert_eq!(
            Axis::parse("members", None),
            Ok(Axis::Members {
                cap: None,
                remove: RemoveOrder::LightestFirst
            })
        );
        assert_eq!(
            Axis::parse("members_last_named_first", Some(2)),
            Ok(Axis::Members {
                cap: Some(2),
                remove: RemoveOrder::LastNamedFirst
            })
        );
        for bad in ["fleet", "members_sideways", "members_"] {
            assert_eq!(
                Axis::parse(bad, None).unwrap_err().code(),
                ErrorCode::InvalidSweep
            );
        }
        assert_eq!(parse_range("0..24"), Ok(0..=24));
        assert_eq!(parse_range("2..=32"), Ok(2..=32));
        assert_eq!(parse_range("5"), Ok(5..=5));
        assert_eq!(parse_range("1..1024"), Ok(1..=1024));
        let e = parse_range("9..3").unwrap_err();
        assert_eq!(
            (e.code(), e.to_string()),
            (
                ErrorCode::InvalidSweep,
                "\"9..3\": the range is empty (9 > 3)".into()
            )
        );
        assert!(parse_range("a..b")
            .unwrap_err()
            .to_string()
            .contains("not a range FROM..TO"));
        let e = parse_range("0..1024").unwrap_err();
        assert_eq!(e.code(), ErrorCode::TooLarge);
        assert_eq!(
            e.to_string(),
            "\"0..1024\": 1025 steps; a sweep takes at most 1024 (narrow the range)"
        );
        assert!(parse_range("0..4294967295")
            .unwrap_err()
            .to_string()
            .contains("4294967296 steps"));
        assert_eq!(grouped(1_234_567), "1,234,567");
        assert_eq!(grouped(999), "999");
    }

    #[test]
    fn a_crash_in_the_seconds_the_tables_show() {
        let c = CrashFigures::new("w-2".into(), Some(46_334), 646_334, 1);
        assert_eq!((c.recovery_s.as_deref(), c.idle_split_s), (Some("46.3"), 646));
        // idle time rounded to the nearest second, half up; never recovered: no seconds
        let c = CrashFigures::new("w-1".into(), None, 1_500, 1);
        assert_eq!((c.recovery_s, c.idle_split_s), (None, 2));
        assert_eq!(CrashFigures::new("w".into(), Some(0), 499, 0).idle_split_s, 0);
        assert_eq!(
            CrashFigures::new("w".into(), Some(u64::MAX), u64::MAX, 0).idle_split_s,
            u64::MAX / 1000
        );
    }
}
