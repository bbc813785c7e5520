//! Incidents (docs/user-guide.md, "On call"): what a live job's membership changes mean for the
//! person on call. The expected answers come from the rules, not from the code: the store's
//! evidence of a departure (`timing.md` §3.1: a delete marker is a graceful stop, a lapsed
//! presence a crash, at its last write + the lease TTL), the rebalance window (`timing.md` §5.3:
//! `[T + D, T + D + C]` on 0.1; `timing-0.3.md` §5.3: `[T + D, T + D + 1.2 L/3]` on 0.3), the
//! receivers under the lane caps (decision-core.md: no member is planned past its cap), the
//! attempts rule (an Expired takeover consumes an attempt; at `A` the split is quarantined) and
//! the claim race (`timing.md` §6.7: p per live peer other than the claimant).

use crate::common;

use common::changes::{gone, put};
use common::store::{fp, Store};
use serde_json::json;
use spate_planner_core::{
    live::{change_line, state_line, RecordingHeader, StateReason},
    review::{
        incident_views, CrashSettings, IncidentInputs, IncidentLog, IncidentView, RecordedIncidents,
        RecoveryModel, SeedRun,
    },
    Fleet, LiveChange, LiveJob, Recording, Replay, Scenario, Side,
};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

/// Splits a, b held by w-1 (cap 2); c, d by w-2 (cap 2: full); w-3 (cap 4) holds nothing.
fn fleet(store: Store) -> Store {
    store
        .presence("w-1", Some(2))
        .presence("w-2", Some(2))
        .presence("w-3", Some(4))
        .leader("w-2")
        .split("a", 1 << 30, Some("w-1"), 1, 0)
        .split("b", 1 << 20, Some("w-1"), 1, 0)
        .split("c", 1 << 30, Some("w-2"), 1, 0)
        .split("d", 1 << 30, Some("w-2"), 1, 0)
        .held("a", "w-1")
        .held("b", "w-1")
        .held("c", "w-2")
        .held("d", "w-2")
        .assign("w-1", 1, &["a", "b"])
        .assign("w-2", 1, &["c", "d"])
        .assign("w-3", 1, &[])
}

struct Followed {
    job: LiveJob,
    log: IncidentLog,
    rev: u64,
    max_attempts: Option<u32>,
    model: Option<Runs>,
    /// The settings the incidents are judged by.
    scenario: Scenario,
}

/// A recovery model that answers with fixed runs, and checks what it was asked.
#[derive(Clone)]
struct Runs(Vec<SeedRun>);

impl RecoveryModel for Runs {
    fn crash_runs(&self, fleet: &Fleet, member: &str, s: &CrashSettings) -> Result<Vec<SeedRun>, String> {
        assert!(
            !fleet.members.contains_key(member),
            "asked with the fleet after the lapse"
        );
        assert_eq!((s.rebalance_delay_ms, s.max_attempts), (20_000, 4));
        Ok(self.0.clone())
    }
}

impl Followed {
    fn new(store: Store) -> Followed {
        let mut job = LiveJob::from_snapshot(&store.snapshot()).unwrap();
        job.frame(0).unwrap();
        Followed {
            job,
            log: IncidentLog::new(),
            rev: 1_000,
            max_attempts: None,
            model: None,
            scenario: Scenario::default(),
        }
    }

    fn apply(&mut self, change: impl Fn(u64) -> String) -> &mut Followed {
        self.rev += 1;
        self.job.apply(&change(self.rev)).unwrap();
        self
    }

    /// A frame at `now`, observed; the incidents then.
    fn frame(&mut self, now: i64) -> Vec<IncidentView> {
        let f = self.job.frame(now).unwrap();
        let sc = self.scenario.clone();
        let model = self.model.clone();
        let inputs = IncidentInputs {
            scenario: &sc,
            max_attempts: self.max_attempts,
            recovery: model.as_ref().map(|m| m as &dyn RecoveryModel),
            baseline: None,
        };
        self.log.observe(&f.changes, &f.fleet, &inputs);
        incident_views(&self.log, now)
    }
}

/// w-1's presence (the first lease entry: revision 2) outlived the bucket's `max_age`.
fn expire_w1(_: u64) -> String {
    gone("lease", "expire", "worker.w-1", 2)
}

