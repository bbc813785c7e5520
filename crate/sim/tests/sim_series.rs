//! The Timeline's chart series (docs/simulator.md, "The chart's series"): a run's end cut into at
//! most 720 buckets of a round width; in each bucket, the time-weighted mean of the weight and the
//! number of splits each member's process reads (running or draining) and of the idle splits.
//! The rules checked: a bucket's mean is its area over its length (the last bucket may be
//! shorter); a series' area over the run is its split-milliseconds, so the idle number's is the
//! `idle_split_ms` figure and the idle weight's the `idle_weighted` figure.

use crate::sim_support;

use sim_support::interval as iv;
use spate_planner_sim::{
    bench_scenario, bucket_ms, quantile, simulate, touched, FleetIndex, Initial, Interval, Mark, MarkKind,
    Metric, Options, Phase, Series, TimelineEvent, What, MAX_BUCKETS, TOP_MEMBERS,
};
use std::collections::BTreeMap;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

/// An index of `splits` (id → weight, intervals) with starting members `members`, ending at `end`.
fn index(
    members: &[&str],
    timeline: &[TimelineEvent],
    splits: &[(&str, u64, Vec<Interval>)],
    end: u64,
) -> FleetIndex {
    let members: Vec<String> = members.iter().map(|m| m.to_string()).collect();
    let weights: BTreeMap<String, u64> = splits.iter().map(|s| (s.0.to_string(), s.1)).collect();
    let intervals: BTreeMap<String, Vec<Interval>> =
        splits.iter().map(|s| (s.0.to_string(), s.2.clone())).collect();
    let weight_of = |id: &str| weights[id];
    let owner_of = |_: &str| None;
    let initial = Initial {
        members: &members,
        leader: None,
        weight_of: &weight_of,
        owner_of: &owner_of,
    };
    FleetIndex::from_parts(timeline, &intervals, end, &initial)
}

#[test]
fn the_bucket_is_the_smallest_round_width_giving_at_most_720() {
    assert_eq!(MAX_BUCKETS, 720);
    assert_eq!(bucket_ms(600_000, 720), 1_000, "600 one-second buckets");
    assert_eq!(bucket_ms(720_000, 720), 1_000);
    assert_eq!(bucket_ms(720_001, 720), 2_000);
    assert_eq!(bucket_ms(3_600_000, 720), 5_000);
    assert_eq!(bucket_ms(5_000, 720), 1_000);
    assert_eq!(bucket_ms(50, 720), 1_000);
    assert_eq!(bucket_ms(0, 720), 1_000);
    // beyond 720 hours: whole hours
    assert_eq!(bucket_ms(1u64 << 32, 720), 7_200_000);
    let huge = bucket_ms(u64::MAX, 720);
    assert!(u64::MAX.div_ceil(huge) <= 720 && huge % 3_600_000 == 0);
}

#[test]
fn a_bucket_holds_the_mean_over_its_length_and_the_last_may_be_shorter() {
    use Phase::*;
    // 1 s buckets over 3.5 s: the last is 500 ms long
    let ix = index(
        &["a"],
        &[],
        &[
            // half of bucket 0, buckets 1 and 2 whole, half of bucket 3's 500 ms
            ("s1", 2, vec![iv(500, 3_250, Running, Some("a"))]),
            // inside bucket 1, draining counts as read
            ("s2", 10, vec![iv(1_200, 1_300, Draining, Some("a"))]),
            (
                "s3",
                4,
                vec![iv(0, 2_000, Idle, None), iv(2_000, 3_500, Completed, None)],
            ),
        ],
        3_500,
    );
    let s = ix.series(MAX_BUCKETS);
    assert_eq!((s.step_ms, s.buckets, s.end_ms), (1_000, 4, 3_500));
    assert_eq!(s.members, ["a"]);
    assert_eq!(s.load, [1.0, 2.0 + 1.0, 2.0, 1.0]);
    assert_eq!(s.lanes, [0.5, 1.1, 1.0, 0.5]);
    assert_eq!(s.idle_load, [4.0, 4.0, 0.0, 0.0]);
    assert_eq!(s.idle_count, [1.0, 1.0, 0.0, 0.0]);
}

