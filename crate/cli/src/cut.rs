//! Where a bucket's copy can be cut: the writes a KV watch delivers, applied in revision order
//! (last write wins, a delete or purge removes the key), and the revision at which they are
//! exactly the bucket — every live key once, with the value it had then, nothing written later.
//!
//! No I/O: the reader ([`crate::store::Reader::read_all`]) feeds it the watch's entries and the
//! server's answers.
//!
//! Why a cut is exact. The watch delivers the last message of each key as of its creation, then
//! every newer message, in sequence order; a message removed before its turn (its key written
//! again, deleted or purged — with history 1 the older message goes — or an expiry marker written
//! for it) is skipped, and one superseded before the watch began is not sent. The copy of the messages delivered up to `c` is the bucket at revision `c`
//! unless some key's last message up to `c` was skipped because of a write *after* `c`. So:
//! remember the highest revision delivered, `x`, and ask the server for the stream's last
//! sequence, `l`. A message at or below `x` was skipped (if it was) before `x` arrived, so for a
//! write made before the question, at most `l`. If the watch then delivers every sequence from
//! `x + 1` to `l` without a gap, nothing at or below `l` was skipped for a later write, and the
//! copy is the bucket at `l`: that is the cut. A gap (a message in that range removed before it
//! came) may hide such a skip: ask again once the watch has passed `l`. If the server has nothing
//! after `x` at all, the messages up to `l` are gone (expiry markers whose own time ran out) and
//! the copy is the bucket at `l` less what expired.

use foldhash::HashMap;
use spate_planner_core::Entry;

/// One message of the bucket's stream, as the copy applies it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Write {
    Put(Entry),
    /// A delete or purge marker (a purge is also how NATS reports an expiry with limit markers).
    Remove {
        key: String,
        revision: u64,
    },
}

impl Write {
    pub(crate) fn revision(&self) -> u64 {
        match self {
            Write::Put(e) => e.revision,
            Write::Remove { revision, .. } => *revision,
        }
    }

    pub(crate) fn key(&self) -> &str {
        match self {
            Write::Put(e) => &e.key,
            Write::Remove { key, .. } => key,
        }
    }
}

/// A write whose revision is not above every earlier one: the stream went back (the bucket was
/// deleted and created again while it was read).
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct WentBack {
    pub key: String,
    pub revision: u64,
}

/// The revisions the watch must deliver without a gap, `next..=last`, for a cut at `last`.
#[derive(Clone, Copy, Debug)]
struct Aim {
    next: u64,
    last: u64,
    /// A gap came: this aim cannot cut; aim again once the watch has passed `last`.
    broken: bool,
}

/// A bucket being copied.
#[derive(Default)]
pub(crate) struct Copy {
    entries: HashMap<String, Entry>,
    highest: u64,
    aim: Option<Aim>,
    /// Writes applied.
    pub applied: u64,
    /// Times an aim was broken by a gap.
    pub retries: u64,
}

impl Copy {
    /// The highest revision applied (0 before any).
    pub(crate) fn highest(&self) -> u64 {
        self.highest
    }

    /// Whether the copy waits for the watch to reach a revision it aimed at.
    pub(crate) fn aiming(&self) -> bool {
        self.aim.is_some_and(|a| !a.broken)
    }

    /// Whether to ask the server for the stream's last sequence again: a gap broke the last aim
    /// and the watch has passed it.
    pub(crate) fn wants_aim(&self) -> bool {
        self.aim.is_some_and(|a| a.broken && self.highest >= a.last)
    }

    /// Applies the next write; `Some(cut)` when the copy is now the bucket at revision `cut`.
    pub(crate) fn apply(&mut self, w: Write) -> Result<Option<u64>, WentBack> {
        let revision = w.revision();
        if revision <= self.highest {
            return Err(WentBack {
                key: w.key().to_string(),
                revision,
            });
        }
        match w {
            Write::Put(e) => drop(self.entries.insert(e.key.clone(), e)),
            Write::Remove { key, .. } => drop(self.entries.remove(&key)),
        }
        self.highest = revision;
        self.applied += 1;
        let Some(aim) = self.aim.as_mut().filter(|a| !a.broken) else {
            return Ok(None);
        };
        if revision != aim.next {
            aim.broken = true;
            self.retries += 1;
            return Ok(None);
        }
        aim.next += 1;
        Ok((revision == aim.last).then_some(revision))
    }

