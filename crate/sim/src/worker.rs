//! One simulated process: its clocks, its local view of what it holds, and its duties' state.

use super::config::ProcCfg;
use super::outcome::SplitList;
use std::collections::BTreeMap;

/// A split this process holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Owned {
    /// The protocol-clock time of the last successful lease write (renewal gate, self-fence).
    pub last_ok_write: u64,
    /// The epoch its claim wrote (a progress record with a higher one fences it).
    pub epoch: u64,
    /// Names this tenancy in data-plane commands.
    pub token: u64,
    /// When this tenancy began (or the simulation started, for splits held at t = 0).
    pub since: u64,
    /// The last landed commit (or `since`).
    pub last_commit: u64,
}

/// A revocation in progress (timing.md §6.2-6.3).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Revocation {
    pub started: u64,
    pub cancelled: bool,
    pub last_progress: u64,
    /// Names the drain the data plane is running for it.
    pub token: u64,
}

#[derive(Clone, Debug)]
pub(crate) struct Worker {
    pub name: String,
    pub nonce: String,
    /// The jitter seed: `stable_hash_str(0, "<instance>/<nonce>")`.
    pub seed: u64,
    /// Incarnation of this id (0 for processes running at t = 0); stale events carry an older one.
    pub inc: u32,
    pub cfg: ProcCfg,
    /// The cap its presence advertises (`None`: unreadable or missing in the snapshot).
    pub cap_adv: Option<u32>,
    pub round: u64,
    pub next_hb: u64,
    pub next_rec: u64,
    pub next_replan: u64,
    pub leading: bool,
    /// The generation it leads with.
    pub generation: u64,
    /// `assign_dirty` (kept only while leading; an election sets it).
    pub dirty: bool,
    pub plan_now: bool,
    pub planner_running: bool,
    pub parting: bool,
    pub finished: bool,
    /// Departed instances and when this worker saw them go.
    pub departed: BTreeMap<String, u64>,
    /// Its observed `assign.{self}` splits, sorted (`None`: no record observed, or withdrawn).
    pub assignment: Option<SplitList>,
    pub max_gen_seen: u64,
    pub owned: BTreeMap<String, Owned>,
    pub revocations: BTreeMap<String, Revocation>,
    /// A quarantine scan is forced at the next step.
    pub scan_pending: bool,
    /// Something its claims or revocations depend on changed since it last evaluated them.
    pub claims_dirty: bool,
    /// Its entry in the fast engine's deadline index.
    pub due_at: Option<u64>,
}

impl Worker {
    pub(crate) fn new(name: &str, nonce: String, inc: u32, cfg: ProcCfg, cap_adv: Option<u32>) -> Worker {
        let seed = spate_planner_core::stable_hash_str(0, &format!("{name}/{nonce}"));
        Worker {
            name: name.to_string(),
            nonce,
            seed,
            inc,
            cfg,
            cap_adv,
            round: 0,
            next_hb: 0,
            next_rec: 0,
            next_replan: 0,
            leading: false,
            generation: 0,
            dirty: false,
            plan_now: false,
            planner_running: false,
            parting: false,
            finished: false,
            departed: BTreeMap::new(),
            assignment: None,
            max_gen_seen: 0,
            owned: BTreeMap::new(),
            revocations: BTreeMap::new(),
            scan_pending: false,
            claims_dirty: true,
            due_at: None,
        }
    }

    /// Whether its observed assignment names `id`.
    pub(crate) fn assigned(&self, id: &str) -> bool {
        self.assignment
            .as_ref()
            .is_some_and(|a| a.binary_search_by(|x| x.as_str().cmp(id)).is_ok())
    }

    /// The earliest revocation deadline (§6.3), if any.
    pub(crate) fn next_deadline(&self) -> Option<u64> {
        self.revocations
            .values()
            .map(|r| {
                let base = if r.cancelled { r.last_progress } else { r.started };
                base.saturating_add(self.cfg.x)
            })
            .min()
    }
}
