//! The review exports: the fleet chart sized for a slide (the heaviest members drawn, in the
//! order asked, the rest summed up in one line; every mark in its legend; its columns named),
//! and the tables as CSV — RFC 4180 text whose records are the JSON documents' rows, field for
//! field (`plan --json`'s moves, members and splits, `claims --json`, a sweep's steps, `diff
//! --json`'s members and owner changes).

use serde_json::Value;
use spate_planner_core::{
    analyse, claims_document, demo_snapshot, diff, human_bytes, next_claims, plan_document,
    report::summary,
    review::{
        claims_csv, diff_csv, fleet_chart, plan_csv, sweep_csv, DiffTable, FleetChart, Palette, PlanTable,
        SLIDE_ROWS,
    },
    sweep,
    sweep::{Axis, RemoveOrder},
    to_json, AssignmentSource, DemoParams, Fleet, Scenario,
};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

fn demo(members: usize, splits: usize, seed: u64) -> Fleet {
    let snap = demo_snapshot(&DemoParams {
        job: "exports".into(),
        splits,
        members,
        seed,
        taken_at_ms: 1_764_547_200_000,
    })
    .unwrap();
    Fleet::from_snapshot(&snap).unwrap()
}

fn scenario(text: &str) -> Scenario {
    Scenario::parse(text).unwrap()
}

/// The records of an RFC 4180 text (quoted fields, doubled quotes, CRLF between records).
fn records(text: &str) -> Vec<Vec<String>> {
    assert!(text.ends_with("\r\n"), "every record ends with CRLF");
    let mut out = vec![];
    let mut rec = vec![];
    let mut field = String::new();
    let mut chars = text.chars().peekable();
    let mut quoted = false;
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            (true, '"') => quoted = false,
            (true, c) => field.push(c),
            (false, '"') if field.is_empty() => quoted = true,
            (false, ',') => rec.push(std::mem::take(&mut field)),
            (false, '\r') => {
                assert_eq!(chars.next(), Some('\n'), "CR only before LF");
                rec.push(std::mem::take(&mut field));
                out.push(std::mem::take(&mut rec));
            }
            (false, c) => field.push(c),
        }
    }
    out
}

