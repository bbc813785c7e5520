//! The figures table of two configurations (docs/simulator.md, "The figures of A and B"): each
//! value as the document gives it, exact; B − A exact with its sign, `same` when equal, `—`
//! when either has no value; the words of each kind.

use spate_planner_sim::{figures_table, FigureKind, FigureRow, Figures, FIGURES};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

fn row<'a>(rows: &'a [FigureRow], key: &str) -> &'a FigureRow {
    rows.iter().find(|r| r.key == key).expect("a row of every figure")
}

fn figures() -> Figures {
    Figures {
        recovery_ms: Some(57_400),
        idle_split_ms: 14_570_428,
        idle_weighted: 5_658_958_106_497_968,
        attempts_burned: 3,
        moves: 3,
        claims: 12,
        end_ms: 600_000,
        ..Figures::default()
    }
}

#[test]
fn every_figure_of_the_document_once_in_order() {
    let rows = figures_table(&figures(), None, true);
    let keys: Vec<&str> = rows.iter().map(|r| r.key).collect();
    assert_eq!(
        keys,
        [
            "recovery_ms",
            "idle_split_ms",
            "idle_weighted",
            "attempts_burned",
            "splits_quarantined",
            "splits_parked_by_race",
            "moves",
            "forced_drains",
            "replayed_ms",
            "leadership_gap_ms",
            "longest_leadership_gap_ms",
            "elections",
            "publishes",
            "claims"
        ]
    );
    // each key is a field of the simulation document's figures
    let doc = serde_json::to_value(figures()).unwrap();
    for def in &FIGURES {
        assert!(
            doc.get(def.key).is_some(),
            "{} is not a figure of the document",
            def.key
        );
        assert!(!def.help.is_empty() && !def.label.is_empty());
    }
    // without B: no B, no difference
    assert!(rows
        .iter()
        .all(|r| r.b.is_none() && r.b_text.is_none() && r.diff.is_none() && !r.changed));
}

#[test]
fn values_in_words_by_kind() {
    let rows = figures_table(&figures(), None, true);
    assert_eq!(row(&rows, "recovery_ms").a.as_deref(), Some("57400"));
    assert_eq!(row(&rows, "recovery_ms").a_text, "57.4 s");
    assert_eq!(row(&rows, "recovery_ms").kind, FigureKind::Ms);
    // 14,570,428 split-ms: 14,570.428 split-seconds, rounded
    assert_eq!(row(&rows, "idle_split_ms").a_text, "14,570 split-s");
    // 5,658,958,106,497,968 byte-ms: 5,658,958,106,497 bytes × s = 5.147 TiB·s
    assert_eq!(row(&rows, "idle_weighted").a.as_deref(), Some("5658958106497968"));
    assert_eq!(row(&rows, "idle_weighted").a_text, "5.15 TiB·s");
    assert_eq!(row(&rows, "claims").a_text, "12");
    // no recovery: not recovered with events, no events without
    let never = Figures {
        recovery_ms: None,
        ..figures()
    };
    let rows = figures_table(&never, None, true);
    assert_eq!(row(&rows, "recovery_ms").a, None);
    assert_eq!(row(&rows, "recovery_ms").a_text, "not recovered");
    assert_eq!(
        row(&figures_table(&never, None, false), "recovery_ms").a_text,
        "no events"
    );
}

#[test]
fn b_minus_a_is_signed_and_same_when_equal() {
    let b = Figures {
        recovery_ms: Some(25_100),
        attempts_burned: 1_003,
        ..figures()
    };
    let rows = figures_table(&figures(), Some(&b), true);
    let rec = row(&rows, "recovery_ms");
    assert_eq!(
        (rec.b.as_deref(), rec.b_text.as_deref()),
        (Some("25100"), Some("25.1 s"))
    );
    // 25,100 − 57,400 = −32,300 ms
    assert_eq!(rec.diff.as_deref(), Some("-32300"));
    assert_eq!(rec.diff_text.as_deref(), Some("−32.3 s"));
    assert!(rec.changed);
    let att = row(&rows, "attempts_burned");
    assert_eq!(att.diff.as_deref(), Some("+1000"));
    assert_eq!(att.diff_text.as_deref(), Some("+1,000"));
    let moves = row(&rows, "moves");
    assert_eq!(
        (moves.diff.as_deref(), moves.diff_text.as_deref()),
        (Some("0"), Some("same"))
    );
    assert!(!moves.changed);
}

#[test]
fn a_missing_value_has_no_difference() {
    let b = Figures {
        recovery_ms: None,
        ..figures()
    };
    let rows = figures_table(&figures(), Some(&b), true);
    let rec = row(&rows, "recovery_ms");
    assert_eq!(rec.b, None);
    assert_eq!(rec.b_text.as_deref(), Some("not recovered"));
    assert_eq!(rec.diff, None);
    assert_eq!(rec.diff_text.as_deref(), Some("—"));
    assert!(rec.changed, "recovered in A, not in B");
    let both = figures_table(&b, Some(&b), true);
    assert_eq!(row(&both, "recovery_ms").diff_text.as_deref(), Some("—"));
    assert!(!row(&both, "recovery_ms").changed);
}

#[test]
fn differences_are_exact_beyond_2_to_the_53() {
    // u64::MAX claims against none, and two weighted idle figures beyond 2^53 one apart
    let a = Figures {
        claims: 0,
        idle_weighted: 9_007_199_254_740_993_000,
        ..Figures::default()
    };
    let b = Figures {
        claims: u64::MAX,
        idle_weighted: 9_007_199_254_740_994_000,
        ..Figures::default()
    };
    let rows = figures_table(&a, Some(&b), false);
    let claims = row(&rows, "claims");
    assert_eq!(claims.b.as_deref(), Some("18446744073709551615"));
    assert_eq!(claims.diff.as_deref(), Some("+18446744073709551615"));
    assert_eq!(claims.diff_text.as_deref(), Some("+18,446,744,073,709,551,615"));
    let back = figures_table(&b, Some(&a), false);
    assert_eq!(
        row(&back, "claims").diff.as_deref(),
        Some("-18446744073709551615")
    );
    assert_eq!(
        row(&back, "claims").diff_text.as_deref(),
        Some("−18,446,744,073,709,551,615")
    );
    let w = row(&rows, "idle_weighted");
    assert_eq!(w.a.as_deref(), Some("9007199254740993000"));
    assert_eq!(w.diff.as_deref(), Some("+1000"));
    // 1,000 byte-ms is 1 byte × s
    assert_eq!(w.diff_text.as_deref(), Some("+1 B·s"));
    // the largest weighted idle figure, u128::MAX, against 0
    let huge = Figures {
        idle_weighted: u128::MAX,
        ..Figures::default()
    };
    let rows = figures_table(&Figures::default(), Some(&huge), false);
    assert_eq!(
        row(&rows, "idle_weighted").diff.as_deref(),
        Some(&*format!("+{}", u128::MAX))
    );
}

#[test]
fn figures_read_back_from_the_document() {
    // the document writes idle_weighted as a decimal string; reading it back keeps it exact
    let f = Figures {
        idle_weighted: 9_007_199_254_740_993_123,
        ..figures()
    };
    let text = serde_json::to_string(&f).unwrap();
    assert!(text.contains(r#""idle_weighted":"9007199254740993123""#));
    let back: Figures = serde_json::from_str(&text).unwrap();
    assert_eq!(back, f);
    let bad = text.replace("9007199254740993123", "nine");
    let err = serde_json::from_str::<Figures>(&bad).unwrap_err().to_string();
    assert!(err.contains("\"nine\" is not an integer"), "{err}");
}