#[test]
fn members_are_the_starting_ones_then_the_started_each_its_row() {
    use Phase::*;
    let started = TimelineEvent {
        t_ms: 20_000,
        what: What::Started {
            member: "n1".into(),
            nonce: "x".into(),
            cap: 8,
        },
    };
    // w1 crashes at 10 s: s2 idle until w2 claims it at 40 s; s3 idle, quarantined at 50 s
    let ix = index(
        &["w1", "w2"],
        &[started],
        &[
            ("s1", 100, vec![iv(0, 60_000, Running, Some("w2"))]),
            (
                "s2",
                40,
                vec![
                    iv(0, 10_000, Running, Some("w1")),
                    iv(10_000, 40_000, Idle, None),
                    iv(40_000, 60_000, Running, Some("w2")),
                ],
            ),
            (
                "s3",
                7,
                vec![iv(0, 50_000, Idle, None), iv(50_000, 60_000, Quarantined, None)],
            ),
            (
                "s4",
                9,
                vec![iv(0, 30_000, Idle, None), iv(30_000, 60_000, Running, Some("n1"))],
            ),
        ],
        60_000,
    );
    let s = ix.series(MAX_BUCKETS);
    assert_eq!(s.members, ["w1", "w2", "n1"]);
    assert_eq!((s.step_ms, s.buckets), (1_000, 60));
    let row = |v: &[f64], i: usize| v[i * 60..(i + 1) * 60].to_vec();
    let by = |f: &dyn Fn(usize) -> f64| (0..60).map(f).collect::<Vec<f64>>();
    assert_eq!(row(&s.load, 0), by(&|k| if k < 10 { 40.0 } else { 0.0 }));
    assert_eq!(row(&s.load, 1), by(&|k| if k < 40 { 100.0 } else { 140.0 }));
    assert_eq!(row(&s.lanes, 1), by(&|k| if k < 40 { 1.0 } else { 2.0 }));
    assert_eq!(row(&s.load, 2), by(&|k| if k < 30 { 0.0 } else { 9.0 }));
    let idle = |k| match k {
        0..10 => 2.0,
        10..30 => 3.0,
        30..40 => 2.0,
        40..50 => 1.0,
        _ => 0.0,
    };
    assert_eq!(s.idle_count, by(&idle));
}

/// The area of a series: each bucket's mean times its length.
fn area(values: &[f64], step: u64, end: u64) -> f64 {
    values
        .iter()
        .enumerate()
        .map(|(k, v)| v * step.min(end - k as u64 * step) as f64)
        .sum()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * b.abs().max(1.0)
}

#[test]
fn a_real_run_s_series_integrate_to_its_figures_and_its_intervals() {
    let (start, script) = bench_scenario(300, 8, true);
    let o = simulate(&start, &script, &Options::default()).unwrap();
    let s = FleetIndex::new(&o, &start, &script).series(MAX_BUCKETS);
    let (step, end, k) = (s.step_ms, s.end_ms, s.buckets);
    assert_eq!(end, o.figures.end_ms);
    assert!(o.figures.idle_split_ms > 0, "the scenario has idle work");
    let idle_ms = area(&s.idle_count, step, end);
    assert!(
        close(idle_ms, o.figures.idle_split_ms as f64),
        "{idle_ms} vs {}",
        o.figures.idle_split_ms
    );
    let idle_w = area(&s.idle_load, step, end);
    assert!(
        close(idle_w, o.figures.idle_weighted as f64),
        "{idle_w} vs {}",
        o.figures.idle_weighted
    );
    // each member's lanes integrate to the time its process held running or draining intervals
    let mut held: BTreeMap<&str, u64> = BTreeMap::new();
    for i in o.splits.values().flatten().filter(|i| i.phase.runs()) {
        *held.entry(i.member.as_deref().unwrap()).or_default() += i.to_ms - i.from_ms;
    }
    for (m, name) in s.members.iter().enumerate() {
        let got = area(&s.lanes[m * k..(m + 1) * k], step, end);
        let want = held.get(name.as_str()).copied().unwrap_or(0) as f64;
        assert!(close(got, want), "{name}: {got} vs {want}");
    }
}

/// The scrubber's start (docs/simulator.md): the most idle moment from the first event on, the
/// middle of the first stretch at the most, in whole seconds; the event itself when nothing is
/// idle after it. A run of 60 one-second buckets: 1 split idle until 10 s, 2 until 40 s, 1 until
/// 50 s, none after.
#[test]
fn the_scrubber_starts_at_the_most_idle_moment_from_the_first_event_on() {
    let idle: Vec<f64> = (0..60)
        .map(|k| match k {
            0..=9 => 1.0,
            10..=39 => 2.0,
            40..=49 => 1.0,
            _ => 0.0,
        })
        .collect();
    let s = Series {
        members: vec![],
        step_ms: 1000,
        buckets: 60,
        end_ms: 60_000,
        load: vec![],
        lanes: vec![],
        idle_load: idle.clone(),
        idle_count: idle,
    };
    assert_eq!(s.most_idle_ms(Some(10_000)), 25_000, "10 s … 40 s, its middle");
    assert_eq!(s.most_idle_ms(None), 25_000, "without events: from the start");
    assert_eq!(
        s.most_idle_ms(Some(45_000)),
        47_000,
        "45 s … 50 s: 47.5 s, in whole seconds"
    );
    assert_eq!(
        s.most_idle_ms(Some(55_000)),
        55_000,
        "nothing idle after it: the event itself"
    );
    assert_eq!(
        s.most_idle_ms(Some(600_000)),
        60_000,
        "an event past the end: the end"
    );
    let empty = Series {
        buckets: 0,
        idle_count: vec![],
        idle_load: vec![],
        ..s
    };
    assert_eq!(empty.most_idle_ms(Some(5_000)), 5_000);
}