fn lease(owner: &str) -> String {
    json!({"schema": 3, "owner": owner, "nonce": format!("n-{owner}"), "epoch": 2}).to_string()
}

fn progress(id: &str, owner: &str, attempts: u32) -> String {
    json!({"schema": 3, "id": id, "fp": fp(), "epoch": 2, "status": "runnable", "owner": owner,
        "attempts": attempts, "watermark": null, "state": null, "completed": false, "written_at_ms": 0})
    .to_string()
}

fn assign(ids: &[&str]) -> String {
    json!({"schema": 3, "generation": 1, "splits": ids}).to_string()
}

#[test]
fn a_lapsed_presence_is_a_crash_whose_window_counts_from_its_last_write_plus_the_ttl() {
    let mut f = Followed::new(fleet(Store::new()));
    let v = f.apply(expire_w1).frame(31_000);
    assert_eq!(v.len(), 1);
    let i = &v[0];
    // The presence was written at 0 and the lease bucket's max_age is 30 s.
    assert_eq!((i.member.as_str(), i.at_ms), ("w-1", 30_000));
    assert_eq!(i.at_text, "1970-01-01 00:00:30 UTC");
    assert_eq!(i.ago_text, "1 s ago");
    // 0.1's window: D = 20 s, then the leader's next reconcile tick within C = 30 s.
    assert_eq!(
        (i.window_ends_ms, i.window_ends_by_ms),
        (Some(50_000), Some(80_000))
    );
    assert_eq!(serde_json::to_value(i.phase).unwrap(), "withheld");
    assert!(
        i.leader.contains("until 00:00:50 UTC at the earliest (in 19 s)"),
        "{}",
        i.leader
    );
    assert!(
        i.leader.contains("00:01:20 UTC at the latest (in 49 s)"),
        "{}",
        i.leader
    );
    assert_eq!((i.withheld.splits, i.withheld.bytes), (2, (1 << 30) + (1 << 20)));
}

#[test]
fn the_window_of_a_0_3_leader_ends_within_1_2_r_of_its_earliest_end() {
    let mut f = Followed::new(fleet(Store::new().elector("w-2", "lead")));
    let v = f.apply(expire_w1).frame(31_000);
    // R = L / 3 = 10 s; 1.2 R = 12 s.
    assert_eq!(
        (v[0].window_ends_ms, v[0].window_ends_by_ms),
        (Some(50_000), Some(62_000))
    );
}

#[test]
fn the_receivers_are_the_members_with_free_lanes() {
    let mut f = Followed::new(fleet(Store::new()));
    let v = f.apply(expire_w1).frame(31_000);
    // w-2 is at its cap of 2: both go to w-3, the only member with free lanes.
    let rows: Vec<_> = v[0]
        .receivers
        .iter()
        .map(|r| (r.member.as_deref(), r.splits, r.bytes))
        .collect();
    assert_eq!(rows, [(Some("w-3"), 2, (1 << 30) + (1 << 20))]);
    assert_eq!(v[0].receivers[0].text, "w-3 takes 2 splits (1.0 GiB)");
}

#[test]
fn the_countdown_moves_with_the_clock_and_says_when_the_publish_is_overdue() {
    let mut f = Followed::new(fleet(Store::new()));
    f.apply(expire_w1).frame(31_000);
    let at = |now| incident_views(&f.log, now).remove(0);
    assert_eq!(serde_json::to_value(at(60_000).phase).unwrap(), "due");
    assert!(
        at(60_000).leader.contains("by 00:01:20 UTC (in 20 s)"),
        "{}",
        at(60_000).leader
    );
    assert!(
        at(95_000).leader.contains("due by 00:01:20 UTC, 15 s ago"),
        "{}",
        at(95_000).leader
    );
}

