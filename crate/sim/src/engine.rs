//! The engine: the simulation's state, the main loop and the delivery of watch events.
//!
//! **The view.** Every write is folded into every live worker the moment it is made (the
//! per-observer effects of timing.md §2.6, §3.2, §6.1 and §6.6: `assign_dirty`, `departed`,
//! lost splits, the observed assignment, forced quarantine scans), and a worker's view of keys
//! is the store itself. Each write also queues one watch event; delivering it runs one `step` on
//! every live worker, in name order with the leader last (timing.md §2.3: every event costs
//! every worker a step; the order among workers is not the protocol's, so one is fixed).
//!
//! **Order within an instant.** A queued item (script event, expiry, command batch, planner
//! run, timer) is handled, then every watch event its writes caused is delivered, first in first
//! out, including those caused by the steps themselves, before the next item of the same instant
//! (`queue.rs` gives the items' order). Data-plane commands due at one instant are served for
//! every worker (each worker serves all of its own, then steps once) before their events are
//! delivered.
//!
//! **Fast and naive.** The naive engine does exactly the above: every lease renewal is a watch
//! event, every delivery steps every worker, every step evaluates `claim_candidates` over every
//! split and every publish runs `desired_assignment`. The fast engine skips only steps and
//! evaluations that provably change nothing (see `docs/simulator.md`, "The fast engine"); a
//! differential test proves both give the same outcome.

use super::config::{Chance, Config, DataPlane};
use super::options::{Options, SimError, ORIGIN};
use super::queue::{Item, Queue, COMMAND, EXPIRY};
use super::script::Script;
use super::store::Store;
use super::timing::Timing;
use super::track::Recorder;
use super::worker::Worker;
use spate_planner_core::ErrorCode;
use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

/// A desired assignment, each member's list shareable with the records it is written to.
pub(crate) type Desired = BTreeMap<String, super::outcome::SplitList>;

/// What a memoised `desired_assignment` was computed from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct MemoKey {
    pub version: u64,
    /// The `assign.*` records' version (0.3 reads them as `previous`; 0 under 0.1).
    pub assign_version: u64,
    pub reserved: BTreeSet<String>,
    pub default_cap: u32,
}

pub(crate) struct Sim<'a> {
    pub now: u64,
    pub naive: bool,
    pub trace_renewals: bool,
    pub max_events: u64,
    pub events: u64,
    /// The release whose timing and decisions the fleet follows.
    pub timing: Timing,
    pub script: &'a Script,
    pub cfg: &'a Config,
    pub dp: &'a DataPlane,
    /// The script's seed (nonces, phases, data-plane draws).
    pub seed: u64,
    /// The job seed (`desired_assignment`).
    pub job_seed: u64,
    /// `L` and `R = L/3`.
    pub l: u64,
    pub r: Duration,
    pub store: Store,
    /// Live processes.
    pub workers: BTreeMap<String, Worker>,
    /// The latest incarnation of every id that ever ran.
    pub incarnations: BTreeMap<String, u32>,
    pub queue: Queue,
    /// Watch events written but not yet delivered.
    pub pending: u64,
    /// Fast engine: the workers whose next step may do something.
    pub marked: BTreeSet<String>,
    /// Fast engine: revocation deadlines, `(deadline, worker)`.
    pub due: BTreeSet<(u64, String)>,
    /// Split -> the live process holding it.
    pub holder: BTreeMap<String, String>,
    pub rec: Recorder,
    pub memo: Option<(MemoKey, std::rc::Rc<Desired>)>,
    pub tokens: u64,
    /// Data plane: running time each split still needs before it completes.
    pub remaining: BTreeMap<String, u64>,
    /// The live process that leads, if any.
    pub leader: Option<String>,
    /// When the last watch event was delivered (every worker stepped then, as far as its
    /// `departed` entries are concerned).
    pub last_delivery: u64,
    /// The lowest `max_attempts` any process can have (quarantine scans below it are no-ops).
    pub min_attempts: u32,
    /// The claim race's `p` per live peer and exposed claim (timing.md §6.7): the script's, else
    /// the release's measured rate.
    pub race: Chance,
}