/// A JSON value as its CSV field: strings as they are (a formula guarded), numbers and
/// booleans as JSON writes them, null (or a field left out) as nothing, a list of names as its
/// names separated by ", ".
fn cell(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::Array(names) => names.iter().map(cell).collect::<Vec<_>>().join(", "),
        Value::String(s) if s.starts_with(['=', '+', '-', '@', '\t', '\r']) => format!("'{s}"),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The CSV's records equal `rows` (JSON objects) read in the header's columns.
fn same_rows(csv: &str, rows: &[Value]) -> Vec<String> {
    let recs = records(csv);
    let header = recs[0].clone();
    assert_eq!(recs.len() - 1, rows.len(), "one record per row");
    for (rec, row) in recs[1..].iter().zip(rows) {
        let want: Vec<String> = header.iter().map(|h| cell(&row[h.as_str()])).collect();
        assert_eq!(rec, &want, "{row}");
    }
    header
}

#[test]
fn the_plans_tables_are_the_plan_documents_rows() {
    let f = demo(30, 3000, 7);
    let a = analyse(
        &f,
        &scenario(r#"{"changes":[{"op":"add_member","member":"=new","cap":9}]}"#),
    )
    .unwrap();
    let doc: Value = serde_json::from_str(&plan_document(&f, &a).unwrap()).unwrap();
    let moves = doc["report"]["moves"].as_array().unwrap();
    assert!(moves.len() > 100, "the what-if moves splits");
    let head = same_rows(&plan_csv(&f, &a, PlanTable::Moves), moves);
    assert_eq!(head, ["split", "weight", "from", "to", "reason", "gain"]);
    // members: the report's figures and the summary's marks of the same member
    let members: Vec<Value> = doc["report"]["members"]
        .as_array()
        .unwrap()
        .iter()
        .zip(doc["summary"]["marks"].as_array().unwrap())
        .map(|(m, k)| {
            let mut row = m.clone();
            for (key, v) in k.as_object().unwrap() {
                row[key] = v.clone();
            }
            row
        })
        .collect();
    let csv = plan_csv(&f, &a, PlanTable::Members);
    same_rows(&csv, &members);
    // a name a spreadsheet would read as a formula is text
    assert!(csv.contains("\r\n'=new,9,false,"), "{csv}");
    // every split of the snapshot, each once
    let splits = records(&plan_csv(&f, &a, PlanTable::Splits));
    assert_eq!(splits.len() - 1, f.splits.len());
    assert_eq!(splits[0][0], "id");
    let planned: usize = doc["assignment"]
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_array().unwrap().len())
        .sum();
    let col = splits[0].iter().position(|h| h == "planned").unwrap();
    assert_eq!(splits[1..].iter().filter(|r| !r[col].is_empty()).count(), planned);
}

#[test]
fn the_claims_table_is_the_claims_documents_actions_in_order() {
    let f = demo(12, 1200, 3);
    let a = analyse(&f, &Scenario::default()).unwrap();
    let next = next_claims(&f, &a, None, AssignmentSource::Plan, 4).unwrap();
    let doc: Value = serde_json::from_str(
        &claims_document(&f, &a, &next, AssignmentSource::Plan, a.applied.max_attempts).unwrap(),
    )
    .unwrap();
    let mut want = vec![];
    for (member, actions) in doc["claims"].as_object().unwrap() {
        for (i, act) in actions.as_array().unwrap().iter().enumerate() {
            want.push(serde_json::json!({"member": member, "step": i + 1, "split": act["split"], "action": act["action"], "kind": act["kind"]}));
        }
        for (what, key) in [("drain", "drains"), ("fenced", "fenced")] {
            for id in doc[key][member].as_array().unwrap() {
                want.push(serde_json::json!({"member": member, "step": null, "split": id, "action": what, "kind": null}));
            }
        }
    }
    assert!(want.len() > 10, "acting on the plan, workers claim");
    let head = same_rows(&claims_csv(&next), &want);
    assert_eq!(head, ["member", "step", "split", "action", "kind"]);
}

#[test]
fn the_sweep_and_comparison_tables_are_their_documents_rows() {
    let f = demo(8, 800, 5);
    let steps = sweep(
        &f,
        &Scenario::default(),
        Axis::AddMembers { cap: None },
        0..=4,
        None,
    )
    .unwrap();
    let doc: Value = serde_json::from_str(&to_json(&steps).unwrap()).unwrap();
    let head = same_rows(&sweep_csv(&steps), doc.as_array().unwrap());
    assert_eq!(head.len(), 11, "no crash simulated: no crash columns");
    let later = demo(9, 800, 6);
    let d = diff(&f, &later, None).unwrap();
    let doc: Value = serde_json::from_str(&to_json(&d).unwrap()).unwrap();
    let members = doc["members"].as_array().unwrap();
    assert_eq!(same_rows(&diff_csv(&d, DiffTable::Members), members)[0], "name");
    let owners: Vec<Value> = doc["owner_changes"].as_array().unwrap().clone();
    assert!(!owners.is_empty());
    same_rows(&diff_csv(&d, DiffTable::Owners), &owners);
}

#[test]
fn a_sweep_that_removes_members_names_them_in_its_removed_column() {
    let f = demo(6, 600, 4);
    let members = Axis::Members {
        cap: None,
        remove: RemoveOrder::LightestFirst,
    };
    let steps = sweep(&f, &Scenario::default(), members, 1..=8, None).unwrap();
    let doc: Value = serde_json::from_str(&to_json(&steps).unwrap()).unwrap();
    let csv = sweep_csv(&steps);
    let head = same_rows(&csv, doc.as_array().unwrap());
    assert_eq!(head.len(), 12);
    assert_eq!(head.last().map(String::as_str), Some("removed"));
    // below today's six members, the members lost in the order removed; none from six up
    let recs = records(&csv);
    for (rec, step) in recs[1..].iter().zip(&steps) {
        let removed = rec.last().unwrap();
        assert_eq!(
            removed.split(", ").filter(|n| !n.is_empty()).count(),
            6usize.saturating_sub(step.value as usize)
        );
        assert_eq!(*removed, step.removed.join(", "));
    }
    assert!(
        recs[1].last().unwrap().contains(", "),
        "one member left: five removed"
    );
    // a sweep that removes no one has no removed column
    let grown = sweep(&f, &Scenario::default(), members, 6..=8, None).unwrap();
    assert!(!records(&sweep_csv(&grown))[0].contains(&"removed".to_string()));
}

fn chart_of(f: &Fleet, rows: Option<usize>, order: Option<&[String]>) -> String {
    let a = analyse(f, &Scenario::default()).unwrap();
    let lines = ["job exports".to_string(), "scenario: none".to_string()];
    fleet_chart(
        &a,
        &FleetChart {
            title: "Fleet",
            lines: &lines,
            order,
            palette: &Palette::default(),
            rows,
        },
    )
}

/// The members a chart draws, in its order.
fn drawn(svg: &str) -> Vec<String> {
    svg.split(r#"<g data-member=""#)
        .skip(1)
        .map(|s| s[..s.find('"').unwrap()].to_string())
        .collect()
}

fn size(svg: &str) -> (f64, f64) {
    let attr = |name: &str| -> f64 {
        let at = svg.find(&format!(" {name}=\"")).unwrap() + name.len() + 3;
        svg[at..at + svg[at..].find('"').unwrap()].parse().unwrap()
    };
    (attr("width"), attr("height"))
}

#[test]
fn a_slides_chart_draws_the_heaviest_in_the_order_asked_and_sums_up_the_rest() {
    let f = demo(60, 6000, 11);
    let a = analyse(&f, &Scenario::default()).unwrap();
    let marks = summary(&a.report).marks;
    // the heaviest 25 by the larger of load now and planned (ties: the report's order)
    let mut by_load: Vec<_> = a.report.members.iter().enumerate().collect();
    by_load.sort_by_key(|(i, m)| (std::cmp::Reverse(m.load_now.max(m.load_planned)), *i));
    let heaviest: Vec<&str> = by_load[..SLIDE_ROWS]
        .iter()
        .map(|(_, m)| m.name.as_str())
        .collect();
    // asked for in reverse name order: drawn in that order
    let order: Vec<String> = a.report.members.iter().rev().map(|m| m.name.clone()).collect();
    let svg = chart_of(&f, Some(SLIDE_ROWS), Some(&order));
    let shown = drawn(&svg);
    let want: Vec<String> = order
        .iter()
        .filter(|n| heaviest.contains(&n.as_str()))
        .cloned()
        .collect();
    assert_eq!(shown, want);
    // the rest in one line: how many, their loads together, now and planned
    let rest: Vec<_> = by_load[SLIDE_ROWS..]
        .iter()
        .map(|(i, m)| (*m, &marks[*i]))
        .collect();
    let now = human_bytes(rest.iter().map(|(m, _)| m.load_now).sum());
    let planned = human_bytes(rest.iter().map(|(m, _)| m.load_planned).sum());
    let over = rest.iter().filter(|(_, k)| k.over_planned).count();
    assert!(
        svg.contains(&format!("… and 35 more members, each lighter than those drawn: together {now} now, {planned} planned; {over} over the planned mean")),
        "{svg}"
    );
    // a slide's size: 1000 wide, wider than tall
    let (w, h) = size(&svg);
    assert_eq!(w, 1000.0);
    assert!(h < 750.0, "{h}");
    // every member when no limit is asked for, and when the fleet is smaller than the limit
    assert_eq!(drawn(&chart_of(&f, None, None)).len(), 60);
    let small = demo(10, 500, 2);
    let all = chart_of(&small, Some(SLIDE_ROWS), None);
    assert_eq!(drawn(&all).len(), 10);
    assert!(!all.contains("more member"));
}

#[test]
fn the_chart_names_its_columns_and_explains_every_mark() {
    let svg = chart_of(&demo(12, 1200, 4), Some(SLIDE_ROWS), None);
    for words in [
        ">member<",
        ">load (bytes): thin bar now, thick bar planned<",
        ">lanes / cap<",
        ">planned<",
        ">now: the load it holds<",
        ">planned: its load after the plan<",
        ">over its mean by more than 5%<",
        ">full: every lane of its cap used<",
        ">*: the leader&#39;s default cap<", // (XML-escaped)
        ">mean now ",
        ">planned mean ",
    ] {
        assert!(svg.contains(words), "the chart lacks {words}");
    }
    // the legend's swatches are the marks' colours: the thin bar, the thick bar, the over part
    let p = Palette::default();
    for colour in [&p.now, &p.planned, &p.over] {
        assert!(
            svg.contains(&format!(r#"width="18" height="5" fill="{colour}""#))
                || svg.contains(&format!(r#"width="18" height="9" fill="{colour}""#))
        );
    }
}

#[test]
fn a_long_scenario_line_is_wrapped_at_its_spaces_and_no_word_is_lost() {
    let f = demo(12, 200, 3);
    let a = analyse(&f, &Scenario::default()).unwrap();
    // thirteen changes described in one line, as the page writes the scenario under the title
    let changes: Vec<String> = (1..=13)
        .map(|i| {
            format!("remove member worker-{i:02} (crashed just now: its splits wait out the rebalance delay)")
        })
        .collect();
    let lines = [
        "job exports".to_string(),
        format!("scenario: {}", changes.join("; ")),
    ];
    let short = ["job exports".to_string(), "scenario: none".to_string()];
    let chart = |lines: &[String]| {
        fleet_chart(
            &a,
            &FleetChart {
                title: "Fleet",
                lines,
                order: None,
                palette: &Palette::default(),
                rows: Some(SLIDE_ROWS),
            },
        )
    };
    let svg = chart(&lines);
    // the texts drawn under the title (muted, at x = 12), in order
    let texts: Vec<&str> = svg
        .split(r#"<text x="12" y=""#)
        .skip(2)
        .filter_map(|t| t.split_once(r##"fill="#"##).map(|(_, rest)| rest))
        .filter_map(|t| t.split_once('>').map(|(_, rest)| rest))
        .map(|t| &t[..t.find("</text>").unwrap()])
        .take_while(|t| !t.starts_with('…'))
        .collect();
    let joined = texts.join(" ");
    for c in &changes {
        assert!(joined.contains(c.as_str()), "{c} is drawn whole: {texts:?}");
    }
    // each drawn line fits the image: at most 150 characters of 12 px text in 1000 px
    assert!(texts.iter().all(|t| t.chars().count() <= 150), "{texts:?}");
    assert!(texts.len() > 3, "the scenario takes several lines: {texts:?}");
    // the rows move down to make room: the image is taller by the extra lines
    let (_, tall) = size(&svg);
    let (_, low) = size(&chart(&short));
    assert_eq!(tall - low, (texts.len() - 2) as f64 * 16.0);
}
