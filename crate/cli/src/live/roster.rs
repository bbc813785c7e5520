//! Which jobs `serve --server` follows continuously (issue 34, "many jobs per server"): the
//! selection (`--job NAME`, `--jobs PATTERN`, or every job on the server), the cap
//! (`--max-jobs`), and what the last listing of the server's buckets found. Pure: the listing
//! is an argument (`discover.rs` makes it), and so is time.
//!
//! A job is **followed** (its state held and kept current from the start, its series on
//! `/metrics`) when the selection names or matches it and there is room under the cap. Jobs
//! followed stay followed while they are listed; a job listed later takes a free place, in name
//! order. A job past the cap is listed **not followed** and says why; a page may still open it
//! (it is then followed while the page listens, as any job on demand). A job whose buckets are
//! gone from the listing is dropped, unless `--job` named it (that one waits for its buckets).
//!
//! A job is **idle** when nothing was written to either of its buckets for `--idle-after` (its
//! workers renew their leases every few seconds while they run, so an idle job has none
//! running): it is dropped (not followed, said so with the time of its last write) and its
//! place goes to a job waiting past the cap; the listing after its next write follows it again.
//! Jobs `--job` named are never dropped as idle.

use serde::Serialize;
use spate_planner_core::valid_job_name;
use std::collections::BTreeMap;

/// The longest `--jobs` pattern, in bytes (a job name is at most 64).
const MAX_PATTERN: usize = 64;

/// The jobs asked for: names (`--job`) and patterns (`--jobs`); neither means every job.
#[derive(Clone, Debug, Default)]
pub(crate) struct Selection {
    names: Vec<String>,
    patterns: Vec<String>,
}

/// `*` any run of characters (none included), `?` one; everything else itself.
fn glob(pattern: &[u8], name: &[u8]) -> bool {
    let (mut p, mut n) = (0, 0);
    // where the last `*` was, and the name's position it matched up to
    let mut star: Option<(usize, usize)> = None;
    while n < name.len() {
        match pattern.get(p) {
            Some(b'*') => {
                star = Some((p, n));
                p += 1;
            }
            Some(&c) if c == b'?' || c == name[n] => {
                p += 1;
                n += 1;
            }
            _ => match star {
                Some((sp, sn)) => {
                    (p, n) = (sp + 1, sn + 1);
                    star = Some((sp, sn + 1));
                }
                None => return false,
            },
        }
    }
    pattern[p..].iter().all(|&c| c == b'*')
}

impl Selection {
    /// The selection of `--job` names and `--jobs` patterns, or why one is refused (naming it).
    pub(crate) fn new(names: &[String], patterns: &[String]) -> Result<Selection, String> {
        for n in names {
            if !valid_job_name(n) {
                return Err(format!(
                    "--job {n:?}: Spate job names are 1 to 64 of A-Z a-z 0-9 _ -"
                ));
            }
        }
        for p in patterns {
            let ok = !p.is_empty()
                && p.len() <= MAX_PATTERN
                && p.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"_-*?".contains(&b));
            if !ok {
                return Err(format!(
                    "--jobs {p:?}: a pattern is 1 to {MAX_PATTERN} of A-Z a-z 0-9 _ - and the wildcards * (any run) and ? (one character)"
                ));
            }
        }
        let mut names = names.to_vec();
        names.sort();
        names.dedup();
        Ok(Selection {
            names,
            patterns: patterns.to_vec(),
        })
    }

    /// Every job on the server.
    pub(crate) fn is_all(&self) -> bool {
        self.names.is_empty() && self.patterns.is_empty()
    }

    /// The jobs `--job` named (followed whether or not they are listed).
    pub(crate) fn named(&self) -> &[String] {
        &self.names
    }

    /// The one job served, when `--job` named one and nothing else was asked for.
    pub(crate) fn only(&self) -> Option<&str> {
        match (self.names.as_slice(), self.patterns.is_empty()) {
            ([one], true) => Some(one),
            _ => None,
        }
    }

    pub(crate) fn matches(&self, job: &str) -> bool {
        self.is_all()
            || self.names.iter().any(|n| n == job)
            || self.patterns.iter().any(|p| glob(p.as_bytes(), job.as_bytes()))
    }

    /// Why `job` is not served, when the selection leaves it out.
    pub(crate) fn refuses(&self, job: &str) -> Option<String> {
        if self.matches(job) {
            return None;
        }
        if let Some(only) = self.only() {
            return Some(format!("this server follows job {only:?} only"));
        }
        let mut asked: Vec<String> = self.names.iter().map(|n| format!("{n:?}")).collect();
        asked.extend(self.patterns.iter().map(|p| format!("{p:?}")));
        Some(format!(
            "this server follows the jobs {} only, not {job:?}",
            asked.join(", ")
        ))
    }
}

