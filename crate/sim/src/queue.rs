//! The event queue: ordered by time, then by a documented class, then within a class by a
//! name (key, worker) and a number, then by insertion.
//!
//! Classes at one instant, in order (`docs/simulator.md`, "Simultaneous events"):
//! 1. script events, in script order;
//! 2. lease-bucket expiries, in key order (`leader` < `split.*` < `worker.*`, as the memory
//!    store's sweeper walks them);
//! 3. data-plane commands, every worker's together (see `engine.rs`);
//! 4. planner runs finishing, by worker;
//! 5. timers, by worker, then heartbeat < reconcile < replan.

use std::collections::BTreeMap;

pub(crate) const SCRIPT: u8 = 1;
pub(crate) const EXPIRY: u8 = 2;
pub(crate) const COMMAND: u8 = 3;
pub(crate) const PLANNER: u8 = 4;
pub(crate) const TIMER: u8 = 5;

/// A lease-bucket key.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum LeaseKey {
    Leader,
    Split(String),
    Worker(String),
}

impl LeaseKey {
    pub(crate) fn name(&self) -> String {
        match self {
            LeaseKey::Leader => "leader".into(),
            LeaseKey::Split(id) => format!("split.{id}"),
            LeaseKey::Worker(w) => format!("worker.{w}"),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum TimerKind {
    Heartbeat,
    Reconcile,
    Replan,
}

/// What the data plane tells a worker. `token` names the tenancy or revocation it is about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Cmd {
    DrainDone { split: String, token: u64 },
    Decline { split: String, token: u64 },
    Complete { split: String, token: u64 },
    Commit { split: String, token: u64 },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Item {
    Script(usize),
    Expire {
        key: LeaseKey,
        version: u64,
    },
    Command {
        worker: String,
        inc: u32,
        cmd: Cmd,
    },
    Planner {
        worker: String,
        inc: u32,
    },
    Timer {
        worker: String,
        inc: u32,
        kind: TimerKind,
    },
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Key {
    pub t: u64,
    pub class: u8,
    pub name: String,
    pub sub: u64,
    seq: u64,
}

#[derive(Default)]
pub(crate) struct Queue {
    items: BTreeMap<Key, Item>,
    seq: u64,
}

impl Queue {
    pub(crate) fn push(&mut self, t: u64, item: Item) {
        let (class, name, sub) = match &item {
            Item::Script(i) => (SCRIPT, String::new(), *i as u64),
            Item::Expire { key, .. } => (EXPIRY, key.name(), 0),
            Item::Command { worker, .. } => (COMMAND, worker.clone(), 0),
            Item::Planner { worker, .. } => (PLANNER, worker.clone(), 0),
            Item::Timer { worker, kind, .. } => (TIMER, worker.clone(), *kind as u64),
        };
        self.seq += 1;
        let key = Key {
            t,
            class,
            name,
            sub,
            seq: self.seq,
        };
        self.items.insert(key, item);
    }

    pub(crate) fn peek(&self) -> Option<&Key> {
        self.items.keys().next()
    }

    pub(crate) fn pop(&mut self) -> Option<(Key, Item)> {
        self.items.pop_first()
    }
}
