//! Every record type of the store, parsed strictly from untrusted bytes (a snapshot's values,
//! or a live server's). The first byte picks the record type, the rest is the value.
//!
//! Beyond "no panic": a record that parses, serialized again with serde_json, parses to the
//! same record (no value is silently changed, e.g. a u64 rounded).

use spate_planner_core::records::{
    parse_keyed_record, parse_record, AssignmentVal, HasId, LeaderVal, LeaseVal, PlanRecord, Record,
    SplitProgressRecord, SplitSpecRecord, WorkerVal,
};

/// Records are small; bigger inputs only slow the fuzzer down.
const MAX_INPUT: usize = 64 << 10;

fn check<T>(bucket: &str, key: &str, bytes: &[u8])
where
    T: Record + serde::Serialize + PartialEq + std::fmt::Debug,
{
    match parse_record::<T>(bucket, key, bytes) {
        Ok(rec) => {
            let json = serde_json::to_vec(&rec).expect("a parsed record serializes");
            match parse_record::<T>(bucket, key, &json) {
                Ok(again) => assert_eq!(again, rec, "{} changed by a round trip", T::NAME),
                Err(e) => panic!("{} does not parse after a round trip: {e}", T::NAME),
            }
        }
        Err(e) => {
            let _ = (e.code(), e.to_string());
        }
    }
}

fn check_keyed<T>(bucket: &str, prefix: &str, bytes: &[u8])
where
    T: Record + HasId + serde::Serialize + PartialEq + std::fmt::Debug,
{
    check::<T>(bucket, &format!("{prefix}s1"), bytes);
    // The key's id as the record has it, and another one: both outcomes of the id check.
    if let Ok(rec) = parse_record::<T>(bucket, "k", bytes) {
        let id = rec.id().to_string();
        let key = format!("{prefix}{id}");
        let same = parse_keyed_record::<T>(bucket, &key, &id, bytes).expect("id matches its key");
        assert_eq!(same, rec);
        let other = format!("{id}x");
        let e = parse_keyed_record::<T>(bucket, &key, &other, bytes).expect_err("id differs");
        assert_eq!(e.code(), "id_mismatch");
        let _ = e.to_string();
    }
}

/// The fuzz target's body: libFuzzer's input, or one file of the corpus replayed natively.
pub fn run(data: &[u8]) {
    if data.len() > MAX_INPUT {
        return;
    }
    let Some((&pick, value)) = data.split_first() else {
        return;
    };
    let st = "spate_coordination_fuzz_state";
    let ls = "spate_coordination_fuzz_lease";
    match pick % 7 {
        0 => check_keyed::<SplitProgressRecord>(st, "split.", value),
        1 => check_keyed::<SplitSpecRecord>(st, "spec.", value),
        2 => check::<LeaseVal>(ls, "split.s1", value),
        3 => check::<PlanRecord>(st, "plan", value),
        4 => check::<AssignmentVal>(st, "assign.w1", value),
        5 => check::<LeaderVal>(ls, "leader", value),
        _ => check::<WorkerVal>(ls, "worker.w1", value),
    }
}
