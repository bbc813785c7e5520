//! Which release a store shows (decision-core-0.3.md sections 8 and 9): the rules its leader
//! decides by, the check of `plan.elector` against the `leader` key, the `previous` map of 0.3,
//! and the one hint of a 0.3.0 worker under a 0.1.x/0.2.x leader.

use super::model::{Fleet, Warnings};
use crate::assign::last_assignees;
use crate::codes::WarningCode;
use crate::records::{LeaderVal, PlanRecord};
use crate::rules::{Rules, RulesChoice, RulesSource};
use std::collections::{BTreeMap, BTreeSet};

/// The length of a 0.3.0 run nonce: 32 lowercase hex characters.
const NONCE_LEN: usize = 32;

/// The rules the store names: an `elector` on the plan record ⇒ 0.3 (a 0.3.0 worker won the last
/// election); no `elector` at generation 1 or more ⇒ 0.1 (a 0.1.x/0.2.x worker won it); at
/// generation 0, or with no plan record, no election has finished and 0.1 is assumed.
pub(crate) fn store_rules(plan: Option<&PlanRecord>) -> RulesChoice {
    let (rules, source) = match plan {
        Some(p) if p.elector.is_some() => (Rules::V0_3, RulesSource::Elector),
        Some(p) if p.generation >= 1 => (Rules::V0_1, RulesSource::NoElector),
        _ => (Rules::V0_1, RulesSource::StoreNamesNoVersion),
    };
    RulesChoice { rules, source }
}

/// Warns when `plan.elector` and the `leader` key disagree (section 8): the leader's owner and
/// nonce should be the elector's, and its generation the plan's. They briefly disagree during an
/// election (the new leader writes its key before its generation bump lands).
pub(crate) fn check_elector(
    plan: Option<&PlanRecord>,
    leader: Option<&LeaderVal>,
    (state_bucket, lease_bucket): (&str, &str),
    w: &mut Warnings,
) {
    let (Some(p), Some(l)) = (plan, leader) else {
        return;
    };
    let Some(e) = &p.elector else {
        return;
    };
    let mut differs = Vec::new();
    if l.owner != e.owner {
        differs.push(format!(
            "leader.owner {:?} is not elector.owner {:?}",
            l.owner, e.owner
        ));
    }
    if l.nonce != e.nonce {
        differs.push(format!(
            "leader.nonce {:?} is not elector.nonce {:?}",
            l.nonce, e.nonce
        ));
    }
    if l.generation != p.generation {
        differs.push(format!(
            "leader.generation {} is not plan.generation {}",
            l.generation, p.generation
        ));
    }
    if differs.is_empty() {
        return;
    }
    w.push(
        WarningCode::ElectorMismatch,
        state_bucket,
        "plan",
        format!(
            "the plan record's elector and the {lease_bucket} bucket's leader key disagree ({}): an election is under way (the new leader writes its key before its generation bump lands) or the elected leader is gone; the rules stay 0.3 and the default cap is read from the leader key",
            differs.join("; ")
        ),
    );
}

/// Whether `key` is a 0.3.0 probe key, `_probe.{instance}.{nonce}` with a 32-hex nonce. The first
/// dot after the prefix ends the instance (instance ids have no dots).
pub(crate) fn is_0_3_probe(key: &str) -> bool {
    key.strip_prefix("_probe.")
        .and_then(|rest| rest.split_once('.'))
        .is_some_and(|(instance, nonce)| {
            !instance.is_empty()
                && nonce.len() == NONCE_LEN
                && nonce
                    .bytes()
                    .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        })
}

impl Fleet {
    /// The rules the store names, and why ([`store_rules`]).
    pub fn store_rules(&self) -> RulesChoice {
        store_rules(self.plan.as_ref())
    }

    /// 0.3's `previous` for `members`, from a snapshot (section 3): `last_assignees` of every
    /// `assign.*` record that parses strictly.
    pub fn previous(&self, members: &BTreeSet<String>) -> BTreeMap<String, String> {
        last_assignees(&self.published, members)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn only_a_32_hex_nonce_after_the_instance_is_a_0_3_probe() {
        let n = "0123456789abcdef0123456789abcdef";
        assert!(is_0_3_probe(&format!("_probe.w-1.{n}")));
        assert!(!is_0_3_probe("_probe.w-1"), "0.1's form");
        assert!(!is_0_3_probe(&format!("_probe.w-1.{}", n.to_uppercase())));
        assert!(!is_0_3_probe(&format!("_probe.w-1.{}", &n[1..])));
        assert!(!is_0_3_probe(&format!("_probe..{n}")));
        assert!(!is_0_3_probe(&format!("split.w-1.{n}")));
    }
}