#[test]
fn the_verdict_compares_the_leaders_publish_and_the_claims_with_the_prediction() {
    let mut f = Followed::new(fleet(Store::new()));
    f.apply(expire_w1).frame(31_000);
    // The leader's publish at 52 s: w-1's record deleted, both splits to w-3; w-3 claims a, and
    // w-2 (whose lanes the prediction held full) claims b.
    f.apply(|r| gone("state", "delete", "assign.w-1", r))
        .apply(|r| put("state", "assign.w-3", r, &assign(&["a", "b"])))
        .apply(|r| put("lease", "split.a", r, &lease("w-3")))
        .apply(|r| put("state", "split.a", r, &progress("a", "w-3", 1)));
    let v = f.frame(52_000);
    assert_eq!(serde_json::to_value(v[0].phase).unwrap(), "released");
    assert_eq!(v[0].verdict[0], "Published as predicted: 2 of 2.");
    assert_eq!(
        v[0].verdict[1],
        "Claimed by the predicted member: 1 of 2; by another: 0; not yet: 1."
    );
    f.apply(|r| put("lease", "split.b", r, &lease("w-2")));
    let v = f.frame(53_000);
    assert_eq!(serde_json::to_value(v[0].phase).unwrap(), "settled");
    assert_eq!(
        v[0].verdict[1],
        "Claimed by the predicted member: 1 of 2; by another: 1; not yet: 0."
    );
    assert!(
        v[0].verdict[2].starts_with("Running again (or done) by 00:00:53 UTC: 23 s after it left"),
        "{:?}",
        v[0].verdict
    );
}

#[test]
fn splits_one_attempt_from_the_limit_are_lost_and_two_from_it_exposed_to_the_claim_race() {
    let store = fleet(Store::new())
        .split("e", 10, Some("w-1"), 1, 3)
        .split("f", 10, Some("w-1"), 1, 2)
        .split("g", 10, Some("w-1"), 1, 1);
    let mut f = Followed::new(store);
    let v = f.apply(expire_w1).frame(31_000);
    let risk = &v[0].risk;
    assert_eq!(risk.len(), 2, "{risk:?}");
    // e: attempts 3 of 4, the takeover would write 4: quarantined at lease expiry.
    assert!(
        risk[0].starts_with("1 split (10 B) at attempts 3 of 4"),
        "{}",
        risk[0]
    );
    assert!(
        risk[0].contains("Spate's default; the store does not record it"),
        "{}",
        risk[0]
    );
    // f: attempts 2, the takeover writes 3 = A - 1; one live peer besides the claimant (w-2 or
    // w-3), p = 0.05 on 0.1: 1 - 0.95^1 = 5%.
    assert!(
        risk[1].starts_with("1 split (10 B) at attempts 2 of 4: the takeover writes 3"),
        "{}",
        risk[1]
    );
    assert!(
        risk[1].contains("about 5% with 1 peer(s), about 0.1 expected"),
        "{}",
        risk[1]
    );
    // With the limit set to 3, g (attempts 1) is exposed and e, f are lost.
    let mut f = Followed::new(
        fleet(Store::new())
            .split("e", 10, Some("w-1"), 1, 3)
            .split("f", 10, Some("w-1"), 1, 2)
            .split("g", 10, Some("w-1"), 1, 1),
    );
    f.max_attempts = Some(3);
    let v = f.apply(expire_w1).frame(31_000);
    assert!(
        v[0].risk[0].starts_with("2 splits (20 B) at attempts 2 of 3"),
        "{}",
        v[0].risk[0]
    );
    assert!(
        v[0].risk[0].contains("max_attempts 3, as set"),
        "{}",
        v[0].risk[0]
    );
    assert!(
        v[0].risk[1].starts_with("1 split (10 B) at attempts 1 of 3"),
        "{}",
        v[0].risk[1]
    );
}

#[test]
fn a_graceful_stop_withholds_nothing_and_is_no_crash() {
    // A graceful stop clears the owner of its splits before deleting its presence.
    let store = Store::new()
        .presence("w-1", Some(2))
        .presence("w-2", Some(2))
        .leader("w-2")
        .split("a", 10, None, 1, 0)
        .assign("w-1", 1, &["a"]);
    let mut f = Followed::new(store);
    let v = f.apply(|r| gone("lease", "delete", "worker.w-1", r)).frame(6_000);
    assert_eq!(v[0].title, "w-1 stopped");
    assert_eq!(v[0].at_ms, 5, "the delete marker's time");
    assert_eq!(serde_json::to_value(v[0].phase).unwrap(), "informational");
    assert!(v[0].risk.is_empty() && v[0].receivers.is_empty());
}