/// Why a listed job is not followed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum NotFollowed {
    /// `--max-jobs` jobs are followed already.
    PastCap,
    /// Nothing was written to its buckets since `since_ms` (ms since the Unix epoch), longer
    /// ago than `--idle-after`.
    Idle { since_ms: i64 },
}

/// A job as one listing of the server's buckets found it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Found {
    pub job: String,
    /// When either of its buckets was last written to (or created, when empty), in ms since
    /// the Unix epoch.
    pub last_write_ms: i64,
}

/// What the server knows of one selected job.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub(crate) struct Place {
    pub job: String,
    /// Followed from the start (its state held, its series on `/metrics`).
    pub followed: bool,
    /// Why not, when it is not; `None` when it is.
    pub not_followed: Option<NotFollowed>,
    /// Why its state could not be read, when the last try failed (tried again at each listing).
    pub unreadable: Option<String>,
    /// When its buckets were last written to, as the last listing found (ms since the epoch).
    pub last_write_ms: Option<i64>,
}

impl Place {
    /// Why the job is not followed, or why it cannot be read, in words (`max` the cap).
    pub(crate) fn reason(&self, max: usize) -> Option<String> {
        if let Some(why) = &self.unreadable {
            return Some(format!("job {} cannot be read: {why}", self.job));
        }
        self.not_followed.map(|w| match w {
            NotFollowed::PastCap => format!(
                "not followed: {max} jobs are followed already (serve --max-jobs); a page may still open it"
            ),
            NotFollowed::Idle { since_ms } => format!(
                "not followed: idle, nothing written to its buckets since {} (serve --idle-after), so no worker of it runs; followed again after its next write; a page may still open it",
                spate_planner_core::utc::utc_text(since_ms)
            ),
        })
    }

    /// Since when the job is idle, when it is not followed for that.
    pub(crate) fn idle_since_ms(&self) -> Option<i64> {
        match self.not_followed {
            Some(NotFollowed::Idle { since_ms }) => Some(since_ms),
            _ => None,
        }
    }
}

/// What a listing changed: the jobs to start following and those to drop.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Changes {
    pub follow: Vec<String>,
    pub drop: Vec<String>,
}

/// The selected jobs and which of them are followed.
#[derive(Debug)]
pub(crate) struct Roster {
    selection: Selection,
    max: usize,
    /// `--idle-after` in ms (`None`: no job is dropped as idle).
    idle_after_ms: Option<i64>,
    places: BTreeMap<String, Place>,
    /// When the server's buckets were last listed (ms since the Unix epoch), or why the last
    /// listing failed.
    pub listed: Option<Result<i64, String>>,
}

impl Roster {
    /// The roster before any listing: the jobs `--job` named, followed. More names than `max`
    /// are refused.
    pub(crate) fn new(
        selection: Selection,
        max: usize,
        idle_after_ms: Option<i64>,
    ) -> Result<Roster, String> {
        if selection.named().len() > max {
            return Err(format!(
                "--job names {} jobs, more than --max-jobs {max}",
                selection.named().len()
            ));
        }
        let places = selection
            .named()
            .iter()
            .map(|n| (n.clone(), followed(n)))
            .collect();
        Ok(Roster {
            selection,
            max,
            idle_after_ms,
            places,
            listed: None,
        })
    }

