//! The sweep's crash model: the core's sweep prices a crash of each step's heaviest member
//! through [`spate_planner_core::CrashModel`], and this is the simulator's answer to it.

use super::options::{Options, SimError};
use super::run::simulate;
use super::script::{Op, Script, ScriptEvent};
use super::start::Start;
use spate_planner_core::{
    sweep::{CrashError, CrashFigures},
    Analysis, CrashModel, ErrorCode, Fleet,
};

/// `script`'s configuration with one event, the member's crash at t = 0, simulated from the fleet
/// settled on the step's plan ([`Start::planned`]) by the rules the step is planned by (the
/// sweep's); the script's own events are replaced. A script that names other rules is refused
/// (`invalid_script` at `rules`) rather than mix one release's plan with the other's timing.
pub struct CrashScript<'a>(pub &'a Script);

impl CrashModel for CrashScript<'_> {
    fn crash(&self, fleet: &Fleet, a: &Analysis, member: &str) -> Result<CrashFigures, CrashError> {
        let rules = a.applied.rules;
        if let Some(r) = self.0.rules.filter(|r| *r != rules.rules) {
            return Err(CrashError {
                code: ErrorCode::InvalidScript,
                path: "rules".into(),
                message: format!(
                    "the crash script names Spate {r}, and the sweep plans by {}: set the sweep's rules (--rules) or leave the script's out",
                    rules.explain()
                ),
            });
        }
        let start = Start::planned(fleet, &a.applied.inputs, &a.assignment, a.applied.rules);
        let run = Script {
            events: vec![ScriptEvent {
                at_ms: 0,
                op: Op::Crash {
                    member: member.to_string(),
                },
            }],
            ..self.0.clone()
        };
        let f = simulate(&start, &run, &Options::default())
            .map_err(crash_error)?
            .figures;
        Ok(CrashFigures::new(
            member.to_string(),
            f.recovery_ms,
            f.idle_split_ms,
            f.idle_weighted,
        ))
    }
}

fn crash_error(e: SimError) -> CrashError {
    CrashError {
        code: e.code,
        message: e.to_string(),
        path: e.path,
    }
}