#[test]
fn a_join_says_what_the_plan_gives_the_new_member() {
    let store = Store::new()
        .presence("w-1", Some(1))
        .leader("w-1")
        .split("a", 10, Some("w-1"), 1, 0)
        .split("b", 20, None, 0, 0)
        .held("a", "w-1")
        .assign("w-1", 1, &["a"]);
    let mut f = Followed::new(store);
    let presence = json!({"schema": 3, "nonce": "n-w-2", "max_in_flight": 1}).to_string();
    let v = f.apply(|r| put("lease", "worker.w-2", r, &presence)).frame(6_000);
    assert_eq!(v[0].title, "w-2 joined");
    // w-1's one lane holds a; the queued b can only go to w-2.
    assert!(
        v[0].leader.contains("gives w-2 1 split (20 B) it does not hold"),
        "{}",
        v[0].leader
    );
}

#[test]
fn incidents_are_listed_newest_first_and_a_renewal_opens_none() {
    let mut f = Followed::new(fleet(Store::new()));
    let same = json!({"schema": 3, "nonce": "n-w-3", "max_in_flight": 4}).to_string();
    let capped = json!({"schema": 3, "nonce": "n-w-3", "max_in_flight": 1}).to_string();
    f.apply(|r| put("lease", "worker.w-3", r, &same));
    assert!(f.frame(1_000).is_empty(), "a renewal is no incident");
    f.apply(|r| put("lease", "worker.w-3", r, &capped))
        .apply(expire_w1);
    let v = f.frame(31_000);
    let titles: Vec<_> = v.iter().map(|i| i.title.as_str()).collect();
    assert_eq!(titles, ["w-1 crashed", "w-3's cap changed"]);
    assert!(
        v[1].happened
            .starts_with("w-3's cap changed from 4 to 1 at 1970-01-01 00:00:00 UTC"),
        "{}",
        v[1].happened
    );
}

#[test]
fn the_predicted_recovery_counts_from_the_lapse_and_the_verdict_places_the_real_one() {
    let mut f = Followed::new(fleet(Store::new()));
    let run = |ms: Option<u64>, quarantined: u64, parked: u64| SeedRun {
        recovery_ms: ms,
        quarantined,
        parked,
    };
    f.model = Some(Runs(vec![
        run(Some(22_000), 0, 0),
        run(Some(30_000), 0, 0),
        run(Some(25_000), 0, 0),
        run(None, 1, 2),
    ]));
    let v = f.apply(expire_w1).frame(31_000);
    // The runs count from the lapse the store showed (30 s): whole again at 52, 55 or 60 s;
    // the median of the three that recover is 55 s; one seed of four loses splits for good.
    assert_eq!(
        v[0].recovery[0],
        "Whole again by 00:00:52 UTC to 00:01:00 UTC (median 00:00:55 UTC; 3 of 4 simulated seeds; 22 s to 30 s after the lapse)."
    );
    assert_eq!(
        v[0].recovery[1..],
        [
            "1 of 4 seeds park splits by the claim race (timing.md §6.7; up to 2 in a seed): they never run again.",
            "1 of 4 seeds quarantine splits at the attempt limit (up to 1 in a seed).",
            "In 1 of 4 seeds some split never runs again."
        ]
    );
    assert_eq!(
        (v[0].recovery_from_ms, v[0].recovery_to_ms),
        (Some(52_000), Some(60_000))
    );
    f.apply(|r| gone("state", "delete", "assign.w-1", r))
        .apply(|r| put("lease", "split.a", r, &lease("w-3")))
        .apply(|r| put("lease", "split.b", r, &lease("w-3")));
    let v = f.frame(61_500);
    assert_eq!(
        v[0].verdict.last().unwrap(),
        "That is later than the simulated range (00:00:52 UTC to 00:01:00 UTC)."
    );
}

#[test]
fn a_graceful_stop_and_a_join_are_not_simulated() {
    let mut f = Followed::new(fleet(Store::new()));
    f.model = Some(Runs(vec![SeedRun {
        recovery_ms: Some(1),
        quarantined: 0,
        parked: 0,
    }]));
    let presence = json!({"schema": 3, "nonce": "n-w-9", "max_in_flight": 1}).to_string();
    let v = f.apply(|r| put("lease", "worker.w-9", r, &presence)).frame(6_000);
    assert!(v[0].recovery.is_empty(), "{:?}", v[0].recovery);
}

