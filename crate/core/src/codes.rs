//! The stable codes of errors and warnings.
//!
//! A caller may branch on these (the command line prints them in brackets, the JS API puts them
//! on the `Error` as `code`), so their string forms never change once published. The docs' tables
//! (`docs/bad-inputs.md`, `docs/snapshot-format.md`, `docs/scenario-format.md`) list them; a test
//! checks each table against [`ErrorCode::ALL`] and [`WarningCode::ALL`].

use serde::Serialize;
use std::fmt;

macro_rules! codes {
    ($(#[$meta:meta])* $name:ident { $($(#[$vmeta:meta])* $variant:ident => $text:literal,)* }) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum $name {
            $($(#[$vmeta])* $variant,)*
        }

        impl $name {
            /// Every code, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant,)*];

            /// The stable string form.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text,)*
                }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        /// In TypeScript: the union of the codes' string forms.
        #[cfg(feature = "ts")]
        impl ts_rs::TS for $name {
            type WithoutGenerics = Self;
            type OptionInnerType = Self;
            fn name(_: &ts_rs::Config) -> String {
                stringify!($name).to_string()
            }
            fn inline(_: &ts_rs::Config) -> String {
                let codes: Vec<String> = Self::ALL.iter().map(|c| format!("{:?}", c.as_str())).collect();
                codes.join(" | ")
            }
            fn decl(cfg: &ts_rs::Config) -> String {
                format!("type {} = {};", stringify!($name), Self::inline(cfg))
            }
            fn decl_concrete(cfg: &ts_rs::Config) -> String {
                Self::decl(cfg)
            }
            fn output_path() -> Option<std::path::PathBuf> {
                Some(std::path::PathBuf::from(concat!(stringify!($name), ".ts")))
            }
        }

        impl PartialEq<&str> for $name {
            fn eq(&self, other: &&str) -> bool {
                self.as_str() == *other
            }
        }
    };
}

codes! {
    /// Why an input (snapshot file, record, scenario) cannot be used.
    ErrorCode {
        /// Not a JSON document (or not UTF-8).
        NotJson => "not_json",
        /// The file ends early.
        Truncated => "truncated",
        /// The file is empty.
        Empty => "empty",
        /// A JSON document of some other kind.
        NotASnapshot => "not_a_snapshot",
        /// A file given as a recording that is not one (its first line is no recording header).
        NotARecording => "not_a_recording",
        /// A snapshot or scenario of another format version.
        UnsupportedFormat => "unsupported_format",
        /// A field of the snapshot file itself is missing, unknown or of the wrong type.
        InvalidField => "invalid_field",
        /// A key appears twice in one bucket.
        DuplicateKey => "duplicate_key",
        /// An entry's revision is above its bucket's recorded revision (the cut).
        AfterRevision => "after_revision",
        /// An entry's value encoding is wrong (bad base64, or not exactly one encoding).
        InvalidValue => "invalid_value",
        /// The job name is not `[A-Za-z0-9_-]{1,64}`.
        InvalidJob => "invalid_job",
        /// A bucket name does not match the job.
        BucketName => "bucket_name",
        /// A record value is not valid for its record type.
        InvalidRecord => "invalid_record",
        /// A plan, spec or progress record of another schema.
        WrongSchema => "wrong_schema",
        /// A record's `id` differs from its key's.
        IdMismatch => "id_mismatch",
        /// The input is larger than this planner accepts.
        TooLarge => "too_large",
        /// A scenario that is not valid JSON for the scenario format.
        InvalidScenario => "invalid_scenario",
        /// A scenario change whose `op` this planner does not know (refused; the others apply).
        UnknownOp => "unknown_op",
        /// A scenario change that cannot be read: a known `op` with a missing, unknown or
        /// ill-typed field, or not an object with a string `op` (refused; the others apply).
        InvalidChange => "invalid_change",
        /// A scenario change names a member that is not there.
        UnknownMember => "unknown_member",
        /// A scenario change names a split that is not there.
        UnknownSplit => "unknown_split",
        /// A scenario adds a member that is already one.
        DuplicateMember => "duplicate_member",
        /// A scenario adds a split that already exists.
        DuplicateSplit => "duplicate_split",
        /// A scenario sets the weight of a split that has no spec.
        NoSpec => "no_spec",
        /// A scenario adds more synthetic splits than the bound.
        TooManySplits => "too_many_splits",
        /// A scenario releases the withheld splits of an instance that is not a recent departure.
        NotDeparted => "not_departed",
        /// A claims query names an instance that is not a live member.
        NotAMember => "not_a_member",
        /// A simulation script that is not valid for the script format.
        InvalidScript => "invalid_script",
        /// A simulation configuration Spate would refuse (a value below its floor).
        InvalidConfig => "invalid_config",
        /// A simulation that would handle more events than the bound.
        TooManyEvents => "too_many_events",
        /// A sweep's axis or range that does not read (`sweep`, `report`, the page's form).
        InvalidSweep => "invalid_sweep",
    }
}

codes! {
    /// Something the leader survives, found while loading a snapshot.
    WarningCode {
        /// A presence value that does not parse: the member counts at the default cap.
        UnreadablePresence => "unreadable_presence",
        /// A progress record without a spec: not assignable yet.
        NoSpec => "no_spec",
        /// A spec without a progress record: not planned yet.
        SpecWithoutProgress => "spec_without_progress",
        /// A lease on a split without a progress record: ignored.
        LeaseWithoutProgress => "lease_without_progress",
        /// A record of another job (another `fp`): Spate stops on it; left out of the plan.
        ForeignFp => "foreign_fp",
        /// No plan record: the leader publishes nothing.
        NoPlan => "no_plan",
        /// A key Spate does not write: ignored.
        UnknownKey => "unknown_key",
        /// An `assign.*` value that does not parse: the leader ignores it.
        UnreadableAssignment => "unreadable_assignment",
        /// A payload (`descriptor`, `state`, `planner_state`) that is not base64: the leader does
        /// not decode it; the worker that uses it will fail.
        BadPayload => "bad_payload",
        /// Spate 0.3: the plan record's `elector` and the `leader` key disagree (an election
        /// under way, or the elected leader gone).
        ElectorMismatch => "elector_mismatch",
    }
}

codes! {
    /// A headline finding of an analysis (`review::findings`).
    FindingCode {
        /// Records of another job: Spate stops; the plan is hypothetical.
        ForeignRecords => "foreign_records",
        /// The leader publishes nothing: the current assignments stand.
        NoPublish => "no_publish",
        /// The store does not show the leader's own cap: Spate's default 8 is assumed.
        DefaultCapUnknown => "default_cap_unknown",
        /// A recently departed instance's splits are withheld.
        DepartedWithheld => "departed_withheld",
        /// A recently departed instance left no split waiting to run in its name (it stopped
        /// gracefully, or held nothing): nothing is withheld.
        DepartedReleased => "departed_released",
        /// Assignment records older than the plan's generation.
        StaleAssignments => "stale_assignments",
        /// A split named in more than one assignment record.
        ConflictingAssignments => "conflicting_assignments",
        /// The 4096-move bound was hit and more moves remain.
        BoundHit => "bound_hit",
        /// The store names 0.1 rules, but a 0.3.0 probe key hints at a 0.3.0 worker.
        MixedFleetHint => "mixed_fleet_hint",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn string_forms_are_distinct_snake_case() {
        let mut seen = std::collections::BTreeSet::new();
        for c in ErrorCode::ALL {
            assert!(seen.insert(c.as_str()), "{c} twice");
            assert!(c.as_str().bytes().all(|b| b.is_ascii_lowercase() || b == b'_'));
        }
        let mut seen = std::collections::BTreeSet::new();
        for c in WarningCode::ALL {
            assert!(seen.insert(c.as_str()), "{c} twice");
        }
        assert_eq!(
            serde_json::to_string(&ErrorCode::WrongSchema).unwrap(),
            "\"wrong_schema\""
        );
    }
}
