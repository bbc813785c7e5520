//! The flags that set what the store does not show of the leader, shared by `plan`, `claims` and
//! `report`. They become the scenario the core plans with, so the printed scenario shows them.

use spate_planner_core::{analyse_partly, scenario::Change, Analysis, Fleet, Rules, Scenario};
use std::path::PathBuf;

#[derive(clap::Args)]
pub(crate) struct LeaderFlags {
    /// The leader's default cap (its own max_in_flight). Default: the leader's presence value in
    /// the snapshot, else Spate's 8 (with a warning). Overrides the what-if file's default_cap.
    #[arg(long, value_name = "N")]
    default_cap: Option<u32>,
    /// The leader's rebalance delay: 0 models a leader configured with no delay (nothing is
    /// withheld). A number of seconds, or with a unit: 500ms, 20s, 1m. Default: Spate's 20s.
    #[arg(long, value_name = "DURATION")]
    rebalance_delay: Option<String>,
    /// Stop withholding the splits of a recently departed instance (its delay is over).
    /// Repeatable.
    #[arg(long, value_name = "INSTANCE")]
    release_departed: Vec<String>,
    /// Fleet changes to apply before planning (docs/scenario-format.md).
    #[arg(long, value_name = "FILE")]
    what_if: Option<PathBuf>,
    /// Fail when a change of the scenario does not apply. Without it, each change that does not
    /// apply is left out and named on standard error (and in the JSON document's `refused`), and
    /// the rest are planned.
    #[arg(long)]
    strict: bool,
    /// Decide by this release's rules: 0.1 (also 0.2) or 0.3. Default: the release the store
    /// names (a plan record with an elector: 0.3; else 0.1). Overrides the what-if file's rules.
    #[arg(long, value_name = "VERSION")]
    rules: Option<Rules>,
}

/// Milliseconds of a duration written as `N` (seconds), `Nms`, `Ns` or `Nm`.
pub(crate) fn parse_duration_ms(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let (digits, scale) = if let Some(n) = t.strip_suffix("ms") {
        (n, 1)
    } else if let Some(n) = t.strip_suffix('s') {
        (n, 1000)
    } else if let Some(n) = t.strip_suffix('m') {
        (n, 60_000)
    } else {
        (t, 1000)
    };
    digits
        .trim()
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(scale))
        .ok_or_else(|| format!("{text:?} is not a duration (give seconds, or 500ms, 20s, 1m)"))
}

impl LeaderFlags {
    /// The what-if file (if any) with these flags applied on top.
    pub(crate) fn scenario(&self) -> Result<Scenario, String> {
        let mut scenario = match &self.what_if {
            None => Scenario::default(),
            Some(p) => crate::support::scenario(p)?,
        };
        if let Some(cap) = self.default_cap {
            scenario.default_cap = Some(cap);
        }
        if let Some(rules) = self.rules {
            scenario.rules = Some(rules);
        }
        if let Some(d) = &self.rebalance_delay {
            scenario.rebalance_delay_ms =
                Some(parse_duration_ms(d).map_err(|e| format!("--rebalance-delay: {e}"))?);
        }
        for x in &self.release_departed {
            scenario
                .changes
                .push(Change::ReleaseDeparted { member: x.clone() });
        }
        Ok(scenario)
    }
}

impl LeaderFlags {
    /// The scenario planned on `fleet` as far as it applies (the core's one policy); each change
    /// left out is named on standard error. With `--strict`, a change left out is an error.
    pub(crate) fn analyse(&self, fleet: &Fleet) -> Result<Analysis, String> {
        self.analyse_at(fleet, None)
    }

    /// As [`LeaderFlags::analyse`], the workers' `max_attempts` set to `max_attempts` when given
    /// (`--max-attempts`, over the what-if file's).
    pub(crate) fn analyse_at(&self, fleet: &Fleet, max_attempts: Option<u32>) -> Result<Analysis, String> {
        let mut scenario = self.scenario()?;
        if max_attempts.is_some() {
            scenario.max_attempts = max_attempts;
        }
        let a = analyse_partly(fleet, &scenario);
        for r in &a.refused {
            eprintln!(
                "{}: change {} not applied, left out of the plan: {} at {} [{}]",
                if self.strict { "error" } else { "warning" },
                r.index + 1,
                crate::term::shown(&r.message),
                crate::term::shown(&r.path),
                r.code
            );
        }
        if self.strict && !a.refused.is_empty() {
            return Err(format!(
                "{} change(s) of the scenario do not apply (--strict)",
                a.refused.len()
            ));
        }
        Ok(a)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_as_people_write_them() {
        assert_eq!(parse_duration_ms("0"), Ok(0));
        assert_eq!(parse_duration_ms("20"), Ok(20_000));
        assert_eq!(parse_duration_ms("20s"), Ok(20_000));
        assert_eq!(parse_duration_ms("500ms"), Ok(500));
        assert_eq!(parse_duration_ms("1m"), Ok(60_000));
        assert!(parse_duration_ms("soon").is_err());
        assert!(
            parse_duration_ms("18446744073709551615m").is_err(),
            "overflow is an error, not a wrap"
        );
    }
}
