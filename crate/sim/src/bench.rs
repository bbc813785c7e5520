//! The benchmark scenario of `spate-planner bench --sim`.

use super::config::{DataPlane, Dist};
use super::script::{Op, Script, ScriptEvent};
use super::start::Start;

/// The benchmark of `spate-planner bench --sim`: a steady fleet of `splits` splits on `members`
/// members (lane budget 2.5 x the even share), 10 simulated minutes, a crash of a member at 60 s
/// and a rolling restart of 10 members (each stopped gracefully, started again with the same id
/// 10 s later, one every 30 s from 120 s), drains of 2 s. With `bytes`, weights are byte counts
/// as Spate's S3 source makes them (heavy-tailed: the leader's improving moves churn more);
/// otherwise all weights are 1.
pub fn bench_scenario(splits: usize, members: usize, bytes: bool) -> (Start, Script) {
    let members = members.max(2);
    let cap = u32::try_from((splits * 5).div_ceil(members * 2).max(1)).unwrap_or(u32::MAX);
    let start = if bytes {
        Start::steady_bytes(splits, members, cap, 7)
    } else {
        Start::steady(splits, members, cap, 1)
    };
    let mut events = vec![ScriptEvent {
        at_ms: 60_000,
        op: Op::Crash {
            member: format!("worker-{:02}", members * 3 / 5),
        },
    }];
    for i in 0..10.min(members - 1) {
        let member = format!("worker-{:02}", i + 2);
        let at = 120_000 + 30_000 * i as u64;
        events.push(ScriptEvent {
            at_ms: at,
            op: Op::Stop {
                member: member.clone(),
            },
        });
        events.push(ScriptEvent {
            at_ms: at + 10_000,
            op: Op::Start {
                member,
                cap: Some(cap),
            },
        });
    }
    let script = Script {
        seed: 1,
        until_ms: 600_000,
        data_plane: DataPlane {
            drain_ms: Dist::Const(2_000),
            ..DataPlane::default()
        },
        events,
        ..Script::default()
    };
    (start, script)
}
