//! One script over several seeds: how often the fleet recovers, and how often the claim race
//! (timing.md §6.7) parks splits, which is a matter of chance and so of the seed.

use super::outcome::Figures;
use super::words::{duration_text, thousands};
use serde::Serialize;

/// The figures of one script run over several seeds, in words and numbers.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SeedsSummary {
    /// How many seeds ran.
    pub seeds: u64,
    /// The seeds whose run recovered (`recovery_ms` has a value).
    pub recovered: u64,
    /// The median and the longest recovery of those, if any.
    pub recovery_ms_median: Option<u64>,
    pub recovery_ms_max: Option<u64>,
    /// The seeds whose run had splits parked by the claim race, and how many splits in all.
    pub parked_seeds: u64,
    pub parked_splits: u64,
}

impl SeedsSummary {
    /// The summary of the runs' figures, one per seed.
    pub fn of(runs: &[Figures]) -> SeedsSummary {
        let mut rec: Vec<u64> = runs.iter().filter_map(|f| f.recovery_ms).collect();
        rec.sort_unstable();
        SeedsSummary {
            seeds: runs.len() as u64,
            recovered: rec.len() as u64,
            recovery_ms_median: rec.get(rec.len().saturating_sub(1) / 2).copied(),
            recovery_ms_max: rec.last().copied(),
            parked_seeds: runs.iter().filter(|f| f.splits_parked_by_race > 0).count() as u64,
            parked_splits: runs.iter().map(|f| f.splits_parked_by_race).sum(),
        }
    }

    /// The summary in sentences: how many seeds recovered (and how fast), and, when the race
    /// parked any, in how many seeds and how many splits.
    pub fn sentences(&self) -> Vec<String> {
        let n = match self.seeds {
            1 => "1 seed".to_string(),
            k => format!("{} seeds", thousands(u128::from(k))),
        };
        let mut out = vec![match (self.recovery_ms_median, self.recovery_ms_max) {
            (Some(med), Some(max)) => format!(
                "Recovered in {} of {n} (median {}, at most {}).",
                thousands(u128::from(self.recovered)),
                duration_text(med),
                duration_text(max)
            ),
            _ => format!("Recovered in none of {n}."),
        }];
        if self.parked_seeds > 0 {
            let splits = match self.parked_splits {
                1 => "1 split".to_string(),
                k => format!("{} splits", thousands(u128::from(k))),
            };
            out.push(format!(
                "{} of {n} park splits by the claim race ({splits} in all): right after a claim, for good; those splits never run again.",
                thousands(u128::from(self.parked_seeds))
            ));
        }
        out
    }
}
