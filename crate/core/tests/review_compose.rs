//! The one review composition (`compose`), checked from the rules, not from its own output: a
//! sweep priced by a crash model carries each step's crash figures as the sweep computes them;
//! times are dates with their zone; members are in natural order; the verdict names the step
//! that, by construction, first meets the targets; the page's warnings are in the document.

use crate::common;

use common::store::Store;
use spate_planner_core::{
    analyse, compose,
    natural::natural_cmp,
    review::{Review, SweepRequest},
    sweep,
    sweep::{verdict, Axis, CrashError, CrashFigures, Targets},
    Analysis, CrashModel, Fleet, ReviewRequest, Scenario,
};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

/// 2026-01-01 00:00:00 UTC.
const NEW_YEAR_MS: i64 = 1_767_225_600_000;

/// A crash model of the test's own: recovery grows with the crashed member's planned load and
/// the step's fleet size, so every step's figure differs.
struct Model;

impl CrashModel for Model {
    fn crash(&self, _fleet: &Fleet, a: &Analysis, member: &str) -> Result<CrashFigures, CrashError> {
        let load = a
            .report
            .members
            .iter()
            .find(|m| m.name == member)
            .map_or(0, |m| m.load_planned);
        let members = a.report.members.len() as u64;
        Ok(CrashFigures::new(
            member.to_string(),
            Some(10_000 + load * 37 + members * 1_234),
            load * 1_000,
            u128::from(load),
        ))
    }
}

/// Members `worker-2`, `worker-10`, `worker-a` (cap 2 each) and six equal splits.
fn fleet() -> Fleet {
    let mut s = Store::new()
        .presence("worker-10", Some(2))
        .presence("worker-2", Some(2))
        .presence("worker-a", Some(2))
        .leader("worker-2");
    for i in 0..6 {
        s = s.split(&format!("s{i}"), 100 + i, None, 0, 0);
    }
    let mut f = s.fleet();
    f.taken_at_ms = NEW_YEAR_MS;
    f
}

fn review_of(f: &Fleet, sweep: Option<SweepRequest>, before: Option<&Fleet>) -> Review {
    let a = analyse(f, &Scenario::default()).unwrap();
    compose(&ReviewRequest {
        fleet: f,
        analysis: &a,
        sweep,
        before,
        compare_rules: false,
        version: "test",
        link: None,
    })
    .unwrap()
}

#[test]
fn a_crash_models_recovery_in_the_report_is_the_sweeps_for_that_step() {
    let f = fleet();
    let axis = Axis::AddMembers { cap: Some(2) };
    let r = review_of(
        &f,
        Some(SweepRequest {
            axis,
            range: 0..=2,
            targets: None,
            crash: Some(&Model),
        }),
        None,
    );
    let steps = sweep(&f, &Scenario::default(), axis, 0..=2, Some(&Model)).unwrap();
    let md = &r.markdown;
    assert!(md.contains("| crashed | recovery | idle split-seconds |"), "{md}");
    for s in &steps {
        let c = s.crash.as_ref().expect("each step priced");
        // the figure in seconds with one decimal, from the model's milliseconds
        let secs = format!("{:.1}", c.recovery_ms.unwrap() as f64 / 1000.0);
        let row = md
            .lines()
            .find(|l| l.starts_with(&format!("| {} ", s.value)) && l.contains(" | `"))
            .unwrap_or_else(|| panic!("no row of step {}: {md}", s.value));
        assert!(
            row.contains(&format!("| `{}` | {secs} s | {} |", c.member, c.idle_split_s)),
            "step {}: {row}",
            s.value
        );
    }
    // the recovery has its chart, a file the Markdown links
    assert!(r.images.iter().any(|i| i.name == "review-sweep-recovery.svg"));
    assert!(md.contains("](review-sweep-recovery.svg)"));
}

