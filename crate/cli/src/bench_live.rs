//! `spate-planner bench --live`: what one frame of the live page costs, natively, on a demo job
//! followed live: a change applied, the fleet joined (incrementally, and whole for comparison),
//! the plan and its report, the fleet's summary, the plan view as the page gets it.

use spate_planner_core::{
    analyse, demo_snapshot,
    report::{published_distance, report},
    review::{fleet_info, plan_view},
    snapshot::entry_json,
    to_json, DemoParams, Entry, Fleet, LiveJob, Scenario,
};
use std::time::Instant;

fn ms(f: impl FnOnce()) -> f64 {
    let t = Instant::now();
    f();
    t.elapsed().as_secs_f64() * 1e3
}

/// The `i`th change: a member's presence written again with another cap (as the page bench's).
fn presence_change(i: u64, rev: u64) -> String {
    let e = Entry {
        key: format!("worker.bench-{}", i % 50),
        revision: rev,
        created_ms: 1_767_225_600_000,
        value: format!(r#"{{"schema":3,"nonce":"nb","max_in_flight":{}}}"#, 1 + i % 9).into_bytes(),
    };
    format!(r#"{{"bucket":"lease","op":"put","entry":{}}}"#, entry_json(&e))
}

/// Median of a column of figures.
fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Prints the figures of `rounds` frames on a `splits` × `members` demo job.
pub(crate) fn run(splits: usize, members: usize, rounds: usize) -> Result<(), String> {
    let snap = demo_snapshot(&DemoParams {
        splits,
        members,
        ..DemoParams::default()
    })
    .map_err(|e| format!("demo: {e} [{}]", e.code))?;
    let now = snap.taken_at_ms;
    let mut job = None;
    let load = ms(|| job = Some(LiveJob::from_snapshot(&snap).unwrap()));
    let mut job = job.expect("loaded");
    let first = ms(|| drop(job.fleet(now).unwrap()));
    crate::stdout::print_line(format_args!(
        "live {splits}x{members}: records read {load:.1} ms, first whole join {first:.1} ms"
    ));
    let f = job.fleet(now).unwrap();
    crate::stdout::print_line(format_args!(
        "  warnings {}, foreign {}, orphan specs {}, members {}, published {}",
        f.warnings.len(),
        f.foreign.len(),
        f.orphan_specs,
        f.members.len(),
        f.published.len()
    ));
    drop(f);
    let sc = Scenario::parse("").unwrap();
    let mut cols: Vec<Vec<f64>> = vec![Vec::new(); 9];
    let mut fleet: Option<Fleet>;
    let rev0 = job.revisions().lease;
    for i in 0..rounds as u64 {
        let c = presence_change(i, rev0 + 1 + i);
        cols[0].push(ms(|| {
            job.apply(&c).unwrap();
        }));
        fleet = None; // the page's planner drops its fleet first
        cols[1].push(ms(|| fleet = Some(job.fleet(now + i as i64).unwrap())));
        let f = fleet.as_ref().unwrap();
        if i == 0 {
            cols[2].push(ms(|| drop(Fleet::from_snapshot(&job.snapshot(now)).unwrap())));
        }
        let applied = sc.apply(f).unwrap();
        let mut plan = None;
        cols[3].push(ms(|| plan = Some(applied.inputs.plan())));
        let plan = plan.unwrap();
        cols[4].push(ms(|| drop(report(&applied.inputs, &plan))));
        let g = f.plan.as_ref().map(|p| p.generation);
        drop(published_distance(&f.published, g, &plan.assignment));
        cols[5].push(ms(|| drop(published_distance(&f.published, g, &plan.assignment))));
        let mut a = None;
        cols[6].push(ms(|| a = Some(analyse(f, &sc).unwrap())));
        cols[7].push(ms(|| drop(to_json(&plan_view(f, a.as_ref().unwrap())).unwrap())));
        cols[8].push(ms(|| drop(to_json(&fleet_info(f)).unwrap())));
    }
    let names = [
        "apply one change",
        "fleet (incremental join)",
        "whole join (snapshot + from_snapshot, for comparison; once)",
        "plan (desired assignment)",
        "report",
        "published distance",
        "analyse (all of it)",
        "plan view as JSON",
        "fleet info as JSON",
    ];
    for (name, col) in names.iter().zip(cols) {
        crate::stdout::print_line(format_args!("  {name}: median {:.2} ms", median(col)));
    }
    Ok(())
}
