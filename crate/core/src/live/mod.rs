//! Live mode's state, in one place (docs/live-protocol.md): a job's two buckets in memory and
//! the rules that change them ([`JobState`]: put, delete, purge, expire, revision order, lease
//! deadlines), the change message and its JSON form ([`LiveChange`]), and a job kept current
//! and shown in frames with what happened between them ([`LiveJob`], [`LiveEvent`]). The
//! server holds a `JobState` per followed job; the page's worker and `watch` hold a `LiveJob`
//! fed by the same changes. A recording ([`Recording`]) keeps a job's changes with their times;
//! a [`Replay`] shows it at any moment through the same `LiveJob`. When a followed
//! job counts as stale is [`freshness`]'s rule.

mod change;
mod events;
mod fresh;
mod job;
mod presence;
mod recording;
mod replay;
mod state;

pub use change::{LiveChange, LiveOp, Revisions};
pub use events::{names_text, EventKind, LiveEvent};
pub use fresh::{freshness, Freshness};
pub use job::{LiveFrame, LiveJob};
pub use presence::{FleetChange, FleetChangeKind};
pub use recording::{
    change_line, state_line, status_line, RecordItem, Recorded, RecordedStatus, Recording, RecordingHeader,
    StateReason, MAX_RECORDING_BYTES, RECORDING_FORMAT,
};
pub use replay::{Outline, RefusedSpan, Replay, ReplayFrame, FAR as REPLAY_FAR};
pub use state::{BucketState, JobState, Regression};
