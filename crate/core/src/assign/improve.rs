//! Pass 3 of `desired_assignment`: improving moves, found through an index instead of a rescan
//! of every (from, to, split) triple (the reasoning is in the module documentation of
//! [`super`]).

use super::explain::{ImprovingMove, MAX_IMPROVING_MOVES};
use super::passes::{Lanes, Pooled, Slot};
use std::cmp::Reverse;
use std::collections::BTreeSet;

/// A split in a member's index: ordered by weight, then hash descending, then position.
type Entry = (u64, Reverse<u64>, u64, usize);

/// Comparison key of a candidate move, larger is better:
/// gain, split hash, then the earlier `from` name, then the earlier position.
type MoveKey = (u128, u64, Reverse<usize>, Reverse<u64>);

/// A chosen move: its key, from, to, and the split's position in `from`'s index.
type Best = (MoveKey, usize, usize, usize);

/// What the pass did.
pub(super) struct Improved {
    pub moves: Vec<ImprovingMove>,
    /// Per pool index: the index in `moves` of the split's last move.
    pub last_move: Vec<Option<usize>>,
    pub bound_hit: bool,
    pub improvable: bool,
}

/// The index: each member's splits sorted by [`Entry`], the free members by load, and all
/// members by load descending.
struct Index {
    held: Vec<Vec<Entry>>,
    free: BTreeSet<(u64, usize)>,
    heaviest: BTreeSet<(Reverse<u64>, usize)>,
}

impl Index {
    fn new(pool: &[Pooled], placed: &[Option<Slot>], lanes: &Lanes, hash: impl Fn(&str) -> u64) -> Index {
        let m = lanes.cap.len();
        let mut held: Vec<Vec<Entry>> = vec![Vec::new(); m];
        for (i, slot) in placed.iter().enumerate() {
            if let Some(s) = slot {
                held[s.member].push((pool[i].w, Reverse(hash(pool[i].id)), s.seq, i));
            }
        }
        for v in &mut held {
            v.sort_unstable();
        }
        Index {
            held,
            free: (0..m)
                .filter(|&j| lanes.free(j))
                .map(|j| (lanes.load[j], j))
                .collect(),
            heaviest: (0..m).map(|j| (Reverse(lanes.load[j]), j)).collect(),
        }
    }

    /// The best admitted move: to the lightest free member, from the heaviest members down
    /// until no split of theirs can beat the best found.
    fn best(&self) -> Option<Best> {
        let &(lt, t) = self.free.first()?;
        let mut best: Option<Best> = None;
        for &(Reverse(lf), f) in &self.heaviest {
            if lf <= lt || lf - lt < 2 {
                break; // no split of weight >= 1 is admitted here or below
            }
            let d = lf - lt;
            let half = d / 2;
            if best
                .as_ref()
                .is_some_and(|(k, ..)| (half as u128 * (d - half) as u128) < k.0)
            {
                break;
            }
            if f != t {
                self.best_of(f, t, d, &mut best);
            }
        }
        best
    }

    /// The best split of `from` for a gap of `d` to `to`: the heaviest of weight at most d/2,
    /// or the lightest of weight in (d/2, d); within one weight the larger hash, then the earlier
    /// position.
    fn best_of(&self, f: usize, t: usize, d: u64, best: &mut Option<Best>) {
        let v = &self.held[f];
        let half = d / 2;
        let Some(&(w_max, ..)) = v.last() else { return };
        if w_max <= half
            && best
                .as_ref()
                .is_some_and(|(k, ..)| (w_max as u128 * (d - w_max) as u128) < k.0)
        {
            return; // the heaviest class wins here and cannot beat the best
        }
        let mut consider = |pos: usize| {
            let (w, Reverse(hs), s, _) = v[pos];
            let key: MoveKey = (w as u128 * (d - w) as u128, hs, Reverse(f), Reverse(s));
            if best.as_ref().is_none_or(|(k, ..)| key > *k) {
                *best = Some((key, f, t, pos));
            }
        };
        let upto = v.partition_point(|e| e.0 <= half);
        if upto > 0 {
            let w_lo = v[upto - 1].0;
            consider(v.partition_point(|e| e.0 < w_lo));
        }
        if upto < v.len() && v[upto].0 < d {
            consider(upto);
        }
    }

    /// Moves the split at `pos` of `f` to `t` (appended: a fresh sequence number).
    fn apply(&mut self, lanes: &mut Lanes, f: usize, t: usize, pos: usize) -> Entry {
        let (w, hs, _, i) = self.held[f].remove(pos);
        let entry = (w, hs, lanes.seq(), i);
        let at = self.held[t].partition_point(|e| *e < entry);
        self.held[t].insert(at, entry);
        for j in [f, t] {
            self.heaviest.remove(&(Reverse(lanes.load[j]), j));
            if lanes.free(j) {
                self.free.remove(&(lanes.load[j], j));
            }
        }
        lanes.load[f] -= w; // the move was admitted: load(f) > load(t) + w
        lanes.load[t] += w;
        lanes.count[f] -= 1;
        lanes.count[t] += 1;
        for j in [f, t] {
            self.heaviest.insert((Reverse(lanes.load[j]), j));
            if lanes.free(j) {
                self.free.insert((lanes.load[j], j));
            }
        }
        entry
    }
}

/// Pass 3: at most [`MAX_IMPROVING_MOVES`] best moves, each applied at once.
pub(super) fn improve(
    pool: &[Pooled],
    placed: &mut [Option<Slot>],
    lanes: &mut Lanes,
    names: &[&str],
    hash: impl Fn(&str) -> u64,
) -> Improved {
    let mut index = Index::new(pool, placed, lanes, hash);
    let mut last_move = vec![None; pool.len()];
    let mut moves = Vec::new();
    while moves.len() < MAX_IMPROVING_MOVES {
        let Some((key, f, t, pos)) = index.best() else {
            break;
        };
        let (w, _, seq, i) = index.apply(lanes, f, t, pos);
        placed[i] = placed[i].map(|s| Slot {
            member: t,
            first: s.first,
            seq,
        });
        last_move[i] = Some(moves.len());
        moves.push(ImprovingMove {
            split: pool[i].id.to_string(),
            weight: w,
            from: names[f].to_string(),
            to: names[t].to_string(),
            gain: key.0,
        });
    }
    let bound_hit = moves.len() >= MAX_IMPROVING_MOVES;
    Improved {
        improvable: bound_hit && index.best().is_some(),
        bound_hit,
        moves,
        last_move,
    }
}