    /// The server's answer: the stream's last sequence is `last`, asked when the copy was at
    /// [`Copy::highest`]. `Some(cut)` when the copy is the bucket at `cut` already.
    pub(crate) fn aim(&mut self, last: u64) -> Option<u64> {
        if last <= self.highest {
            self.aim = None;
            return Some(self.highest);
        }
        self.aim = Some(Aim {
            next: self.highest + 1,
            last,
            broken: false,
        });
        None
    }

    /// The server has no message after [`Copy::highest`]: what the watch still had to deliver
    /// up to the aim is gone. `Some(cut)` when aiming (the aim's revision).
    pub(crate) fn nothing_after(&mut self) -> Option<u64> {
        let aim = self.aim.filter(|a| !a.broken)?;
        self.aim = None;
        Some(aim.last)
    }

    /// The copied entries, in revision order.
    pub(crate) fn into_entries(self) -> Vec<Entry> {
        let mut v: Vec<Entry> = self.entries.into_values().collect();
        v.sort_unstable_by_key(|e| e.revision);
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn put(key: &str, revision: u64) -> Write {
        Write::Put(Entry {
            key: key.into(),
            revision,
            created_ms: 0,
            value: format!("{key}@{revision}").into_bytes(),
        })
    }

    fn del(key: &str, revision: u64) -> Write {
        Write::Remove {
            key: key.into(),
            revision,
        }
    }

    fn keys(c: Copy) -> Vec<(String, u64)> {
        c.into_entries()
            .into_iter()
            .map(|e| (e.key, e.revision))
            .collect()
    }

    #[test]
    fn last_write_wins_and_deletes_remove() {
        let mut c = Copy::default();
        for w in [put("a", 1), put("b", 2), put("a", 3), del("b", 4), put("c", 5)] {
            assert_eq!(c.apply(w), Ok(None));
        }
        assert_eq!(c.aim(5), Some(5), "caught up: the cut is where the copy is");
        assert_eq!(keys(c), [("a".to_string(), 3), ("c".to_string(), 5)]);
    }

    #[test]
    fn the_cut_waits_for_every_revision_up_to_the_last_sequence() {
        let mut c = Copy::default();
        c.apply(put("a", 4)).unwrap();
        assert_eq!(c.aim(7), None);
        assert!(c.aiming());
        assert_eq!(c.apply(put("b", 5)), Ok(None));
        assert_eq!(c.apply(del("a", 6)), Ok(None));
        assert_eq!(c.apply(put("c", 7)), Ok(Some(7)));
        assert_eq!(keys(c), [("b".to_string(), 5), ("c".to_string(), 7)]);
    }

    #[test]
    fn a_gap_breaks_the_aim_until_the_watch_has_passed_it() {
        let mut c = Copy::default();
        c.apply(put("a", 1)).unwrap();
        c.aim(4);
        // 2 was removed before it came (its key written again at 5, after the cut at 4 would be).
        assert_eq!(c.apply(put("b", 3)), Ok(None));
        assert!(!c.aiming() && !c.wants_aim(), "broken, the watch not yet past 4");
        assert_eq!(
            c.apply(put("c", 4)),
            Ok(None),
            "4 arrived, but no cut after a gap"
        );
        assert!(c.wants_aim());
        assert_eq!(c.retries, 1);
        assert_eq!(c.apply(put("d", 5)), Ok(None));
        assert_eq!(c.aim(6), None);
        assert_eq!(c.apply(put("e", 6)), Ok(Some(6)));
    }

    #[test]
    fn a_revision_that_goes_back_is_refused() {
        let mut c = Copy::default();
        c.apply(put("a", 5)).unwrap();
        assert_eq!(
            c.apply(put("b", 5)),
            Err(WentBack {
                key: "b".into(),
                revision: 5
            })
        );
    }

    #[test]
    fn nothing_after_cuts_at_the_aim_only_while_aiming() {
        let mut c = Copy::default();
        assert_eq!(c.nothing_after(), None, "not aiming");
        assert_eq!(c.aim(0), Some(0), "a bucket never written: cut at 0");
        let mut c = Copy::default();
        c.apply(put("a", 2)).unwrap();
        c.aim(9);
        assert_eq!(c.nothing_after(), Some(9), "3..=9 are gone: the bucket at 9");
        assert_eq!(keys(c), [("a".to_string(), 2)]);
    }
}
