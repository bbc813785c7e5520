//! The review document's Timeline section (docs/simulator.md, "The Timeline section"): the
//! script fenced, B's settings, the release followed, both configurations' figures with the
//! difference, the charts as data URIs, A's marks, a failure with its code and path; and every
//! string from the store or the script escaped as the core's review document escapes them, so a
//! hostile member or split name brings no tag, link, image or table break.

use serde_json::{json, Value};
use spate_planner_sim::{timeline_section, SectionInput};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

const HOSTILE: &str = "<img src=x onerror=alert(1)>`|x|\n| evil | row |\n[link](javascript:alert(1))";

fn figures(recovery: Option<u64>) -> Value {
    json!({"recovery_ms": recovery, "splits_taken": 1, "not_recovered": [], "others_not_running": 0,
        "idle_before": 0, "quarantined_before": 0, "idle_split_ms": 80000, "idle_weighted": "1550000",
        "attempts_burned": 2, "splits_quarantined": 1, "moves": 1, "forced_drains": 0, "replayed_ms": 0,
        "leadership_gap_ms": 0, "longest_leadership_gap_ms": 0, "elections": 1, "publishes": 2,
        "claims": 1, "end_ms": 60000})
}

fn input(run: Value, member: &str) -> SectionInput {
    let script = json!({"format": "spate-planner-script/1", "until_ms": 60000,
        "events": [{"at_ms": 10000, "op": "crash", "member": member}]});
    serde_json::from_value(json!({
        "script": script.to_string(),
        "b": r#"{"rebalance_delay_ms":0}"#,
        "names": {"A": "A: Spate's defaults", "B": "B: rebalance delay 0 s"},
        "run": run,
        "images": [{"which": "A", "svg": "<svg>é</svg>", "range": [5000.5, 65000]}],
    }))
    .unwrap()
}

fn done(member: &str) -> Value {
    json!({"status": "done",
        "a": {"figures": figures(Some(30000)), "rules_note": "Spate 0.1 (the store names no release)",
              "marks": [{"t_ms": 10000, "kind": "crash", "who": [member]},
                        {"t_ms": 40000, "kind": "recovered", "who": []}]},
        "b": {"figures": figures(Some(12000)), "rules_note": "Spate 0.1 (the store names no release)"}})
}

#[test]
fn the_section_holds_the_script_b_the_figures_the_images_and_the_marks() {
    let md = timeline_section(&input(done("w1"), "w1"));
    assert!(md.starts_with("## Timeline\n\nWhat the timing simulator (`spate-planner simulate`) replays on this snapshot: 1 min of heartbeats"), "{md}");
    let script = r#"{"events":[{"at_ms":10000,"member":"w1","op":"crash"}],"format":"spate-planner-script/1","until_ms":60000}"#;
    assert!(md.contains(&format!("```json\n{script}\n```")), "{md}");
    assert!(
        md.contains(
            "Configuration B runs the same script with: `{\"rebalance_delay_ms\":0}` (rebalance delay 0 s)."
        ),
        "{md}"
    );
    assert!(
        md.contains("A: timing and decisions of Spate 0\\.1 \\(the store names no release\\)."),
        "{md}"
    );
    assert!(md.contains("| figure | A\\: Spate\\'s defaults | B\\: rebalance delay 0 s | B − A |\n| --- | --- | --- | --- |"), "{md}");
    // 12 s − 30 s
    assert!(md.contains("\n| recovery | 30 s | 12 s | −18 s |\n"), "{md}");
    assert!(md.contains("\n| moves | 1 | 1 | same |\n"), "{md}");
    // the chart is a file beside the document, linked by name (no data: URI)
    assert!(md.contains("![A\\: Spate\\'s defaults: each member's load over time and the idle work, 0:05 to 1:05](review-timeline-a.svg)"), "{md}");
    assert!(!md.contains("data:"), "{md}");
    assert!(md.contains("Events of A:\n\n- 0\\:10 crashed\\: w1\n- 0\\:40 recovered\\: every split the events took runs again\n"), "{md}");
    assert!(md.ends_with('\n'));
}

#[test]
fn a_without_b_has_one_column_and_no_events_no_recovery() {
    let mut i = input(
        json!({"status": "done", "a": {"figures": figures(None)}, "b": null}),
        "w1",
    );
    i.b = None;
    i.names.b = None;
    i.script = r#"{"until_ms":3723000}"#.into();
    let md = timeline_section(&i);
    assert!(md.contains("on this snapshot: 1 h 2 min of heartbeats"), "{md}");
    assert!(!md.contains("Configuration B"), "{md}");
    assert!(
        md.contains("| figure | value |\n| --- | --- |\n| recovery | no events |\n"),
        "{md}"
    );
    assert!(!md.contains("Events of A"), "{md}");
}

#[test]
fn a_failure_names_the_configuration_the_code_and_the_path_and_not_run_says_how() {
    let failed = json!({"status": "error", "error": {"which": "B", "message": "bad *value*", "code": "invalid_config", "path": "config.lease_duration_ms"}});
    let md = timeline_section(&input(failed, "w1"));
    assert!(md.contains("**Configuration B could not be simulated:** bad \\*value\\* (code `invalid_config`, at `config.lease_duration_ms`)."), "{md}");
    assert!(!md.contains("### Figures"));
    let md = timeline_section(&input(json!({"status": "not_run"}), "w1"));
    assert!(
        md.contains(
            "_Not simulated in the page: run `spate-planner simulate SNAPSHOT --script script.json`._"
        ),
        "{md}"
    );
    assert!(!md.contains("### Figures"));
}

