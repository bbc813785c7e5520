//! How far a plan is from the leader's last published assignment (`assign.{instance}`).
//!
//! Workers act on the published records, so this is what the plan would still change. A record
//! whose `generation` is below the plan record's was written before the last election and not
//! rewritten since: stale (the new leader rewrites every record at its first publish). A split
//! named in two records is a conflict: two workers are told to run it.

use crate::assign::Assignment;
use crate::exact::count;
use crate::records::AssignmentVal;
use foldhash::{HashMap, HashMapExt};
use serde::Serialize;
use std::collections::hash_map::Entry;
use std::collections::BTreeMap;

/// The distance between the published records and a plan.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct PublishedDistance {
    /// How many `assign.*` records there are.
    pub records: u32,
    /// Splits whose member would change: moved, published nowhere, or planned nowhere.
    pub changes: u32,
    /// Instances whose record's generation is below the plan's.
    pub stale: Vec<String>,
    /// Splits named in more than one record, with every instance that names them.
    pub conflicts: BTreeMap<String, Vec<String>>,
}

/// The distance from `published` to `assignment`; `None` when nothing was published.
/// `plan_generation` is the plan record's generation, if there is one.
pub fn published_distance(
    published: &BTreeMap<String, AssignmentVal>,
    plan_generation: Option<u64>,
    assignment: &Assignment,
) -> Option<PublishedDistance> {
    if published.is_empty() {
        return None;
    }
    // Each split's first naming instance; the splits named again, with every instance naming them.
    let named: usize = published.values().map(|a| a.splits.len()).sum();
    let mut first: HashMap<&str, &str> = HashMap::with_capacity(named);
    let mut again: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (m, a) in published {
        for id in &a.splits {
            match first.entry(id) {
                Entry::Vacant(v) => drop(v.insert(m)),
                Entry::Occupied(o) => again.entry(id).or_insert_with(|| vec![*o.get()]).push(m),
            }
        }
    }
    // A published split keeps its member only when one record names it and the plan gives it
    // to that member; every other published split changes, and so does each planned split
    // that no record names (an assignment names each split once).
    let (mut kept, mut new) = (0, 0);
    for (m, ids) in assignment {
        for id in ids {
            match first.get(id.as_str()) {
                None => new += 1,
                Some(p) if *p == m.as_str() && !again.contains_key(id.as_str()) => kept += 1,
                Some(_) => {}
            }
        }
    }
    let changed = first.len() - kept;
    Some(PublishedDistance {
        records: count(published.len()),
        changes: count(changed + new),
        stale: published
            .iter()
            .filter(|(_, a)| plan_generation.is_some_and(|g| a.generation < g))
            .map(|(m, _)| m.clone())
            .collect(),
        conflicts: again
            .into_iter()
            .map(|(id, ms)| (id.to_string(), ms.into_iter().map(str::to_string).collect()))
            .collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn rec(generation: u64, splits: &[&str]) -> AssignmentVal {
        AssignmentVal {
            schema: 3,
            generation,
            splits: splits.iter().map(|s| s.to_string()).collect(),
        }
    }

    fn plan(entries: &[(&str, &[&str])]) -> Assignment {
        entries
            .iter()
            .map(|(m, ids)| (m.to_string(), ids.iter().map(|s| s.to_string()).collect()))
            .collect()
    }

    #[test]
    fn moved_new_and_dropped_splits_count() {
        let published = BTreeMap::from([
            ("a".to_string(), rec(1, &["s1", "s2"])),
            ("b".to_string(), rec(1, &["s3"])),
        ]);
        // s2 moved to b, s3 planned nowhere, s4 published nowhere; s1 stays.
        let d = published_distance(
            &published,
            Some(1),
            &plan(&[("a", &["s1"]), ("b", &["s2", "s4"])]),
        )
        .unwrap();
        assert_eq!((d.records, d.changes), (2, 3));
        assert!(d.stale.is_empty() && d.conflicts.is_empty());
        assert_eq!(published_distance(&BTreeMap::new(), Some(1), &plan(&[])), None);
    }

    #[test]
    fn records_older_than_the_plan_are_stale() {
        let published = BTreeMap::from([
            ("a".to_string(), rec(4, &["s1"])),
            ("b".to_string(), rec(5, &["s2"])),
        ]);
        let d = published_distance(&published, Some(5), &plan(&[("a", &["s1"]), ("b", &["s2"])])).unwrap();
        assert_eq!(d.stale, vec!["a".to_string()]);
        assert_eq!(d.changes, 0);
        let d = published_distance(&published, None, &plan(&[])).unwrap();
        assert!(d.stale.is_empty(), "no plan record, nothing to compare with");
    }

    #[test]
    fn a_split_in_two_records_is_a_conflict_and_a_change() {
        let published = BTreeMap::from([
            ("a".to_string(), rec(1, &["s1"])),
            ("b".to_string(), rec(1, &["s1", "s2"])),
        ]);
        let d = published_distance(&published, Some(1), &plan(&[("a", &["s1"]), ("b", &["s2"])])).unwrap();
        assert_eq!(
            d.conflicts,
            BTreeMap::from([("s1".to_string(), vec!["a".to_string(), "b".to_string()])])
        );
        assert_eq!(d.changes, 1, "s1 must leave b's record even though a keeps it");
    }

    /// The distance as first written (ordered maps of every split), to check the faster one.
    fn reference(
        published: &BTreeMap<String, AssignmentVal>,
        assignment: &Assignment,
    ) -> (u32, BTreeMap<String, Vec<String>>) {
        let mut named: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for (m, a) in published {
            for id in &a.splits {
                named.entry(id).or_default().push(m);
            }
        }
        let after: BTreeMap<&str, &str> = assignment
            .iter()
            .flat_map(|(m, ids)| ids.iter().map(move |id| (id.as_str(), m.as_str())))
            .collect();
        let changed = named
            .iter()
            .filter(|(id, ms)| ms.len() > 1 || after.get(*id) != Some(&ms[0]))
            .count();
        let new = after.keys().filter(|id| !named.contains_key(*id)).count();
        let conflicts = named
            .into_iter()
            .filter(|(_, ms)| ms.len() > 1)
            .map(|(id, ms)| (id.to_string(), ms.into_iter().map(str::to_string).collect()))
            .collect();
        ((changed + new) as u32, conflicts)
    }

    proptest::proptest! {
        #[test]
        fn the_distance_is_the_reference_one(
            published in proptest::collection::btree_map(0u8..5, proptest::collection::vec(0u8..12, 0..8), 1..5),
            planned in proptest::collection::btree_map(0u8..12, 0u8..5, 0..12),
        ) {
            let published: BTreeMap<String, AssignmentVal> = published
                .into_iter()
                .map(|(m, ids)| (format!("m{m}"), rec(1, &ids.iter().map(|i| format!("s{i}")).collect::<Vec<_>>().iter().map(String::as_str).collect::<Vec<_>>())))
                .collect();
            let mut assignment = Assignment::new();
            for (id, m) in planned {
                assignment.entry(format!("m{m}")).or_default().push(format!("s{id}"));
            }
            let d = published_distance(&published, None, &assignment).unwrap();
            let (changes, conflicts) = reference(&published, &assignment);
            proptest::prop_assert_eq!((d.changes, d.conflicts), (changes, conflicts));
        }
    }
}