#[test]
fn without_an_assignment_record_the_window_ends_when_a_withheld_split_is_published_elsewhere() {
    // The leader withholds by its memory of the departure (timing.md §5.3), whether or not the
    // member had an assign record; the store shows the window's end by the publish that hands a
    // withheld split to another member.
    let store = Store::new()
        .presence("w-1", Some(2))
        .presence("w-3", Some(4))
        .leader("w-3")
        .split("a", 10, Some("w-1"), 1, 0)
        .held("a", "w-1");
    let mut f = Followed::new(store);
    let expire = |_| gone("lease", "expire", "worker.w-1", 2);
    let v = f.apply(expire).frame(31_000);
    assert_eq!(
        serde_json::to_value(v[0].phase).unwrap(),
        "withheld",
        "{}",
        v[0].leader
    );
    let v = f
        .apply(|r| put("state", "assign.w-3", r, &assign(&["a"])))
        .frame(51_000);
    assert_eq!(
        serde_json::to_value(v[0].phase).unwrap(),
        "released",
        "{}",
        v[0].leader
    );
    assert!(
        v[0].leader.starts_with(
            "The leader handed its 1 runnable split (10 B) out by 00:00:51 UTC (21 s after it left"
        ),
        "{}",
        v[0].leader
    );
}

#[test]
fn the_jobs_last_change_is_the_stores_time_of_its_newest_write_not_the_readers() {
    let mut f = Followed::new(fleet(Store::new()));
    // The fixture's entries were written at 0; the changes below at 5 ms (the store's clock),
    // whatever the reader's clock says when it applies them.
    assert_eq!(f.job.last_written_ms(), Some(0));
    f.apply(|r| gone("lease", "delete", "worker.w-3", r));
    assert_eq!(f.job.last_written_ms(), Some(5));
    // An expiry is no write: the time stays the newest write's.
    f.apply(expire_w1);
    assert_eq!(f.job.last_written_ms(), Some(5));
}

#[test]
fn a_crash_that_takes_no_split_in_any_seed_has_nothing_to_recover() {
    let mut f = Followed::new(fleet(Store::new()));
    f.model = Some(Runs(vec![
        SeedRun {
            recovery_ms: Some(0),
            quarantined: 0,
            parked: 0
        };
        3
    ]));
    let v = f.apply(expire_w1).frame(31_000);
    assert_eq!(
        v[0].recovery,
        ["Nothing to recover (simulated, 3 seeds): every split it owned already runs on another member."]
    );
}

#[test]
fn a_member_back_within_the_window_cancels_it_and_keeps_its_splits() {
    // timing.md §5.3: a return within the window cancels it; the sticky pass hands the splits
    // back to the returner.
    let mut f = Followed::new(fleet(Store::new()));
    f.apply(expire_w1).frame(31_000);
    let back = json!({"schema": 3, "nonce": "n-w-1b", "max_in_flight": 2}).to_string();
    let v = f.apply(|r| put("lease", "worker.w-1", r, &back)).frame(40_000);
    let crash = v
        .iter()
        .find(|i| i.title == "w-1 crashed")
        .expect("the crash is still listed");
    assert_eq!(serde_json::to_value(crash.phase).unwrap(), "returned");
    assert!(
        crash
            .leader
            .starts_with("It came back at 00:00:40 UTC: the window is cancelled and its 2 runnable splits"),
        "{}",
        crash.leader
    );
    // nothing is awaited any more: past the window's latest end it is not "overdue"
    let later = incident_views(&f.log, 200_000);
    let crash = later.iter().find(|i| i.title == "w-1 crashed").unwrap();
    assert!(
        !crash.leader.contains("is the leader running"),
        "{}",
        crash.leader
    );
}

