//! `last_assignees` (decision-core-0.3.md section 3): Spate 0.3's `previous`, from the
//! `assign.*` records.

use crate::records::AssignmentVal;
use std::collections::{BTreeMap, BTreeSet};

/// Each split id named by an `assign.{instance}` record, to that instance: first the records of
/// instances that are not members, then those of members, each in ascending instance order and
/// each record's ids in list order, a later record replacing an earlier one's entry. So a split a
/// member's record names maps to the greatest such member; one only non-members' records name,
/// to the greatest of those. Neither a record's generation nor its revision is read.
///
/// From a snapshot, `records` are the `assign.*` values that parse strictly (`Fleet::published`).
pub fn last_assignees(
    records: &BTreeMap<String, AssignmentVal>,
    members: &BTreeSet<String>,
) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for members_now in [false, true] {
        for (x, a) in records
            .iter()
            .filter(|(x, _)| members.contains(*x) == members_now)
        {
            for id in &a.splits {
                out.insert(id.clone(), x.clone());
            }
        }
    }
    out
}
