//! From a snapshot to the leader's view of the job (decision-core.md section 7).
//!
//! Loading parses every entry into [`Records`] (one entry at a time: a live job re-reads only the
//! key that changed), then derives the seed and joins records into splits ([`join`]). It is
//! exactly as tolerant as the leader: what the leader refuses is an error naming the bucket and
//! key (a plan, spec or progress record of another schema, an id that does not match its key, a
//! bad integer); what it survives is a [`Warning`] with the leader's effect (an unreadable
//! presence keeps the member at the default cap, an unreadable `assign.*` is ignored, a payload
//! that is not base64 is not decoded, a record of another job is left out and reported as fatal
//! to Spate).
//!
//! What the store shows of the leader's memory — its own cap, the instances that departed within
//! the rebalance delay — is read in [`leader_view`].

mod join;
pub mod leader_view;
mod load;
mod model;
mod parts;
mod read;
mod version;

pub use leader_view::{CapSource, CapUnknown, DefaultCap};
pub use model::{warning_groups, Fleet, Member, Meta, SeedSource, SplitInfo, Warning};
pub(crate) use parts::Parts;
pub(crate) use read::LeaseItem;
pub use read::{Records, Side};