#[test]
fn a_crash_awaited_is_shown_before_a_later_leader_change() {
    // The leader's own crash: its presence lapses and a new leader's key follows within
    // milliseconds (timing.md §4); the card shows the crash, whose splits are withheld.
    let mut f = Followed::new(fleet(Store::new()));
    let lead = json!({"schema": 3, "owner": "w-3", "nonce": "l3", "generation": 2}).to_string();
    let v = f
        .apply(expire_w1)
        .apply(|r| put("lease", "leader", r, &lead))
        .frame(31_000);
    let titles: Vec<_> = v.iter().map(|i| i.title.as_str()).collect();
    assert_eq!(titles, ["w-1 crashed", "w-3 leads"]);
}

#[test]
fn with_no_rebalance_delay_nothing_is_withheld() {
    let mut f = Followed::new(fleet(Store::new()));
    f.scenario = Scenario {
        rebalance_delay_ms: Some(0),
        ..Scenario::default()
    };
    let v = f.apply(expire_w1).frame(31_000);
    assert_eq!(
        (v[0].window_ends_ms, v[0].window_ends_by_ms),
        (Some(30_000), Some(30_000))
    );
    assert!(
        v[0].leader
            .starts_with("With no rebalance delay the leader withholds nothing"),
        "{}",
        v[0].leader
    );
}

#[test]
fn the_attempt_limit_comes_from_the_scenario_when_not_given() {
    let mut f = Followed::new(fleet(Store::new()).split("e", 10, Some("w-1"), 1, 2));
    f.scenario = Scenario {
        max_attempts: Some(3),
        ..Scenario::default()
    };
    let v = f.apply(expire_w1).frame(31_000);
    assert!(
        v[0].risk[0].starts_with("1 split (10 B) at attempts 2 of 3"),
        "{:?}",
        v[0].risk
    );
}

#[test]
fn only_runnable_splits_are_waiting_and_the_card_says_so() {
    // A completed split whose record still names the member is counted by the findings'
    // "withheld" but is not waiting to run: the card counts the runnable ones and says so.
    let mut f = Followed::new(fleet(Store::new()).progress("done", "completed", Some("w-1"), 1, 0));
    let v = f.apply(expire_w1).frame(31_000);
    assert_eq!(v[0].withheld.splits, 2);
    assert!(
        v[0].leader
            .starts_with("The leader withholds its 2 runnable splits (1.0 GiB)"),
        "{}",
        v[0].leader
    );
}

#[test]
fn extreme_store_times_are_written_without_overflow() {
    // A presence whose purge marker is dated at the far end of i64 (a hostile or broken store),
    // recovered u64::MAX ms later: every time and span saturates instead of overflowing.
    let far = json!({"schema": 3, "nonce": "n-w-9", "max_in_flight": 1}).to_string();
    let mut f = Followed::new(fleet(Store::new()));
    f.model = Some(Runs(vec![SeedRun {
        recovery_ms: Some(u64::MAX),
        quarantined: 0,
        parked: 0,
    }]));
    f.apply(|r| put("lease", "worker.w-9", r, &far)).frame(1_000);
    let v = f
        .apply(|r| gone("lease", "purge", "worker.w-1", r))
        .frame(i64::MIN);
    assert!(v.iter().any(|i| i.title == "w-1 crashed"));
    for at in [i64::MIN, 0, i64::MAX] {
        assert!(!incident_views(&f.log, at).is_empty());
    }
}

#[test]
fn a_baseline_planned_by_the_caller_gives_the_incidents_planning_it_here_gives() {
    // The page and watch plan each frame anyway and pass that plan in; it must be the plan the
    // log would make of the frame (the scenario's settings on the frame's fleet).
    let store = fleet(Store::new()).split("e", 10, Some("w-1"), 1, 2);
    let mut a = Followed::new(store.clone());
    let mut b = Followed::new(store);
    let mine = a.apply(expire_w1).frame(31_000);
    b.apply(expire_w1);
    let f = b.job.frame(31_000).unwrap();
    let sc = Scenario::default();
    let planned = spate_planner_core::analyse_partly(&f.fleet, &sc.baseline());
    let inputs = IncidentInputs {
        scenario: &sc,
        max_attempts: None,
        recovery: None,
        baseline: Some(&planned),
    };
    b.log.observe(&f.changes, &f.fleet, &inputs);
    assert_eq!(incident_views(&b.log, 31_000), mine);
    // and it is the one used: a baseline planned with no rebalance delay gives that window
    let mut c = Followed::new(fleet(Store::new()));
    c.apply(expire_w1);
    let f = c.job.frame(31_000).unwrap();
    let no_delay = Scenario {
        rebalance_delay_ms: Some(0),
        ..Scenario::default()
    };
    let planned = spate_planner_core::analyse_partly(&f.fleet, &no_delay);
    let inputs = IncidentInputs {
        scenario: &sc,
        max_attempts: None,
        recovery: None,
        baseline: Some(&planned),
    };
    c.log.observe(&f.changes, &f.fleet, &inputs);
    assert_eq!(incident_views(&c.log, 31_000)[0].window_ends_ms, Some(30_000));
}

