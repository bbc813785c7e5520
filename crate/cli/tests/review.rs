//! `sweep` and `diff` on the command line: every sweep step equals `plan --what-if` with that
//! step's scenario; `diff` reads two snapshot files.

use serde_json::Value;
use std::path::PathBuf;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_spate-planner");

fn dir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("spate-review-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn json(args: &[&str]) -> Value {
    let o = Command::new(BIN).args(args).output().unwrap();
    assert!(
        o.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_slice(&o.stdout).unwrap()
}

fn demo(name: &str, members: &str, seed: &str) -> String {
    let p = dir().join(name);
    let o = Command::new(BIN)
        .args([
            "demo",
            "--splits",
            "600",
            "--members",
            members,
            "--seed",
            seed,
            "-o",
            p.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(o.status.success());
    p.to_str().unwrap().to_string()
}

#[test]
fn every_sweep_step_equals_the_plan_of_its_what_if() {
    let snap = demo("sweep.json", "6", "3");
    let doc = json(&["sweep", &snap, "--add-members", "0..3", "--cap", "40", "--json"]);
    let steps = doc["steps"].as_array().unwrap();
    assert_eq!(
        steps
            .iter()
            .map(|s| s["value"].as_u64().unwrap())
            .collect::<Vec<_>>(),
        vec![0, 1, 2, 3]
    );
    for step in steps {
        let n = step["value"].as_u64().unwrap();
        let changes: Vec<String> = (1..=n)
            .map(|i| format!(r#"{{"op":"add_member","member":"added-{i:02}","cap":40}}"#))
            .collect();
        let file = dir().join(format!("step-{n}.json"));
        std::fs::write(&file, format!(r#"{{"changes":[{}]}}"#, changes.join(","))).unwrap();
        let plan = json(&["plan", &snap, "--what-if", file.to_str().unwrap(), "--json"]);
        let r = &plan["report"];
        assert_eq!(step["max_load"], r["balance"]["max_load"], "step {n}");
        assert_eq!(step["queued"], r["counts"]["queued"], "step {n}");
        assert_eq!(step["moves"], r["churn"]["moves"], "step {n}");
        assert_eq!(step["bytes_moved"], r["churn"]["weight_moved"], "step {n}");
        assert_eq!(
            step["members"].as_u64().unwrap() as usize,
            r["members"].as_array().unwrap().len()
        );
    }
}

#[test]
fn diff_reads_two_snapshots() {
    let a = demo("a.json", "5", "1");
    let b = demo("b.json", "7", "1");
    let d = json(&["diff", &a, &b, "--json"]);
    assert_eq!(d["joined"], serde_json::json!(["worker-05", "worker-06"]));
    assert_eq!(d["left"], serde_json::json!([]));
    assert_eq!(d["before"]["members"], 5);
    assert_eq!(d["after"]["members"], 7);
    let o = Command::new(BIN)
        .args(["diff", &a, "/nonexistent.json"])
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("/nonexistent.json"));
}

#[test]
fn sweep_crash_heaviest_crashes_each_steps_heaviest_member() {
    let snap = demo("crash.json", "6", "5");
    let doc = json(&[
        "sweep",
        &snap,
        "--add-members",
        "0..1",
        "--crash-heaviest",
        "--json",
    ]);
    for step in doc["steps"].as_array().unwrap() {
        let n = step["value"].as_u64().unwrap();
        let changes: Vec<String> = (1..=n)
            .map(|i| format!(r#"{{"op":"add_member","member":"added-{i:02}"}}"#))
            .collect();
        let file = dir().join(format!("crash-step-{n}.json"));
        std::fs::write(&file, format!(r#"{{"changes":[{}]}}"#, changes.join(","))).unwrap();
        let plan = json(&["plan", &snap, "--what-if", file.to_str().unwrap(), "--json"]);
        // the heaviest by planned load, ties to the first name
        let members = plan["report"]["members"].as_array().unwrap();
        let load = |m: &Value| m["load_planned"].as_str().unwrap().parse::<u64>().unwrap();
        let top = members.iter().map(load).max().unwrap();
        let want = members.iter().find(|m| load(m) == top).unwrap()["name"].clone();
        let crash = &step["crash"];
        assert_eq!(crash["member"], want, "step {n}");
        assert!(crash["idle_split_ms"].as_str().unwrap().parse::<u64>().unwrap() > 0);
        assert!(crash["recovery_ms"].is_null() || crash["recovery_ms"].is_string());
    }
    let o = Command::new(BIN)
        .args(["sweep", &snap, "--add-members", "0..1", "--crash-heaviest"])
        .output()
        .unwrap();
    let table = String::from_utf8(o.stdout).unwrap();
    assert!(table.lines().next().unwrap().contains("crashed"), "{table}");
    // a script that cannot be read is named
    let o = Command::new(BIN)
        .args([
            "sweep",
            &snap,
            "--add-members",
            "0",
            "--crash-heaviest",
            "--script",
            "/nonexistent/s.json",
        ])
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("/nonexistent/s.json"));
}

fn stdout(args: &[&str]) -> String {
    let o = Command::new(BIN).args(args).output().unwrap();
    assert!(
        o.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).unwrap()
}

/// The rules and where they come from, wherever the default cap's source is shown: the human
/// report's `rules` line and the review document's `rules` row, from the store (the demo's plan
/// record has no elector at generation 3: a 0.1.x/0.2.x leader), from `--rules` and from a
/// what-if file's `rules` (which `--rules` overrides).
#[test]
fn the_report_and_the_review_document_name_the_rules_and_their_source() {
    let snap = demo("rules.json", "4", "5");
    let file = dir().join("rules-0.3.json");
    std::fs::write(&file, r#"{"rules":"0.3"}"#).unwrap();
    let what_if = file.to_str().unwrap();
    let store = "Spate 0.1 (the plan record has no elector: a 0.1.x/0.2.x worker won the last election; 0.1 covers 0.2)";
    let user = |r: &str| format!("Spate {r} (set by the user)");
    let line = |text: &str| -> String {
        let found = text.lines().find(|l| l.starts_with("rules "));
        found
            .unwrap_or_else(|| panic!("no rules line in {text}"))
            .to_string()
    };
    assert_eq!(line(&stdout(&["plan", &snap])), format!("rules {store}"));
    assert_eq!(
        line(&stdout(&["plan", &snap, "--rules", "0.3"])),
        format!("rules {}", user("0.3"))
    );
    assert_eq!(
        line(&stdout(&["plan", &snap, "--what-if", what_if])),
        format!("rules {}", user("0.3"))
    );
    assert_eq!(
        line(&stdout(&["plan", &snap, "--what-if", what_if, "--rules", "0.2"])),
        format!("rules {}", user("0.1"))
    );
    let row = |text: &str| -> String {
        let found = text.lines().find(|l| l.starts_with("| rules | "));
        found
            .unwrap_or_else(|| panic!("no rules row in {text}"))
            .to_string()
    };
    // the review document escapes every punctuation character of the sentence
    let escaped = |s: &str| -> String {
        s.chars()
            .flat_map(|c| match c.is_ascii_punctuation() {
                true => vec!['\\', c],
                false => vec![c],
            })
            .collect()
    };
    assert_eq!(
        row(&stdout(&["report", &snap])),
        format!("| rules | {} |", escaped(store))
    );
    assert_eq!(
        row(&stdout(&["report", &snap, "--what-if", what_if])),
        format!("| rules | {} |", escaped(&user("0.3")))
    );
    let doc = json(&["plan", &snap, "--what-if", what_if, "--json"]);
    assert_eq!(
        (doc["rules"].as_str(), doc["rules_source"].as_str()),
        (Some("0.3"), Some("user"))
    );
    // a what-if file naming no release this planner implements: the error names the field
    std::fs::write(&file, r#"{"rules":"0.4"}"#).unwrap();
    let o = Command::new(BIN)
        .args(["plan", &snap, "--what-if", what_if])
        .output()
        .unwrap();
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("\"0.4\" is not a release") && err.contains("rules"),
        "{err}"
    );
}

#[test]
fn the_sweep_document_marks_todays_fleet_and_names_its_targets() {
    let snap = demo("today.json", "6", "2");
    let doc = json(&[
        "sweep",
        &snap,
        "--add-members",
        "0..2",
        "--max-over-mean",
        "1.5",
        "--json",
    ]);
    assert_eq!(
        doc["today"],
        serde_json::json!({"value": 0, "note": "no member added"})
    );
    let today: Vec<bool> = doc["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["today"].as_bool().unwrap())
        .collect();
    assert_eq!(today, [true, false, false]);
    assert_eq!(
        doc["targets"],
        serde_json::json!({"max_over_mean": 1.5, "max_queued": 0})
    );
    let o = Command::new(BIN)
        .args(["sweep", &snap, "--add-members", "0..1"])
        .output()
        .unwrap();
    let table = String::from_utf8(o.stdout).unwrap();
    assert!(
        table.contains("(today's fleet)") && table.contains("today's fleet: no member added"),
        "{table}"
    );
}

#[test]
fn converge_prints_the_rounds_and_the_verdict_the_dashboard_shows() {
    let snap = demo("converge.json", "6", "4");
    let doc = json(&["converge", &snap, "--json"]);
    assert_eq!(doc["format"], "spate-planner-converge/1");
    let rounds = doc["rounds"].as_array().unwrap();
    let last = rounds.last().unwrap();
    assert_eq!(last["moves"], 0);
    assert_eq!(doc["converged"], true);
    assert_eq!(
        doc["verdict"],
        format!("Converged: round {} moves nothing.", last["round"])
    );
    // the first round is the plan of the snapshot: its moves are plan --json's
    let plan = json(&["plan", &snap, "--json"]);
    assert_eq!(rounds[0]["moves"], plan["report"]["churn"]["moves"]);
    assert_eq!(
        rounds[0]["max_over_mean"].as_str().unwrap().len(),
        6,
        "four decimals"
    );
    // at most --max-rounds (the demo fleet's first plan moves splits)
    assert!(rounds.len() > 1, "{rounds:?}");
    let one = json(&["converge", &snap, "--max-rounds", "1", "--json"]);
    assert_eq!(one["rounds"].as_array().unwrap().len(), 1);
    assert_eq!(
        (one["converged"].as_bool(), one["verdict"].as_str()),
        (Some(false), Some("Still moving after 1 round."))
    );
    let o = Command::new(BIN).args(["converge", &snap]).output().unwrap();
    let table = String::from_utf8(o.stdout).unwrap();
    assert!(
        table.trim_end().ends_with(doc["verdict"].as_str().unwrap()),
        "{table}"
    );
}

fn run(args: &[&str]) -> std::process::Output {
    Command::new(BIN).args(args).output().unwrap()
}

/// `--csv`: the first record names the document's fields, one record per row of the document
/// (`plan`'s moves, `claims`' actions, `sweep`'s steps, `diff`'s members); a table that is not
/// one is refused by name, and `--csv` with `--json` is refused.
#[test]
fn csv_tables_have_a_record_per_row_of_the_json_document() {
    let snap = demo("csv.json", "6", "4");
    let later = demo("csv-later.json", "7", "5");
    let lines = |args: &[&str]| -> Vec<String> {
        let o = run(args);
        assert!(
            o.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let text = String::from_utf8(o.stdout).unwrap();
        assert!(text.ends_with("\r\n"), "records end with CRLF");
        text.split("\r\n")
            .filter(|l| !l.is_empty())
            .map(str::to_string)
            .collect()
    };
    let plan = json(&["plan", &snap, "--json"]);
    let moves = lines(&["plan", &snap, "--csv", "moves"]);
    assert_eq!(moves[0], "split,weight,from,to,reason,gain");
    assert_eq!(moves.len() - 1, plan["report"]["moves"].as_array().unwrap().len());
    let claims = json(&["claims", &snap, "--after-plan", "--json"]);
    let actions: usize = claims["claims"]
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_array().unwrap().len())
        .sum::<usize>()
        + ["drains", "fenced"]
            .iter()
            .map(|k| {
                claims[k]
                    .as_object()
                    .unwrap()
                    .values()
                    .map(|v| v.as_array().unwrap().len())
                    .sum::<usize>()
            })
            .sum::<usize>();
    let csv = lines(&["claims", &snap, "--after-plan", "--csv"]);
    assert_eq!(csv[0], "member,step,split,action,kind");
    assert_eq!(csv.len() - 1, actions);
    let steps = lines(&["sweep", &snap, "--default-cap", "2..5", "--csv"]);
    assert_eq!(steps.len() - 1, 4);
    assert!(steps[0].starts_with("value,members,max_load,mean_load,"));
    let d = json(&["diff", &snap, &later, "--json"]);
    let members = lines(&["diff", &snap, &later, "--csv", "members"]);
    assert_eq!(members.len() - 1, d["members"].as_array().unwrap().len());
    let bad = run(&["plan", &snap, "--csv", "queue"]);
    assert!(!bad.status.success() && String::from_utf8_lossy(&bad.stderr).contains("queue"));
    let both = run(&["plan", &snap, "--csv", "moves", "--json"]);
    assert!(!both.status.success() && String::from_utf8_lossy(&both.stderr).contains("cannot be used with"));
}

/// `report --crash-heaviest -o DIR/review.md`: the charts are SVG files beside the Markdown,
/// linked by relative names (no `data:` URI), and the sweep carries each step's crash as
/// `sweep --crash-heaviest --json` prices it, with the verdict `sweep` prints.
#[test]
fn report_crash_heaviest_writes_its_charts_beside_the_markdown_and_the_sweeps_crash_figures() {
    let snap = demo("report-crash.json", "12", "3");
    let out = dir().join("report-crash");
    let _ = std::fs::remove_dir_all(&out);
    std::fs::create_dir_all(&out).unwrap();
    let md_path = out.join("review.md");
    let range = "0..2";
    let o = Command::new(BIN)
        .args([
            "report",
            &snap,
            "--sweep-add-members",
            range,
            "--crash-heaviest",
            "--max-over-mean",
            "1.05",
            "-o",
            md_path.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let md = std::fs::read_to_string(&md_path).unwrap();
    assert!(!md.contains("data:"), "no data: URI");
    // every image the Markdown links is a file written beside it, and every file written is linked
    let links: Vec<&str> = md
        .lines()
        .filter_map(|l| l.strip_prefix("![")?.split_once("](")?.1.strip_suffix(')'))
        .collect();
    assert!(links.contains(&"review-sweep-recovery.svg"), "{links:?}");
    let mut written: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".svg"))
        .collect();
    written.sort();
    let mut linked: Vec<String> = links.iter().map(|s| s.to_string()).collect();
    linked.sort();
    assert_eq!(written, linked);
    for l in &links {
        let svg = std::fs::read_to_string(out.join(l)).unwrap();
        assert!(svg.starts_with("<svg"), "{l}");
    }
    // the crash figures are the sweep's
    let doc = json(&[
        "sweep",
        &snap,
        "--add-members",
        range,
        "--crash-heaviest",
        "--max-over-mean",
        "1.05",
        "--json",
    ]);
    for step in doc["steps"].as_array().unwrap() {
        let c = &step["crash"];
        let recovery = c["recovery_s"]
            .as_str()
            .map_or("never".to_string(), |s| format!("{s} s"));
        let cells = format!(
            "| `{}` | {recovery} | {} |",
            c["member"].as_str().unwrap(),
            c["idle_split_s"]
                .as_str()
                .map_or_else(|| c["idle_split_s"].to_string(), str::to_string)
        );
        let v = step["value"].as_u64().unwrap();
        let row = md
            .lines()
            .find(|l| l.starts_with(&format!("| {v} ")))
            .unwrap_or_else(|| panic!("no row {v}: {md}"));
        assert!(row.contains(&cells), "{row} lacks {cells}");
    }
    // the verdict: the sweep document's words, escaped as the review writes text
    let verdict = doc["verdict"].as_str().unwrap();
    assert!(
        verdict.starts_with("Fewest members to add meeting the targets"),
        "{verdict}"
    );
    let escaped: String = verdict
        .chars()
        .flat_map(|c| match c.is_ascii_punctuation() {
            true => vec!['\\', c],
            false => vec![c],
        })
        .collect();
    assert!(md.contains(&format!("**Verdict:** {escaped}\n")), "{md}");
    // `sweep` prints the same words (without the crash, which it was not asked to price)
    let table = stdout(&["sweep", &snap, "--add-members", range, "--max-over-mean", "1.05"]);
    let plain = verdict.split("; a crash").next().unwrap().trim_end_matches('.');
    assert!(table.lines().any(|l| l.starts_with(plain)), "{table}");
    // the snapshot's date, with its zone
    assert!(
        md.contains("| snapshot taken at | 2026-01-01 00:00:00 UTC |"),
        "{md}"
    );
}

/// The text reports list members by name in natural order: w-2 before w-10 (byte order puts
/// w-10 first).
#[test]
fn text_reports_list_members_in_natural_order() {
    let snap = demo("natural.json", "4", "4");
    let file = dir().join("natural-what-if.json");
    std::fs::write(
        &file,
        r#"{"changes":[{"op":"add_member","member":"w-10"},{"op":"add_member","member":"w-2"}]}"#,
    )
    .unwrap();
    let what_if = file.to_str().unwrap();
    let plan = stdout(&["plan", &snap, "--what-if", what_if]);
    let at = |text: &str, n: &str| text.find(n).unwrap_or_else(|| panic!("{n}: {text}"));
    assert!(at(&plan, "\n  w-2 ") < at(&plan, "\n  w-10 "), "{plan}");
    let claims = stdout(&["claims", &snap, "--what-if", what_if]);
    assert!(
        at(&claims, "\nw-2: holds") < at(&claims, "\nw-10: holds"),
        "{claims}"
    );
    let md = stdout(&["report", &snap, "--what-if", what_if]);
    let members = &md[at(&md, "## Members")..];
    assert!(at(members, "| `w-2` |") < at(members, "| `w-10` |"), "{md}");
}

/// A number of a JSON document, written as a number or as a decimal string (u64).
fn u64_of(v: &Value) -> u64 {
    v.as_u64()
        .or_else(|| v.as_str().and_then(|s| s.parse().ok()))
        .unwrap_or_else(|| panic!("not a u64: {v}"))
}

/// `sweep --members`: a fleet of each size from one member to more than today's; below today's
/// count it loses members in the order asked (here the heaviest first: the most load now, ties
/// by name), each stopping gracefully; the verdict names the fewest members that meet the targets.
#[test]
fn sweep_members_removes_in_the_order_asked_and_names_the_fewest_that_meet_the_targets() {
    let snap = demo("members.json", "6", "5");
    let plan = json(&["plan", &snap, "--json"]);
    let mut by_load: Vec<(String, u64)> = plan["report"]["members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["name"].as_str().unwrap().to_string(), u64_of(&m["load_now"])))
        .collect();
    by_load.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let heaviest_first: Vec<String> = by_load.into_iter().map(|(n, _)| n).collect();
    let doc = json(&[
        "sweep",
        &snap,
        "--members",
        "1..8",
        "--remove",
        "heaviest-first",
        "--max-over-mean",
        "1.05",
        "--max-queued",
        "0",
        "--json",
    ]);
    assert_eq!(doc["today"]["value"], 6);
    let steps = doc["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 8);
    for s in steps {
        let value = s["value"].as_u64().unwrap();
        assert_eq!(s["members"].as_u64().unwrap(), value);
        let removed: Vec<String> = s["removed"]
            .as_array()
            .map(|a| a.iter().map(|n| n.as_str().unwrap().to_string()).collect())
            .unwrap_or_default();
        let lose = 6usize.saturating_sub(value as usize);
        assert_eq!(removed, heaviest_first[..lose], "step {value}");
        assert_eq!(s["today"], value == 6);
    }
    // the fewest members meeting the targets, by the targets' rule on the steps' figures
    let fewest = steps
        .iter()
        .filter(|s| {
            s["queued"].as_u64() == Some(0)
                && s["max_over_mean"].as_str().unwrap().parse::<f64>().unwrap() <= 1.05
        })
        .map(|s| s["value"].as_u64().unwrap())
        .min();
    assert_eq!(doc["smallest_meeting"].as_u64(), fewest);
    let verdict = doc["verdict"].as_str().unwrap();
    match fewest {
        Some(n) => assert!(
            verdict.starts_with(&format!("Fewest members meeting the targets (max/mean at most 1.05 and at most 0 queued): {n} — {n} members")),
            "{verdict}"
        ),
        None => assert!(verdict.starts_with("No value of members from 1 to 8 meets the targets"), "{verdict}"),
    }
    let text = Command::new(BIN)
        .args(["sweep", &snap, "--members", "1..8", "--max-over-mean", "1.05"])
        .output()
        .unwrap();
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(text.contains("today's fleet: 6 members now"), "{text}");
    assert!(
        text.lines()
            .last()
            .unwrap()
            .starts_with("Fewest members meeting the targets")
            || text.contains("No value of members"),
        "{text}"
    );
    // an order that does not read, and a cap with an axis that adds no member, are refused
    let bad = Command::new(BIN)
        .args(["sweep", &snap, "--members", "1..3", "--remove", "sideways"])
        .output()
        .unwrap();
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("[invalid_sweep]"));
    let cap = Command::new(BIN)
        .args(["sweep", &snap, "--default-cap", "1..3", "--cap", "4"])
        .output()
        .unwrap();
    assert!(!cap.status.success());
}

/// `sweep --members --csv`: the steps below today's count name the members they remove in a
/// last column, `removed` (in the order removed, as `--json`'s `removed` lists them); a sweep
/// that removes no one has no such column.
#[test]
fn sweep_members_csv_names_the_members_each_step_removes() {
    let snap = demo("members-csv.json", "6", "5");
    let doc = json(&[
        "sweep",
        &snap,
        "--members",
        "1..8",
        "--remove",
        "heaviest-first",
        "--json",
    ]);
    let o = run(&[
        "sweep",
        &snap,
        "--members",
        "1..8",
        "--remove",
        "heaviest-first",
        "--csv",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8(o.stdout).unwrap();
    let records: Vec<&str> = text.split("\r\n").filter(|l| !l.is_empty()).collect();
    assert!(records[0].ends_with(",bound_hit,removed"), "{}", records[0]);
    let steps = doc["steps"].as_array().unwrap();
    assert_eq!(records.len() - 1, steps.len());
    for (rec, s) in records[1..].iter().zip(steps) {
        let names: Vec<&str> = s["removed"]
            .as_array()
            .map(|a| a.iter().map(|n| n.as_str().unwrap()).collect())
            .unwrap_or_default();
        // (names of a demo fleet hold no quote: a list of two or more is one quoted field)
        let cell = match names.len() {
            0 => String::new(),
            1 => names[0].to_string(),
            _ => format!("\"{}\"", names.join(", ")),
        };
        assert!(rec.ends_with(&format!(",{cell}")), "step {}: {rec}", s["value"]);
    }
    assert!(records[1].contains(", "), "one member left: five removed");
    let grown = run(&["sweep", &snap, "--members", "6..8", "--csv"]);
    assert!(!String::from_utf8(grown.stdout)
        .unwrap()
        .lines()
        .next()
        .unwrap()
        .contains("removed"));
}