/// The lines outside fenced blocks with their code spans removed.
fn prose(md: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut fence: Option<String> = None;
    for line in md.lines() {
        let ticks: String = line.chars().take_while(|&c| c == '`').collect();
        match &fence {
            Some(f) if line == f.as_str() => fence = None,
            Some(_) => {}
            None if ticks.len() >= 3 => fence = Some(ticks),
            None => out.push(strip_code_spans(line)),
        }
    }
    out
}

/// A line without its code spans (a run of n backticks to the next run of exactly n; a
/// backslash-escaped backtick opens none).
fn strip_code_spans(line: &str) -> String {
    let b = line.as_bytes();
    let (mut out, mut i) = (String::new(), 0);
    while i < b.len() {
        match b[i] {
            b'\\' => {
                let next = line[i + 1..].chars().next().map_or(0, char::len_utf8);
                out.push_str(&line[i..i + 1 + next]);
                i += 1 + next;
            }
            b'`' => {
                let n = b[i..].iter().take_while(|&&c| c == b'`').count();
                let mut j = i + n;
                let close = loop {
                    let Some(k) = line[j..].find('`') else { break None };
                    let m = b[j + k..].iter().take_while(|&&c| c == b'`').count();
                    if m == n {
                        break Some(j + k);
                    }
                    j += k + m;
                };
                i = close.expect("every code span closes") + n;
            }
            _ => {
                let c = line[i..].chars().next().unwrap();
                out.push(c);
                i += c.len_utf8();
            }
        }
    }
    out
}

/// The characters Markdown acts on, unescaped.
fn unescaped(line: &str, c: char) -> usize {
    let mut n = 0;
    let mut escaped = false;
    for ch in line.chars() {
        if ch == c && !escaped {
            n += 1;
        }
        escaped = ch == '\\' && !escaped;
    }
    n
}

#[test]
fn hostile_names_bring_no_tag_link_or_table_break() {
    let mut i = input(done(HOSTILE), HOSTILE);
    i.b = Some(format!(r#"{{"members.{HOSTILE}.max_in_flight":2}}"#));
    i.names.a = format!("A: {HOSTILE}");
    i.names.b = Some(format!("B: {HOSTILE}"));
    i.run = serde_json::from_value(done(HOSTILE)).unwrap();
    let md = timeline_section(&i);
    let failed = json!({"status": "error", "error": {"which": "A", "message": HOSTILE, "code": HOSTILE, "path": HOSTILE}});
    let md_failed = timeline_section(&input(failed, HOSTILE));
    for md in [&md, &md_failed] {
        let lines = prose(md);
        for l in &lines {
            // no tag; no link but the image's; no code span left open
            for c in ['<', '>', '`'] {
                assert_eq!(unescaped(l, c), 0, "an unescaped {c:?} in {l:?}\n{md}");
            }
            if !l.starts_with("![") {
                for c in ['[', ']'] {
                    assert_eq!(unescaped(l, c), 0, "an unescaped {c:?} in {l:?}\n{md}");
                }
            }
            assert!(!l.replace("\\<img", "").contains("<img"), "{l}");
            if l.starts_with('|') {
                assert_eq!(unescaped(l, '|'), 5, "a table row broken: {l:?}");
            }
            assert!(!l.starts_with("| evil"), "a row injected: {l}\n{md}");
        }
        let image = lines
            .iter()
            .find(|l| l.starts_with("!["))
            .map(String::as_str)
            .unwrap_or("");
        if !image.is_empty() {
            // the one link is the chart's file
            assert_eq!(unescaped(image, '['), 1, "{image}");
            assert_eq!(unescaped(image, ']'), 1, "{image}");
            assert!(image.ends_with("](review-timeline-a.svg)"), "{image}");
        }
    }
    // the script with the hostile name stays in its fence, whole
    let fence_ok = md.contains("```json\n") || md.contains("````json\n");
    assert!(fence_ok, "{md}");
}

/// Each configuration's recovery in the simulator's words, under the figures (as `simulate` and
/// the Timeline tab say them), the names in them escaped; B's `start` override is its own.
#[test]
fn the_section_says_what_each_recovery_rests_on_in_the_simulators_words() {
    let mut run = done(HOSTILE);
    run["a"]["figures"]["recovery_ms"] = Value::Null;
    run["a"]["figures"]["not_recovered"] = json!([{"split": "p-1", "reason": "withheld", "member": HOSTILE}]);
    run["a"]["figures"]["idle_before"] = json!(3);
    run["b"]["figures"]["idle_before"] = json!(2);
    let mut section = input(run, "w1");
    section.b = Some(r#"{"start":"planned"}"#.into());
    let md = timeline_section(&section);
    let a = md
        .lines()
        .find(|l| l.starts_with("A: The events took 1 split"))
        .unwrap_or_else(|| panic!("{md}"));
    assert!(
        a.contains(
            "Not recovered\\: 1 of them never ran again — 1 still withheld by the rebalance delay \\(\\<img"
        ),
        "{a}"
    );
    assert!(
        a.contains("the snapshot\\'s own\\, not the events\\' doing"),
        "{a}"
    );
    // every markup character of the member's name is escaped: no tag, link or table break
    let bare = |c: char| a.match_indices(c).any(|(i, _)| !a[..i].ends_with('\\'));
    assert!(
        !['<', '>', '[', ']', '|', '`'].into_iter().any(bare),
        "the member's name is escaped: {a}"
    );
    let b = md
        .lines()
        .find(|l| l.starts_with("B: The events took 1 split"))
        .unwrap_or_else(|| panic!("{md}"));
    assert!(b.contains("every one runs again\\."), "{b}");
    assert!(
        b.contains("the settled fleet\\'s own"),
        "B starts from the plan: {b}"
    );
}