    pub(crate) fn selection(&self) -> &Selection {
        &self.selection
    }

    /// The cap on jobs followed (`--max-jobs`).
    pub(crate) fn max(&self) -> usize {
        self.max
    }

    /// Every selected job known, by name.
    pub(crate) fn places(&self) -> impl Iterator<Item = &Place> {
        self.places.values()
    }

    pub(crate) fn place(&self, job: &str) -> Option<&Place> {
        self.places.get(job)
    }

    /// Whether `job` is followed from the start (never dropped to make room).
    pub(crate) fn is_followed(&self, job: &str) -> bool {
        self.places.get(job).is_some_and(|p| p.followed)
    }

    /// The jobs followed now.
    pub(crate) fn followed_count(&self) -> usize {
        self.places.values().filter(|p| p.followed).count()
    }

    /// The server's jobs as listed at `now_ms`: the selected ones are placed (idle ones not
    /// followed; the others followed while there is room, in name order after those followed
    /// already), those gone are dropped (but the named ones). Returns what to start and stop.
    pub(crate) fn listed(&mut self, jobs: &[Found], now_ms: i64) -> Changes {
        self.listed = Some(Ok(now_ms));
        let listed: BTreeMap<&str, i64> = jobs
            .iter()
            .filter(|j| self.selection.matches(&j.job))
            .map(|j| (j.job.as_str(), j.last_write_ms))
            .collect();
        let mut changes = Changes::default();
        let named = &self.selection.names;
        self.places.retain(|job, place| {
            let keep = listed.contains_key(job.as_str()) || named.contains(job);
            if !keep && place.followed {
                changes.drop.push(job.clone());
            }
            keep
        });
        let mut waiting = Vec::new();
        for (&job, &last) in &listed {
            let since = self.idle_since(job, last, now_ms);
            if self.place_listed(job, last, since, &mut changes) {
                waiting.push(job);
            }
        }
        let room = self.max.saturating_sub(self.followed_count());
        for job in waiting.into_iter().take(room) {
            if let Some(place) = self.places.get_mut(job) {
                *place = Place {
                    last_write_ms: place.last_write_ms,
                    ..followed(job)
                };
                changes.follow.push(job.to_string());
            }
        }
        changes
    }

    /// Since when `job` (last written to at `last_write_ms`) is idle at `now_ms`, if it is.
    fn idle_since(&self, job: &str, last_write_ms: i64, now_ms: i64) -> Option<i64> {
        let after = self.idle_after_ms?;
        let idle = now_ms.saturating_sub(last_write_ms) >= after;
        (idle && !self.selection.names.iter().any(|n| n == job)).then_some(last_write_ms)
    }

    /// Places `job` as listed: idle (`since`) ones not followed (dropped when they were), the
    /// others waiting past the cap unless followed. True when it waits for a place.
    fn place_listed(
        &mut self,
        job: &str,
        last_write_ms: i64,
        since: Option<i64>,
        changes: &mut Changes,
    ) -> bool {
        let place = self.places.entry(job.to_string()).or_insert_with(|| Place {
            job: job.to_string(),
            followed: false,
            not_followed: Some(NotFollowed::PastCap),
            unreadable: None,
            last_write_ms: None,
        });
        place.last_write_ms = Some(last_write_ms);
        match since {
            Some(since_ms) => {
                if place.followed {
                    changes.drop.push(job.to_string());
                }
                place.followed = false;
                place.not_followed = Some(NotFollowed::Idle { since_ms });
                false
            }
            None if !place.followed => {
                place.not_followed = Some(NotFollowed::PastCap);
                true
            }
            None => false,
        }
    }

    /// The listing failed: what is followed stays followed.
    pub(crate) fn failed(&mut self, why: String) {
        self.listed = Some(Err(why));
    }

