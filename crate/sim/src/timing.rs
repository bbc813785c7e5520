//! The one variation between the releases the simulator follows: Spate 0.1.0's time behaviour
//! (`timing.md`) and 0.3.0's (`timing-0.3.md`, a delta against it, in its section numbers).
//!
//! The engine is the same for both; at each point where 0.3.0 changes when something happens, it
//! asks [`Timing`]. Everything not named here holds alike for both releases (heartbeat jitter,
//! per-key expiry, the step order, claim gating, revocations, releases, elections). The
//! decisions themselves are the core's, by the same rules: `desired_assignment` (0.3 with
//! `previous`) at every publish and `claim_candidates` (0.3 with the worker's nonce) at every
//! claim.

use super::draw::ceil_ms;
use spate_planner_core::{jitter, timing::spread, ClaimKind, Rules};
use std::time::Duration;

/// The release whose timing a simulation follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Timing(pub Rules);

impl Timing {
    pub(crate) fn rules(self) -> Rules {
        self.0
    }

    fn v0_3(self) -> bool {
        self.0 == Rules::V0_3
    }

    /// §2.4 step 3: whether a held split's lease is rewritten at this heartbeat, `since` after
    /// its last good write. 0.1: only once `R` has passed (the renewal gate, so a crashed
    /// worker's leases may expire up to 1.2R before its presence); 0.3: at every heartbeat (the
    /// gate is gone, so they expire with its presence).
    pub(crate) fn renews(self, since: Duration, r: Duration) -> bool {
        self.v0_3() || since >= r
    }

    /// §2.1: the first reconcile tick, after a process's start. 0.1: `C` (unjittered, phase
    /// fixed by the start); 0.3: `spread(seed, C)`, a per-process point of `[0, C)`.
    pub(crate) fn first_reconcile(self, seed: u64, c: u64) -> u64 {
        match self.0 {
            Rules::V0_1 => c,
            Rules::V0_3 => ceil_ms(spread(seed, Duration::from_millis(c))),
        }
    }

    /// §2.2: the gap to the next reconcile tick, armed at a tick. 0.1: `C`; 0.3:
    /// `jitter(seed.rotate_left(32), round, C)` with `round` the heartbeat count at that moment.
    pub(crate) fn reconcile_gap(self, seed: u64, round: u64, c: u64) -> u64 {
        match self.0 {
            Rules::V0_1 => c,
            Rules::V0_3 => ceil_ms(jitter(seed.rotate_left(32), round, Duration::from_millis(c))),
        }
    }

    /// §5.3 and §2.6: a grace window that elapses in `prune_departed` marks the assignment
    /// dirty (0.3), so the leader republishes at its first step at or after `since + D`; 0.1
    /// pruned without marking and waited for another dirtying event (its reconcile tick).
    pub(crate) fn window_end_dirties(self) -> bool {
        self.v0_3()
    }

    /// §2.6: an `assign.*` delete seen on the state watch marks the assignment dirty (0.3 only).
    pub(crate) fn assign_delete_dirties(self) -> bool {
        self.v0_3()
    }

    /// §3.2: a graceful stop of a process that holds nothing. 0.1's driver sends no release, so
    /// its keys just expire; 0.3's driver always departs (presence and leader key deleted).
    pub(crate) fn idle_stop_departs(self) -> bool {
        self.v0_3()
    }

    /// §4: whether a new leader wants a planner run. 0.1: after every election; 0.3: only over
    /// an open plan (or none), so a leader elected over a final plan runs none.
    pub(crate) fn plans_on_election(self, open: bool) -> bool {
        !self.v0_3() || open
    }

    /// §3.1 and §9: the lease-bucket keys that expire at one instant (a crashed 0.3 worker's
    /// presence, leader key and leases, written in one heartbeat) are folded by every observer
    /// in one batch of watch events, so the step after them sees them all gone. 0.1's are
    /// applied one key at a time (each delivered before the next), as its §11 measured: an
    /// election step that still counts the crashed leader as a member.
    pub(crate) fn batches_expiries(self) -> bool {
        self.v0_3()
    }

    /// decision-core-0.3.md §5.2: whether a claim of kind `kind` may write the split's lease,
    /// whose current owner is `lease_owner`. 0.1: a Reclaim updates its own id's lease, every
    /// other kind creates one (none may be there); 0.3: the write is an update whenever the
    /// lease carries this instance's id (a create or release under its own leftover lease),
    /// a create otherwise.
    pub(crate) fn may_write_lease(self, lease_owner: Option<&str>, w: &str, kind: ClaimKind) -> bool {
        match (self.0, lease_owner, kind) {
            (_, Some(o), ClaimKind::Reclaim) => o == w,
            (_, None, ClaimKind::Reclaim) => false,
            (Rules::V0_3, Some(o), _) => o == w,
            (_, lease, _) => lease.is_none(),
        }
    }

    /// decision-core-0.3.md §4: the `run` that `claim_candidates` reads: 0.3 the worker's own
    /// nonce (a lease under its id with another nonce on a last attempt awaits its expiry); 0.1
    /// reads none.
    pub(crate) fn run(self, nonce: &str) -> Option<&str> {
        self.v0_3().then_some(nonce)
    }
}
