//! The Timeline's chart series of a run: per member, the weight and the number of the splits its
//! process reads (running or draining), and the idle splits' weight and number, each as its
//! time-weighted mean over each bucket of the run. A series' area (mean × bucket length, summed)
//! is exactly its split-milliseconds: the idle number's is the `idle_split_ms` figure and the
//! idle weight's the `idle_weighted` figure. Sums are exact integers (weight × ms in u128); only
//! the means are decimals, for drawing.

use crate::at::FleetIndex;
use crate::outcome::Phase;
use serde::Serialize;

/// Most buckets a series has (the chart draws one point per bucket).
pub const MAX_BUCKETS: u64 = 720;

const STEPS_MS: [u64; 13] = [
    1_000, 2_000, 5_000, 10_000, 15_000, 30_000, 60_000, 120_000, 300_000, 600_000, 900_000, 1_800_000,
    3_600_000,
];

/// The bucket width for a run ending at `end_ms`: the smallest round step (1 s or more) giving
/// at most `max` buckets, else a whole number of hours.
pub fn bucket_ms(end_ms: u64, max: u64) -> u64 {
    let max = max.max(1);
    let fits = |s: u64| end_ms.div_ceil(s) <= max;
    match STEPS_MS.into_iter().find(|&s| fits(s)) {
        Some(s) => s,
        None => end_ms.div_ceil(max).div_ceil(3_600_000).saturating_mul(3_600_000),
    }
}

/// A run's series, members × buckets row by row (member `i`'s bucket `k` at `i * buckets + k`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Series {
    /// Every instance the run knows, in the order of [`crate::FleetAt::members`].
    pub members: Vec<String>,
    pub step_ms: u64,
    pub buckets: usize,
    pub end_ms: u64,
    /// The weight each member's process reads.
    pub load: Vec<f64>,
    /// The number of splits each member's process reads.
    pub lanes: Vec<f64>,
    pub idle_load: Vec<f64>,
    pub idle_count: Vec<f64>,
}

impl Series {
    /// Where the Timeline's scrubber starts: the time (ms, whole seconds) with the most idle
    /// splits from the first event on (from the start without events) — the middle of the first
    /// stretch of buckets at that most; the first event's time when nothing is idle then.
    pub fn most_idle_ms(&self, first_event_ms: Option<u64>) -> u64 {
        let first = first_event_ms.unwrap_or(0);
        let Some(last_bucket) = self.buckets.checked_sub(1) else {
            return first.min(self.end_ms);
        };
        let from = usize::try_from(first / self.step_ms.max(1)).map_or(last_bucket, |b| b.min(last_bucket));
        let idle = &self.idle_count[from..=last_bucket];
        // the first bucket at the most (a later equal one is not more idle)
        let best = (0..idle.len()).fold(0, |best, k| if idle[k] > idle[best] { k } else { best });
        if idle[best] <= 0.0 {
            return first.min(self.end_ms);
        }
        let run = idle[best..].iter().take_while(|v| **v == idle[best]).count();
        let (start, end) = ((from + best) as u64, (from + best + run) as u64);
        let mid = (start + end) * self.step_ms / 2;
        (mid / 1000 * 1000).min(self.end_ms)
    }
}

/// Exact areas of step functions per row and bucket: the partial buckets an interval touches
/// directly, the whole ones through a difference array (O(1) per interval).
struct Areas {
    buckets: usize,
    step: u64,
    end: u64,
    part: Vec<u128>,
    whole: Vec<i128>,
}

impl Areas {
    fn new(rows: usize, buckets: usize, step: u64, end: u64) -> Areas {
        Areas {
            buckets,
            step,
            end,
            part: vec![0; rows * buckets],
            whole: vec![0; rows * buckets + 1],
        }
    }

    /// Adds `value` over `[from, to)` to `row`.
    fn add(&mut self, row: usize, from: u64, to: u64, value: u64) {
        if to <= from || value == 0 {
            return;
        }
        let last = self.buckets as u64 - 1;
        let (ka, kb) = ((from / self.step).min(last), ((to - 1) / self.step).min(last));
        let base = row * self.buckets;
        let v = u128::from(value);
        if ka == kb {
            self.part[base + ka as usize] += v * u128::from(to - from);
            return;
        }
        self.part[base + ka as usize] += v * u128::from((ka + 1).saturating_mul(self.step) - from);
        self.part[base + kb as usize] += v * u128::from(to - kb * self.step);
        if kb > ka + 1 {
            self.whole[base + ka as usize + 1] += i128::from(value);
            self.whole[base + kb as usize] -= i128::from(value);
        }
    }

    /// Each bucket's mean (its area over its length; 0 for a bucket of no length).
    fn means(&self) -> Vec<f64> {
        let rows = self.part.len() / self.buckets.max(1);
        let mut out = Vec::with_capacity(self.part.len());
        for r in 0..rows {
            let mut run: i128 = 0;
            for k in 0..self.buckets {
                let i = r * self.buckets + k;
                run += self.whole[i];
                let start = k as u64 * self.step;
                let len = self.step.min(self.end.saturating_sub(start));
                // `run` is a sum of weights of intervals covering the bucket: never negative
                let area = self.part[i] + run.unsigned_abs() * u128::from(self.step);
                out.push(if len == 0 { 0.0 } else { area as f64 / len as f64 });
            }
        }
        out
    }
}

impl FleetIndex {
    /// The run's series in at most `max_buckets` buckets ([`bucket_ms`]).
    pub fn series(&self, max_buckets: u64) -> Series {
        let end = self.end_ms;
        let step = bucket_ms(end, max_buckets);
        let buckets = end.div_ceil(step).max(1) as usize;
        let n = self.members.len();
        let mut held = Areas::new(2 * n, buckets, step, end);
        let mut idle = Areas::new(2, buckets, step, end);
        for s in 0..self.ids.len() {
            let w = self.weight[s];
            for j in self.offsets[s]..self.offsets[s + 1] {
                let (from, to) = (self.from[j], self.to[j]);
                match (self.phase[j], self.member[j]) {
                    (Phase::Running | Phase::Draining, Some(m)) => {
                        held.add(m, from, to, w);
                        held.add(n + m, from, to, 1);
                    }
                    (Phase::Idle, _) => {
                        idle.add(0, from, to, w);
                        idle.add(1, from, to, 1);
                    }
                    _ => {}
                }
            }
        }
        let (mut load, mut idle_load) = (held.means(), idle.means());
        let lanes = load.split_off(n * buckets);
        let idle_count = idle_load.split_off(buckets);
        Series {
            members: self.members.clone(),
            step_ms: step,
            buckets,
            end_ms: end,
            load,
            lanes,
            idle_load,
            idle_count,
        }
    }
}
