//! Which release's decision rules apply: Spate 0.1.x/0.2.x (`decision-core.md`) or 0.3.0
//! (`decision-core-0.3.md`, a delta against it).
//!
//! A store shows which release won its last election (0.3 §8): a plan record with an `elector`
//! was written by a 0.3.0 leader; one without it, at generation 1 or more, by a 0.1.x/0.2.x
//! leader; at generation 0 (or with no plan) no election has finished. The choice and where it
//! came from travel together as [`RulesChoice`], shown beside every plan.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// A release's decision rules.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum Rules {
    /// spate-coordination 0.1.x, and 0.2.x (which decides identically).
    #[default]
    #[serde(rename = "0.1", alias = "0.2")]
    V0_1,
    /// spate-coordination 0.3.0.
    #[serde(rename = "0.3")]
    V0_3,
}

impl Rules {
    /// The release as people and files write it: `0.1` or `0.3`.
    pub fn name(self) -> &'static str {
        match self {
            Rules::V0_1 => "0.1",
            Rules::V0_3 => "0.3",
        }
    }

    /// The other rule set (for "what upgrading, or not, changes").
    pub fn other(self) -> Rules {
        match self {
            Rules::V0_1 => Rules::V0_3,
            Rules::V0_3 => Rules::V0_1,
        }
    }
}

impl fmt::Display for Rules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Rules {
    type Err = String;

    /// `0.1`, `0.2` (the same rules) or `0.3`.
    fn from_str(s: &str) -> Result<Rules, String> {
        match s {
            "0.1" | "0.2" => Ok(Rules::V0_1),
            "0.3" => Ok(Rules::V0_3),
            other => Err(format!(
                "{other:?} is not a release whose rules this planner implements (0.1, 0.2 or 0.3)"
            )),
        }
    }
}

/// Where the rules come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum RulesSource {
    /// Set by the user (`--rules`, or the scenario's `rules`).
    User,
    /// The plan record carries an `elector`: a 0.3.0 worker won the last election.
    Elector,
    /// The plan record has no `elector` at generation 1 or more: a 0.1.x/0.2.x worker won it.
    NoElector,
    /// No election has finished (plan generation 0) or there is no plan record: the store names
    /// no version, and 0.1 is assumed.
    StoreNamesNoVersion,
}

/// The rules a plan follows and where they come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct RulesChoice {
    pub rules: Rules,
    pub source: RulesSource,
}

impl RulesChoice {
    /// Rules the user set.
    pub fn user(rules: Rules) -> RulesChoice {
        RulesChoice {
            rules,
            source: RulesSource::User,
        }
    }

    /// One sentence for people: the rules and their source.
    pub fn explain(&self) -> String {
        let r = self.rules.name();
        match self.source {
            RulesSource::User => format!("Spate {r} (set by the user)"),
            RulesSource::Elector => {
                format!("Spate {r} (the plan record's elector: a 0.3.0 worker won the last election)")
            }
            RulesSource::NoElector => format!(
                "Spate {r} (the plan record has no elector: a 0.1.x/0.2.x worker won the last election; 0.1 covers 0.2)"
            ),
            RulesSource::StoreNamesNoVersion => format!(
                "Spate {r} (the store names no version: no election has finished; set --rules 0.3 for a 0.3.0 fleet)"
            ),
        }
    }
}
