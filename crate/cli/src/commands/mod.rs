//! The subcommands: one module each, named as the command (`-` as `_`). None imports another;
//! what they share is beside this folder (`support`, `output`, `human`, `nats`, `store`,
//! `dashboard`, `live/`, …).

pub mod bench;
pub mod claims;
pub mod conformance;
pub mod converge;
pub mod demo;
pub mod diff;
pub mod diff_rules;
pub mod plan;
pub mod replay;
pub mod report;
pub mod restore;
pub mod serve;
pub mod simulate;
pub mod snapshot;
pub mod sweep;
pub mod watch;
