//! The subcommands: one module each, named as the command (`-` as `_`). None imports another;
//! what they share is beside this folder (`support`, `output`, `human`, `nats`, `store`,
//! `dashboard`, `live/`, …).

pub(crate) mod bench;
pub(crate) mod claims;
pub(crate) mod conformance;
pub(crate) mod converge;
pub(crate) mod demo;
pub(crate) mod diff;
pub(crate) mod diff_rules;
pub(crate) mod plan;
pub(crate) mod replay;
pub(crate) mod report;
pub(crate) mod restore;
pub(crate) mod serve;
pub(crate) mod simulate;
pub(crate) mod snapshot;
pub(crate) mod sweep;
pub(crate) mod watch;
