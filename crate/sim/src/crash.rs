//! The sweep's crash model: the core's sweep prices a crash of each step's heaviest member
//! through [`spate_planner_core::CrashModel`], and this is the simulator's answer to it.

use super::options::{Options, SimError};
use super::run::simulate;
use super::script::{Op, Script, ScriptEvent};
use super::start::Start;
use spate_planner_core::{Analysis, CrashError, CrashFigures, CrashModel, Fleet};

/// `script`'s configuration with one event, the member's crash at t = 0, simulated from the fleet
/// settled on the step's plan ([`Start::planned`]); the script's own events are replaced.
pub struct CrashScript<'a>(pub &'a Script);

impl CrashModel for CrashScript<'_> {
    fn crash(&self, fleet: &Fleet, a: &Analysis, member: &str) -> Result<CrashFigures, CrashError> {
        let start = Start::planned(fleet, &a.applied.inputs, &a.assignment);
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