    /// How reading a followed job went: `Err` names why it cannot be read.
    pub(crate) fn read(&mut self, job: &str, read: Result<(), String>) {
        if let Some(p) = self.places.get_mut(job) {
            p.unreadable = read.err();
        }
    }
}

fn followed(job: &str) -> Place {
    Place {
        job: job.to_string(),
        followed: true,
        not_followed: None,
        unreadable: None,
        last_write_ms: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    /// Jobs found, each last written to at 0.
    fn found(v: &[&str]) -> Vec<Found> {
        at(&v.iter().map(|j| (*j, 0)).collect::<Vec<_>>())
    }

    /// Jobs found, each with when it was last written to.
    fn at(pairs: &[(&str, i64)]) -> Vec<Found> {
        pairs
            .iter()
            .map(|(j, t)| Found {
                job: j.to_string(),
                last_write_ms: *t,
            })
            .collect()
    }

    #[test]
    fn patterns_match_as_globs() {
        for (p, n, want) in [
            ("orders-*", "orders-eu", true),
            ("orders-*", "orders-", true),
            ("orders-*", "orders", false),
            ("*-eu", "orders-eu", true),
            ("*-eu", "orders-us", false),
            ("o?ders", "orders", true),
            ("o?ders", "oders", false),
            ("*a*b*", "xxaxxbxx", true),
            ("*a*b", "xxaxxbxxc", false),
            ("a*b*c", "abbbc", true),
            ("*", "anything", true),
            ("exact", "exact", true),
            ("exact", "exactly", false),
        ] {
            assert_eq!(glob(p.as_bytes(), n.as_bytes()), want, "{p} ~ {n}");
        }
    }

    #[test]
    fn a_bad_name_or_pattern_is_refused_naming_it() {
        let e = Selection::new(&names(&["a b"]), &[]).unwrap_err();
        assert!(e.starts_with("--job \"a b\""), "{e}");
        let e = Selection::new(&[], &names(&["orders.*"])).unwrap_err();
        assert!(e.starts_with("--jobs \"orders.*\""), "{e}");
        let e = Selection::new(&[], &names(&[""])).unwrap_err();
        assert!(e.starts_with("--jobs \"\""), "{e}");
        let e = Roster::new(Selection::new(&names(&["a", "b"]), &[]).unwrap(), 1, None).unwrap_err();
        assert_eq!(e, "--job names 2 jobs, more than --max-jobs 1");
    }

    #[test]
    fn the_selection_says_what_it_leaves_out() {
        let one = Selection::new(&names(&["g"]), &[]).unwrap();
        assert_eq!(one.only(), Some("g"));
        assert_eq!(one.refuses("h").unwrap(), "this server follows job \"g\" only");
        assert_eq!(one.refuses("g"), None);
        let some = Selection::new(&names(&["g"]), &names(&["orders-*"])).unwrap();
        assert_eq!(some.only(), None);
        assert!(some.matches("orders-eu") && some.matches("g") && !some.matches("h"));
        assert_eq!(
            some.refuses("h").unwrap(),
            "this server follows the jobs \"g\", \"orders-*\" only, not \"h\""
        );
        assert!(Selection::default().is_all() && Selection::default().matches("x"));
    }

    #[test]
    fn jobs_fill_the_cap_in_name_order_and_keep_their_places() {
        let mut r = Roster::new(Selection::default(), 2, None).unwrap();
        let c = r.listed(&found(&["c", "a", "b"]), 1);
        assert_eq!(c.follow, names(&["a", "b"]));
        assert!(c.drop.is_empty());
        let c_place = r.place("c").unwrap();
        assert_eq!(c_place.not_followed, Some(NotFollowed::PastCap));
        assert!(c_place.reason(2).unwrap().contains("2 jobs are followed already"));
        // a job listed later before the others in name order does not take a place held
        let c = r.listed(&found(&["0", "a", "b", "c"]), 2);
        assert_eq!(c, Changes::default());
        assert!(r.is_followed("a") && r.is_followed("b") && !r.is_followed("0"));
        // one gone: dropped, and the first waiting in name order takes its place
        let c = r.listed(&found(&["0", "b", "c"]), 3);
        assert_eq!(c.drop, names(&["a"]));
        assert_eq!(c.follow, names(&["0"]));
        assert!(r.place("a").is_none());
        assert_eq!(r.followed_count(), 2);
        assert_eq!(r.listed, Some(Ok(3)));
    }

    #[test]
    fn named_jobs_are_followed_even_when_not_listed_and_others_left_out() {
        let sel = Selection::new(&names(&["g"]), &names(&["o-*"])).unwrap();
        let mut r = Roster::new(sel, 3, None).unwrap();
        assert!(r.is_followed("g"), "followed before any listing");
        let c = r.listed(&found(&["o-1", "x", "o-2"]), 1);
        assert_eq!(c.follow, names(&["o-1", "o-2"]));
        assert!(r.place("x").is_none(), "not selected: not listed");
        let c = r.listed(&found(&["o-1"]), 2);
        assert_eq!(c.drop, names(&["o-2"]));
        assert!(r.is_followed("g"), "a named job waits for its buckets");
        r.failed("no answer".into());
        assert_eq!(r.followed_count(), 2);
        assert_eq!(r.listed, Some(Err("no answer".into())));
        r.read("g", Err("bucket spate_coordination_g_state: not found".into()));
        assert_eq!(
            r.place("g").unwrap().reason(3).unwrap(),
            "job g cannot be read: bucket spate_coordination_g_state: not found"
        );
        r.read("g", Ok(()));
        assert_eq!(r.place("g").unwrap().reason(3), None);
    }

    #[test]
    fn idle_jobs_give_their_place_and_come_back_after_a_write() {
        let hour = 3_600_000;
        let sel = Selection::new(&names(&["named"]), &names(&["*"])).unwrap();
        let mut r = Roster::new(sel, 2, Some(hour)).unwrap();
        // "a" takes the one free place; "b" waits past the cap
        let c = r.listed(&at(&[("a", 0), ("b", 0), ("named", 0)]), 1_000);
        assert_eq!(c.follow, names(&["a"]));
        assert_eq!(r.place("b").unwrap().not_followed, Some(NotFollowed::PastCap));
        // an hour on, "a" was written to last at 0 (idle: dropped), "b" at 1,000 (not idle): it
        // takes "a"'s place; "named" is never idle
        let c = r.listed(&at(&[("a", 0), ("b", 1_000), ("named", 0)]), hour);
        assert_eq!(c.drop, names(&["a"]));
        assert_eq!(c.follow, names(&["b"]));
        assert!(r.is_followed("named") && r.is_followed("b") && !r.is_followed("a"));
        let a = r.place("a").unwrap();
        assert_eq!(a.idle_since_ms(), Some(0));
        assert_eq!(
            a.reason(2).unwrap(),
            "not followed: idle, nothing written to its buckets since 1970-01-01 00:00:00 UTC (serve --idle-after), so no worker of it runs; followed again after its next write; a page may still open it"
        );
        // "a" written to again: it waits for a place (past the cap), and takes the first free one
        let c = r.listed(&at(&[("a", hour), ("b", 1_000), ("named", 0)]), hour + 1);
        assert_eq!(c, Changes::default());
        assert_eq!(r.place("a").unwrap().not_followed, Some(NotFollowed::PastCap));
        let c = r.listed(&at(&[("a", hour + 1), ("b", 1_000), ("named", 0)]), 2 * hour);
        assert_eq!(c.drop, names(&["b"]), "b idle since 1,000");
        assert_eq!(c.follow, names(&["a"]));
        // no --idle-after: nothing is idle
        let mut r = Roster::new(Selection::default(), 1, None).unwrap();
        let c = r.listed(&at(&[("a", 0)]), i64::MAX);
        assert_eq!(c.follow, names(&["a"]));
    }
}