/// A hand-made series of `rows` (one per member, `m0`, `m1`, …, each of the same buckets), the
/// same values as load and lanes.
fn fleet(rows: &[Vec<f64>]) -> Series {
    let buckets = rows.first().map_or(0, Vec::len);
    let values: Vec<f64> = rows.iter().flatten().copied().collect();
    Series {
        members: (0..rows.len()).map(|i| format!("m{i}")).collect(),
        step_ms: 1_000,
        buckets,
        end_ms: buckets as u64 * 1_000,
        load: values.clone(),
        lanes: values,
        idle_load: vec![0.0; buckets],
        idle_count: vec![0.0; buckets],
    }
}

fn mark(t_ms: u64, kind: MarkKind, who: &[&str]) -> Mark {
    Mark {
        t_ms,
        kind,
        who: who.iter().map(|w| w.to_string()).collect(),
    }
}

#[test]
fn the_members_drawn_are_those_the_script_touches_then_the_largest_change() {
    // twelve members at 10; m11 changes by 10, m4 by 2, the others not at all
    let rows: Vec<Vec<f64>> = (0..12)
        .map(|i| {
            (0..3)
                .map(|k| {
                    10.0 + if i == 11 { k as f64 * 5.0 } else { 0.0 } + if i == 4 { k as f64 } else { 0.0 }
                })
                .collect()
        })
        .collect();
    let s = fleet(&rows);
    // crashed m7 (an election names m2: not touched by the script)
    let marks = [
        mark(0, MarkKind::Crash, &["m7"]),
        mark(1, MarkKind::Election, &["m2"]),
        mark(2, MarkKind::Start, &["m9", "m7", "new"]),
    ];
    let t = touched(&marks);
    assert_eq!(t, ["m7", "m9", "new"], "in order of first mark, each once");
    assert_eq!(
        s.pick(Metric::Load, &t, 3),
        [7, 9, 11],
        "touched first, then the largest change (m11's 10 before m4's 2), in member order"
    );
    assert_eq!(s.pick(Metric::Load, &t[..1], 3), [4, 7, 11]);
    // ties by member order: of the unchanged m0, m1 … the first
    assert_eq!(s.pick(Metric::Load, &[], 4), [0, 1, 4, 11]);
    // at most top + 1 members: all drawn, nothing folded
    let few = fleet(&rows[..4]);
    assert_eq!(few.pick(Metric::Load, &[], 3), [0, 1, 2, 3]);
    assert_eq!(few.chart_of(Metric::Load, &[]).rest, None);
    // the chart a run is drawn with: TOP_MEMBERS, touched first
    let c = s.chart_of(Metric::Lanes, &t);
    assert_eq!(c.shown.len(), TOP_MEMBERS);
    assert!(c.shown.contains(&7) && c.shown.contains(&9) && c.shown.contains(&11) && c.shown.contains(&4));
    assert_eq!(c.rest.as_ref().map(|r| r.count), Some(12 - TOP_MEMBERS));
}

#[test]
fn a_run_compared_draws_the_members_the_first_run_draws_in_its_order() {
    let s = fleet(&[vec![1.0], vec![2.0], vec![3.0]]);
    let names = ["m2".to_string(), "gone".to_string(), "m0".to_string()];
    assert_eq!(
        s.shown_as(&names),
        [2, 0],
        "those it knows, in the first run's order"
    );
    let c = s.chart(Metric::Load, s.shown_as(&names));
    let rest = c.rest.expect("m1 folded");
    assert_eq!((rest.count, rest.label.as_str()), (1, "1 other member"));
    assert_eq!(rest.sum, [2.0]);
}

#[test]
fn the_rest_is_summed_and_banded_by_its_middle_80_percent_and_mean() {
    // ten members folded in bucket 0: 0, 5 × 8, 9; in bucket 1 eleven values with one member shown
    let ten = [0.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0, 9.0];
    let mut rows: Vec<Vec<f64>> = ten.iter().map(|&v| vec![v, 5.0]).collect();
    rows.push(vec![100.0, 100.0]);
    let s = fleet(&rows);
    let c = s.chart(Metric::Load, vec![10]);
    let r = c.rest.expect("ten folded");
    assert_eq!(r.count, 10);
    assert_eq!(r.label, "10 other members");
    assert_eq!(r.band_label, "10 other members: middle 80% and mean");
    // nearest rank: of ten values the lowest is the 10th percentile, the 9th the 90th
    assert_eq!((r.lo[0], r.hi[0], r.mean[0], r.sum[0]), (0.0, 5.0, 4.9, 49.0));
    assert_eq!((r.lo[1], r.hi[1], r.mean[1], r.sum[1]), (5.0, 5.0, 5.0, 50.0));
    // of eleven, the lowest is left out
    let eleven = [0.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0, 9.0];
    assert_eq!((quantile(&eleven, 0.1), quantile(&eleven, 0.9)), (5.0, 5.0));
    assert_eq!(quantile(&[1.0, 2.0, 3.0, 4.0], 0.5), 2.0);
    assert_eq!(quantile(&[], 0.5), 0.0);
    // every member drawn: nothing folded
    assert_eq!(s.chart(Metric::Load, (0..11).collect()).rest, None);
}