/// A recording of [`fleet`]: its state at 0, then each change event at its recorded time.
fn recording(lines: &[(i64, String)]) -> Recording {
    let snap = fleet(Store::new()).snapshot();
    let names = (snap.state.name.clone(), snap.lease.name.clone());
    let bucket = |side: Side| match side {
        Side::State => names.0.clone(),
        Side::Lease => names.1.clone(),
    };
    let mut text = vec![
        RecordingHeader::new("j", 1, 0, snap.source.clone()).to_line(),
        state_line(0, StateReason::Start, &snap),
    ];
    for (at, data) in lines {
        text.push(change_line(*at, &LiveChange::parse(data, bucket).unwrap()));
    }
    Recording::parse(&(text.join("\n") + "\n")).unwrap()
}

#[test]
fn a_recording_replays_its_incidents_as_they_stood_at_each_moment() {
    let rec = recording(&[
        // a value the leader refuses (a record of a later schema): nothing can be framed...
        (20_000, put("state", "split.zz", 1_001, r#"{"schema":4}"#)),
        // ...so w-1's lapse waits until it is mended
        (31_000, expire_w1(0)),
        (35_000, gone("state", "delete", "split.zz", 1_002)),
        // the leader's publish, and the claims, as in the live test above
        (52_000, gone("state", "delete", "assign.w-1", 1_003)),
        (52_000, put("state", "assign.w-3", 1_004, &assign(&["a", "b"]))),
        (52_000, put("lease", "split.a", 1_005, &lease("w-3"))),
        (52_000, put("state", "split.a", 1_006, &progress("a", "w-3", 1))),
        (53_000, put("lease", "split.b", 1_007, &lease("w-2"))),
    ]);
    let replay = Replay::new(rec);
    let mut walked = RecordedIncidents::new(&replay);
    let sc = Scenario::default();
    let inputs = IncidentInputs {
        scenario: &sc,
        max_attempts: None,
        recovery: None,
        baseline: None,
    };
    // Moments: 0 the state, 1 the refused value, 2 the lapse, 3 mended, 4–7 the publish's
    // batch, 8 the last claim. The views are written at each moment's recorded time.
    let mut at = |m: usize, now: i64| incident_views(walked.at(m, &inputs).unwrap(), now);
    let phase = |v: &[IncidentView]| serde_json::to_value(v[0].phase).unwrap();
    assert!(at(0, 0).is_empty());
    assert!(at(2, 31_000).is_empty(), "not framed while a value is refused");
    let v = at(3, 35_000);
    assert_eq!(v.len(), 1);
    assert_eq!((v[0].title.as_str(), v[0].at_ms), ("w-1 crashed", 30_000));
    assert_eq!(
        (v[0].window_ends_ms, v[0].window_ends_by_ms),
        (Some(50_000), Some(80_000))
    );
    assert_eq!(phase(&v), "withheld");
    // Within the publish's batch the log is the one before it (the batch is framed whole).
    assert_eq!(phase(&at(5, 52_000)), "due");
    let v = at(7, 52_000);
    assert_eq!(phase(&v), "released");
    assert_eq!(v[0].verdict[0], "Published as predicted: 2 of 2.");
    assert_eq!(phase(&at(8, 53_000)), "settled");
    // Back in the recording: the log as it stood then, not the one walked since.
    assert_eq!(phase(&at(3, 35_000)), "withheld");
    assert!(at(1, 20_000).is_empty());
    assert!(walked.at(9, &inputs).is_err(), "no moment past the last");
}