impl<'a> Sim<'a> {
    pub(crate) fn new(script: &'a Script, opts: &Options, job_seed: u64, l: u64, timing: Timing) -> Sim<'a> {
        Sim {
            now: ORIGIN,
            naive: opts.naive,
            trace_renewals: opts.trace_renewals,
            max_events: opts.max_events,
            events: 0,
            timing,
            script,
            cfg: &script.config,
            dp: &script.data_plane,
            seed: script.seed,
            job_seed,
            l,
            r: Duration::from_millis(l) / 3,
            store: Store::new(timing.rules()),
            workers: BTreeMap::new(),
            incarnations: BTreeMap::new(),
            queue: Queue::default(),
            pending: 0,
            marked: BTreeSet::new(),
            due: BTreeSet::new(),
            holder: BTreeMap::new(),
            rec: Recorder::default(),
            memo: None,
            tokens: 0,
            remaining: BTreeMap::new(),
            leader: None,
            last_delivery: ORIGIN,
            min_attempts: script
                .config
                .members
                .values()
                .filter_map(|m| m.max_attempts)
                .fold(script.config.max_attempts, u32::min),
            race: script
                .config
                .claim_race
                .unwrap_or_else(|| Chance::claim_race(timing.rules())),
        }
    }

    pub(crate) fn token(&mut self) -> u64 {
        self.tokens += 1;
        self.tokens
    }

    /// Counts one unit of work against the budget, and checks the budget: handled items and
    /// deliveries count here, worker steps and each plan's members and splits where they run.
    fn spend(&mut self) -> Result<(), SimError> {
        self.events += 1;
        if self.events > self.max_events {
            return Err(SimError::new(
                ErrorCode::TooManyEvents,
                "until_ms",
                format!(
                    "the simulation did more than {} units of work (events, worker steps, plans, published and evaluated splits) before {} ms: shorten until_ms, use fewer events or a smaller fleet",
                    self.max_events,
                    self.now - ORIGIN
                ),
            ));
        }
        Ok(())
    }

    /// Runs until the queue is empty or the next item is after `end`.
    pub(crate) fn run(&mut self, end: u64) -> Result<(), SimError> {
        self.settle()?;
        while let Some(key) = self.queue.peek() {
            if key.t > end {
                break;
            }
            self.now = key.t;
            if key.class == COMMAND {
                self.command_batch();
            } else if key.class == EXPIRY && self.timing.batches_expiries() {
                self.expiry_batch();
            } else if let Some((_, item)) = self.queue.pop() {
                self.dispatch(item);
            }
            self.spend()?;
            self.settle()?;
        }
        Ok(())
    }

    fn dispatch(&mut self, item: Item) {
        match item {
            Item::Script(i) => self.script_event(i),
            Item::Expire { key, version } => self.expire(key, version),
            Item::Command { .. } => {}
            Item::Planner { worker, inc } => self.planner_done(&worker, inc),
            Item::Timer { worker, inc, kind } => self.timer(&worker, inc, kind),
        }
    }

    /// Serves every data-plane command due now: each worker's together, workers in name order.
    fn command_batch(&mut self) {
        let mut by_worker: BTreeMap<String, Vec<(u32, super::queue::Cmd)>> = BTreeMap::new();
        while let Some(k) = self.queue.peek() {
            if k.t != self.now || k.class != COMMAND {
                break;
            }
            if let Some((_, Item::Command { worker, inc, cmd })) = self.queue.pop() {
                by_worker.entry(worker).or_default().push((inc, cmd));
            }
        }
        for (w, cmds) in by_worker {
            self.serve_commands(&w, cmds);
        }
    }

    /// Applies every lease-bucket expiry due now, in key order, before any of their watch
    /// events is delivered: one batch that every observer folds before it steps (0.3, §3.1).
    fn expiry_batch(&mut self) {
        while let Some(k) = self.queue.peek() {
            if k.t != self.now || k.class != EXPIRY {
                break;
            }
            if let Some((_, Item::Expire { key, version })) = self.queue.pop() {
                self.expire(key, version);
            }
        }
    }

    /// Delivers watch events until none is left.
    fn settle(&mut self) -> Result<(), SimError> {
        while self.pending > 0 {
            self.pending -= 1;
            self.spend()?;
            self.deliver();
        }
        Ok(())
    }

    /// One watch event: every live worker folds it (already done at write time) and steps, in
    /// name order, the leader last.
    fn deliver(&mut self) {
        self.last_delivery = self.now;
        let leader = self.leader.clone();
        if self.naive {
            let names: Vec<String> = self.workers.keys().cloned().collect();
            for w in names.iter().filter(|w| Some(*w) != leader.as_ref()) {
                self.step(w);
            }
            if let Some(l) = leader {
                self.step(&l);
            }
            return;
        }
        if let Some(l) = leader.as_ref().filter(|l| self.window_ends(l)) {
            self.marked.insert(l.clone());
        }
        if self.due.first().is_some_and(|(t, _)| *t <= self.now) {
            let due: Vec<String> = self
                .due
                .iter()
                .take_while(|(t, _)| *t <= self.now)
                .map(|(_, w)| w.clone())
                .collect();
            self.marked.extend(due);
        }
        let mut cursor: Option<String> = None;
        loop {
            let next = match &cursor {
                None => self.marked.iter().next(),
                Some(c) => self
                    .marked
                    .range::<String, _>((std::ops::Bound::Excluded(c), std::ops::Bound::Unbounded))
                    .next(),
            }
            .cloned();
            let Some(w) = next else { break };
            if Some(&w) != leader.as_ref() {
                self.marked.remove(&w);
                self.step(&w);
            }
            cursor = Some(w);
        }
        if let Some(l) = leader.filter(|l| self.marked.remove(l)) {
            self.step(&l);
        }
    }

    /// `prune_departed` (§5.3) at the start of `w`'s step: drop entries of instances back in
    /// presence, and those at least `D` old (all of them when `D` is 0).
    ///
    /// Every watch event steps every worker, so the real map is also pruned at each delivery.
    /// The fast engine does not step everyone, so it prunes lazily wherever the map is read: a
    /// returning instance's entries are dropped when its presence reappears (its watch event
    /// would prune them on every worker), and a departure is recorded over an entry that the
    /// last delivery would have pruned (`delete_presence`).
    ///
    /// Under 0.3 a window that elapses here marks the assignment dirty (§5.3), so the leader
    /// republishes in this step; the fast engine steps the leader at every delivery at which
    /// one has elapsed ([`Sim::window_ends`]), as every delivery steps it in the naive engine.
    pub(crate) fn prune(&mut self, w: &str) {
        let (now, present) = (self.now, &self.store.members);
        let dirties = self.timing.window_end_dirties();
        if let Some(wk) = self.workers.get_mut(w) {
            let d = wk.cfg.d;
            let mut elapsed = false;
            wk.departed.retain(|x, since| {
                let keep = !present.contains(x) && d > 0 && now - *since < d;
                elapsed |= !keep && d > 0 && now - *since >= d;
                keep
            });
            if elapsed && dirties {
                wk.dirty = true;
            }
        }
    }

    /// Whether a grace window of `w`'s has elapsed, so that its next step prunes it and (0.3)
    /// republishes.
    fn window_ends(&self, w: &str) -> bool {
        let Some(wk) = self.workers.get(w) else {
            return false;
        };
        let d = wk.cfg.d;
        self.timing.window_end_dirties() && d > 0 && wk.departed.values().any(|&since| self.now - since >= d)
    }

    /// The fast engine's interest: `w`'s next step may act.
    pub(crate) fn mark(&mut self, w: &str) {
        if !self.naive && !self.marked.contains(w) && self.workers.contains_key(w) {
            self.marked.insert(w.to_string());
        }
    }

    /// `w`'s claims or revocations may change.
    pub(crate) fn touch(&mut self, w: &str) {
        touch_in(&mut self.workers, &mut self.marked, self.naive, w);
    }

    pub(crate) fn touch_all(&mut self) {
        let names: Vec<String> = self.workers.keys().cloned().collect();
        for w in names {
            self.touch(&w);
        }
    }
}

/// [`Sim::touch`] on the two fields it needs, so that callers can hold other borrows of `Sim`.
pub(crate) fn touch_in(
    workers: &mut BTreeMap<String, Worker>,
    marked: &mut BTreeSet<String>,
    naive: bool,
    w: &str,
) {
    if let Some(wk) = workers.get_mut(w) {
        wk.claims_dirty = true;
        if !naive && !marked.contains(w) {
            marked.insert(w.to_string());
        }
    }
}