#[test]
fn times_are_dates_with_their_zone() {
    let f = fleet();
    let mut earlier = fleet();
    earlier.taken_at_ms = NEW_YEAR_MS - 3_600_000;
    let md = review_of(&f, None, Some(&earlier)).markdown;
    assert!(
        md.contains("| snapshot taken at | 2026-01-01 00:00:00 UTC |"),
        "{md}"
    );
    assert!(md.contains("taken at 2025-12-31 23:00:00 UTC"), "{md}");
    assert!(!md.contains("since the Unix epoch"), "{md}");
    assert!(!md.contains(&NEW_YEAR_MS.to_string()), "{md}");
}

#[test]
fn members_are_listed_in_natural_order() {
    let mut names = vec!["worker-a", "worker-10", "worker-2"];
    names.sort_by(|a, b| natural_cmp(a, b));
    assert_eq!(names, ["worker-2", "worker-10", "worker-a"]);
    let f = fleet();
    let mut earlier = Store::new().presence("worker-a", Some(2)).fleet();
    earlier.taken_at_ms = NEW_YEAR_MS - 1;
    let md = review_of(&f, None, Some(&earlier)).markdown;
    let members = md.split("## Members").nth(1).unwrap();
    let at = |n: &str| {
        members
            .find(&format!("| `{n}` |"))
            .unwrap_or_else(|| panic!("{n}: {md}"))
    };
    assert!(
        at("worker-2") < at("worker-10") && at("worker-10") < at("worker-a"),
        "{md}"
    );
    assert!(md.contains("Joined: `worker-2`, `worker-10`."), "{md}");
}

#[test]
fn the_verdict_names_the_first_step_that_meets_the_targets() {
    // one member of cap 2 and six splits: 0 added leaves 4 queued, 1 added (cap 2) leaves 2,
    // 2 added leave none: the first fleet that queues nothing is 2 added (3 members)
    let mut s = Store::new().presence("w-1", Some(2)).leader("w-1");
    for i in 0..6 {
        s = s.split(&format!("s{i}"), 10, None, 0, 0);
    }
    let f = s.fleet();
    let axis = Axis::AddMembers { cap: Some(2) };
    let targets = Targets {
        max_over_mean: 1.0,
        max_queued: 0,
    };
    let steps = sweep(&f, &Scenario::default(), axis, 0..=4, None).unwrap();
    assert_eq!(
        steps.iter().map(|s| s.queued).collect::<Vec<_>>(),
        [4, 2, 0, 0, 0]
    );
    let v = verdict(axis, &steps, targets);
    assert_eq!(v.smallest, Some(2));
    // 4 members hold 2, 2, 1 and 1 splits: max/mean 1.33; 5 members 2, 1, 1, 1, 1: 1.67
    assert_eq!(v.meets, [false, false, true, false, false]);
    assert!(v.text.starts_with("Fewest members to add meeting the targets (max/mean at most 1 and at most 0 queued): 2 — 3 members"), "{}", v.text);
    let md = review_of(
        &f,
        Some(SweepRequest {
            axis,
            range: 0..=4,
            targets: Some(targets),
            crash: None,
        }),
        None,
    )
    .markdown;
    assert!(
        md.contains("**Verdict:** Fewest members to add meeting the targets"),
        "{md}"
    );
    assert!(
        md.lines()
            .any(|l| l.starts_with("| 2 |") && l.ends_with("| meets (first) |")),
        "{md}"
    );
    // no step meets an impossible target, and the verdict says so
    let none = verdict(
        axis,
        &steps,
        Targets {
            max_over_mean: 0.5,
            max_queued: 0,
        },
    );
    assert_eq!(none.smallest, None);
    assert_eq!(none.text, "No value of members added from 0 to 4 meets the targets (max/mean at most 0.5 and at most 0 queued).");
}

#[test]
fn every_warning_the_page_shows_is_in_the_report() {
    let f = fleet();
    // "before" taken later than "after", of another job
    let mut later = Store::new().presence("worker-2", Some(2)).fleet();
    later.taken_at_ms = NEW_YEAR_MS + 60_000;
    later.job = "other".into();
    let md = review_of(&f, None, Some(&later)).markdown;
    assert!(md.contains("is not earlier than"), "{md}");
    assert!(
        md.contains("2026\\-01\\-01 00\\:01\\:00 UTC"),
        "with when each was taken: {md}"
    );
    assert!(md.contains("two different jobs"), "{md}");
}
