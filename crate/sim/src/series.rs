//! The Timeline's chart series of a run: per member, the weight and the number of the splits its
//! process reads (running or draining), and the idle splits' weight and number, each as its
//! time-weighted mean over each bucket of the run. A series' area (mean × bucket length, summed)
//! is exactly its split-milliseconds: the idle number's is the `idle_split_ms` figure and the
//! idle weight's the `idle_weighted` figure. Sums are exact integers (weight × ms in u128); only
//! the means are decimals, for drawing.

use crate::at::FleetIndex;
use crate::marks::{Mark, MarkKind};
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

/// Which of a series' values a chart draws.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Metric {
    /// The weight each member's process reads ([`Series::load`]).
    Load,
    /// The number of splits each member's process reads ([`Series::lanes`]).
    Lanes,
}

/// Members a chart draws one by one before the rest are folded.
pub const TOP_MEMBERS: usize = 8;

/// The idle work's name in the chart's legend.
pub const IDLE_LABEL: &str = "idle (runnable, read by nobody)";

/// The members a chart folds into one: how many, their sum per bucket (drawn as one stacked
/// area) and, per bucket, their middle 80% (the 10th and 90th percentiles, nearest rank, so a
/// few stopped members do not stretch it) and their mean (drawn as lines).
#[derive(Clone, Debug, PartialEq)]
pub struct Folded {
    pub count: usize,
    /// The stacked area's name: `9 other members`.
    pub label: String,
    /// The band's name: `9 other members: middle 80% and mean`.
    pub band_label: String,
    pub sum: Vec<f64>,
    pub lo: Vec<f64>,
    pub hi: Vec<f64>,
    pub mean: Vec<f64>,
}

/// What a chart draws of one metric: the members drawn one by one (indices into
/// [`Series::members`], in the order of their colours) and the others folded (`None` when every
/// member is drawn).
#[derive(Clone, Debug, PartialEq)]
pub struct Chart {
    pub metric: Metric,
    pub shown: Vec<usize>,
    pub rest: Option<Folded>,
}

/// The members the marks name as crashed, stopped, started or given a new lane cap, in the order
/// of their first such mark: the members a script touches.
pub fn touched<'a>(marks: impl IntoIterator<Item = &'a Mark>) -> Vec<&'a str> {
    let mut out: Vec<&str> = Vec::new();
    for m in marks {
        if !matches!(
            m.kind,
            MarkKind::Crash | MarkKind::Stop | MarkKind::Start | MarkKind::Cap
        ) {
            continue;
        }
        for w in &m.who {
            if !out.contains(&w.as_str()) {
                out.push(w);
            }
        }
    }
    out
}

/// The value at quantile `q` (0 … 1) of `sorted` by nearest rank (0 for no values).
pub fn quantile(sorted: &[f64], q: f64) -> f64 {
    let rank = (q * sorted.len() as f64).ceil() as usize;
    let i = rank.saturating_sub(1).min(sorted.len().saturating_sub(1));
    sorted.get(i).copied().unwrap_or(0.0)
}

fn spread_of(row: &[f64]) -> f64 {
    let hi = row.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let lo = row.iter().copied().fold(f64::INFINITY, f64::min);
    if row.is_empty() {
        0.0
    } else {
        hi - lo
    }
}

fn members_text(n: usize) -> String {
    format!("{n} other member{}", if n == 1 { "" } else { "s" })
}

impl Series {
    /// The values of `metric`, members × buckets row by row.
    pub fn values(&self, metric: Metric) -> &[f64] {
        match metric {
            Metric::Load => &self.load,
            Metric::Lanes => &self.lanes,
        }
    }

    /// Member `i`'s values of `metric`, one per bucket.
    pub fn row(&self, metric: Metric, i: usize) -> &[f64] {
        &self.values(metric)[i * self.buckets..(i + 1) * self.buckets]
    }

    /// The members a chart draws one by one, in member order: all of them when at most
    /// `top` + 1 (folding one member into a band saves nothing), else the members `touched`
    /// names (the script's, [`touched`]) first, then those whose value changes most over the run
    /// (highest minus lowest bucket; ties by member order), `top` in all.
    pub fn pick(&self, metric: Metric, touched: &[&str], top: usize) -> Vec<usize> {
        let n = self.members.len();
        if n <= top.saturating_add(1) {
            return (0..n).collect();
        }
        let first: Vec<usize> = touched
            .iter()
            .filter_map(|w| self.members.iter().position(|m| m == w))
            .collect();
        let mut rest: Vec<(usize, f64)> = (0..n)
            .filter(|i| !first.contains(i))
            .map(|i| (i, spread_of(self.row(metric, i))))
            .collect();
        rest.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        let mut out: Vec<usize> = first
            .into_iter()
            .chain(rest.into_iter().map(|r| r.0))
            .take(top)
            .collect();
        out.sort_unstable();
        out
    }

    /// The members named `names` (another run's [`Chart::shown`], so that runs compared draw the
    /// same members in the same colours) that this run knows, in that order.
    pub fn shown_as(&self, names: &[String]) -> Vec<usize> {
        names
            .iter()
            .filter_map(|n| self.members.iter().position(|m| m == n))
            .collect()
    }

    /// The chart of `metric` drawing `shown` one by one and folding the others.
    pub fn chart(&self, metric: Metric, shown: Vec<usize>) -> Chart {
        let folded: Vec<usize> = (0..self.members.len()).filter(|i| !shown.contains(i)).collect();
        let rest = (!folded.is_empty()).then(|| self.fold(metric, &folded));
        Chart { metric, shown, rest }
    }

    /// The chart of `metric` as a run is drawn alone (or first): [`Series::pick`] of
    /// [`TOP_MEMBERS`], the members `touched` names ([`touched`] of its marks) first.
    pub fn chart_of(&self, metric: Metric, touched: &[&str]) -> Chart {
        self.chart(metric, self.pick(metric, touched, TOP_MEMBERS))
    }

    /// The members `rows` (at least one) folded into one.
    fn fold(&self, metric: Metric, rows: &[usize]) -> Folded {
        let (k_count, values) = (self.buckets, self.values(metric));
        let mut f = Folded {
            count: rows.len(),
            label: members_text(rows.len()),
            band_label: format!("{}: middle 80% and mean", members_text(rows.len())),
            sum: vec![0.0; k_count],
            lo: vec![0.0; k_count],
            hi: vec![0.0; k_count],
            mean: vec![0.0; k_count],
        };
        let mut at = vec![0.0; rows.len()];
        for k in 0..k_count {
            for (j, &i) in rows.iter().enumerate() {
                at[j] = values[i * k_count + k];
            }
            let sum: f64 = at.iter().sum();
            at.sort_by(f64::total_cmp);
            (f.sum[k], f.mean[k]) = (sum, sum / rows.len() as f64);
            (f.lo[k], f.hi[k]) = (quantile(&at, 0.1), quantile(&at, 0.9));
        }
        f
    }
}
