//! The fleet chart as a stand-alone SVG document: one row per member, its load now (thin bar)
//! and planned (thick bar), the part over each side's mean in a warm colour exactly where the
//! plan's summary says the member is over it, both means as labelled lines, lanes against the
//! cap, and a ⚠n mark after the bars of a member holding n splits at risk of quarantine (the
//! plan's `at_risk.by_member`; the mark's legend only when one is drawn). The dashboard's SVG
//! and PNG exports and the review document draw this one chart; the
//! page passes the colours of its theme, its title lines and its member order.
//!
//! Self-contained SVG text (no script, no external reference); every label from the data is
//! XML-escaped, and a colour that is not a plain CSS colour is replaced by the default one.

use crate::chart::escape;
use crate::pipeline::Analysis;
use crate::report::{human_bytes, summary, Marks, MemberReport};
use crate::risk::at_risk;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::fmt::Write;

const ROW: f64 = 20.0;
const LEFT: f64 = 190.0;
const RIGHT: f64 = 200.0;
const WIDTH: f64 = 1000.0;

/// The chart's colours (CSS colours: `#rgb`, `#rrggbb`, `#rrggbbaa`, `rgb(…)`, `rgba(…)`).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Palette {
    pub bg: String,
    pub text: String,
    pub muted: String,
    pub now: String,
    pub planned: String,
    pub over: String,
    pub mean: String,
    pub grid: String,
}

impl Default for Palette {
    /// The dashboard's light theme.
    fn default() -> Palette {
        let c = |s: &str| s.to_string();
        Palette {
            bg: c("#ffffff"),
            text: c("#1a2230"),
            muted: c("#4d5868"),
            now: c("#5d6b7e"),
            planned: c("#2456c8"),
            over: c("#c2410c"),
            mean: c("#1a2230"),
            grid: c("#d5dae1"),
        }
    }
}

/// A plain CSS colour: a hex colour, or `rgb()` / `rgba()` of numbers.
fn plain_colour(s: &str) -> bool {
    let hex = s
        .strip_prefix('#')
        .is_some_and(|h| matches!(h.len(), 3 | 4 | 6 | 8) && h.bytes().all(|b| b.is_ascii_hexdigit()));
    let func = ["rgb(", "rgba("].iter().any(|p| {
        s.strip_prefix(p)
            .and_then(|r| r.strip_suffix(')'))
            .is_some_and(|args| args.bytes().all(|b| b.is_ascii_digit() || b" .,%/".contains(&b)))
    });
    hex || func
}

impl Palette {
    /// Each colour that is not a plain CSS colour replaced by the default one.
    fn checked(&self) -> Palette {
        let d = Palette::default();
        let pick = |v: &String, dv: String| if plain_colour(v) { v.clone() } else { dv };
        Palette {
            bg: pick(&self.bg, d.bg),
            text: pick(&self.text, d.text),
            muted: pick(&self.muted, d.muted),
            now: pick(&self.now, d.now),
            planned: pick(&self.planned, d.planned),
            over: pick(&self.over, d.over),
            mean: pick(&self.mean, d.mean),
            grid: pick(&self.grid, d.grid),
        }
    }
}

/// How many member rows a chart sized for a slide draws (the heaviest; the rest summed up in one
/// line): 25 rows under two lines of title make a 1000 × 714 image, near a slide's proportions.
#[cfg_attr(feature = "testing", visibility::make(pub))]
pub(crate) const SLIDE_ROWS: usize = 25;

/// At most this many characters of a line under the title (12 px text in the chart's width,
/// at a generous 6.5 px a character): a longer line is wrapped at its spaces.
const LINE_CHARS: usize = ((WIDTH - 24.0) / 6.5) as usize;

/// `lines`, each wrapped at its spaces to at most `max` characters (a word longer than that is
/// a line of its own, cut only by the image's edge): no word is ever cut.
fn wrap_lines(lines: &[String], max: usize) -> Vec<String> {
    let mut out = Vec::new();
    for line in lines {
        let mut cur = String::new();
        for word in line.split(' ') {
            let fits = cur.chars().count() + 1 + word.chars().count() <= max;
            if !cur.is_empty() && !fits {
                out.push(std::mem::take(&mut cur));
            }
            if !cur.is_empty() {
                cur.push(' ');
            }
            cur.push_str(word);
        }
        out.push(cur);
    }
    out
}

/// What the chart shows around the plan.
pub struct FleetChart<'a> {
    pub title: &'a str,
    /// Lines under the title (job, snapshot, scenario).
    pub lines: &'a [String],
    /// The members' order, by name (members not named follow in the report's order); `None`:
    /// the report's order.
    pub order: Option<&'a [String]>,
    pub palette: &'a Palette,
    /// At most this many member rows: the heaviest (by the larger of their load now and
    /// planned; ties in the report's order), drawn in `order`, and one line that sums up the
    /// rest. `None`: every member.
    pub rows: Option<usize>,
}

/// A round axis end in the binary unit the value is shown in, and its ticks.
fn scale(max: u64) -> (f64, Vec<f64>) {
    let mut unit = 1.0;
    while max as f64 / unit >= 1024.0 {
        unit *= 1024.0;
    }
    let v = (max as f64 / unit).max(1.0);
    let p = 10f64.powf(v.log10().floor());
    let step = [0.1, 0.2, 0.25, 0.5, 1.0, 2.0]
        .iter()
        .map(|m| m * p)
        .find(|s| s * unit >= 1.0 && (v / s).ceil() <= 6.0)
        .unwrap_or(2.0 * p);
    let n = (v / step).ceil().max(1.0);
    let ticks = (0..=n as usize).map(|i| i as f64 * step * unit).collect();
    (n * step * unit, ticks)
}

fn clip(name: &str) -> String {
    if name.chars().count() > 28 {
        format!("{}…", name.chars().take(27).collect::<String>())
    } else {
        name.to_string()
    }
}

type Row<'a> = (&'a MemberReport, &'a Marks);

/// The members in the order asked for, each with its marks.
fn rows<'a>(a: &'a Analysis, marks: &'a [Marks], order: Option<&[String]>) -> Vec<Row<'a>> {
    let all: Vec<_> = a.report.members.iter().zip(marks).collect();
    let Some(order) = order else { return all };
    let at: std::collections::HashMap<&str, usize> = all
        .iter()
        .enumerate()
        .map(|(i, (m, _))| (m.name.as_str(), i))
        .collect();
    let mut taken = vec![false; all.len()];
    let mut out = Vec::with_capacity(all.len());
    for name in order {
        if let Some(&i) = at.get(name.as_str()) {
            if !std::mem::replace(&mut taken[i], true) {
                out.push(all[i]);
            }
        }
    }
    out.extend(all.iter().zip(&taken).filter(|(_, t)| !**t).map(|(r, _)| *r));
    out
}

/// `rows` cut to the `limit` heaviest (the larger of now and planned; ties in the report's
/// order, `report`), kept in their order; and the rest.
fn heaviest<'a>(
    rows: Vec<Row<'a>>,
    report: &[MemberReport],
    limit: Option<usize>,
) -> (Vec<Row<'a>>, Vec<Row<'a>>) {
    let Some(limit) = limit.filter(|n| *n < rows.len()) else {
        return (rows, Vec::new());
    };
    let at: std::collections::HashMap<&str, usize> = report
        .iter()
        .enumerate()
        .map(|(i, m)| (m.name.as_str(), i))
        .collect();
    let mut by_load: Vec<usize> = (0..rows.len()).collect();
    let weight = |i: usize| {
        let m = rows[i].0;
        (
            std::cmp::Reverse(m.load_now.max(m.load_planned)),
            at.get(m.name.as_str()).copied(),
        )
    };
    by_load.sort_by_key(|&i| weight(i));
    let mut keep = vec![false; rows.len()];
    for &i in by_load.iter().take(limit) {
        keep[i] = true;
    }
    let (shown, rest): (Vec<_>, Vec<_>) = rows.into_iter().zip(keep).partition(|(_, k)| *k);
    (
        shown.into_iter().map(|(r, _)| r).collect(),
        rest.into_iter().map(|(r, _)| r).collect(),
    )
}

/// One bar from 0 to `value`; when `over`, split at `mean` into its plain and its over part.
fn bar(
    out: &mut String,
    (y, h): (f64, f64),
    (value, mean, over): (f64, f64, bool),
    fill: &str,
    over_fill: &str,
) {
    let end = LEFT + value;
    let cut = if over { LEFT + mean.min(value) } else { end };
    let _ = write!(
        out,
        r#"<rect x="{LEFT}" y="{y:.1}" width="{:.1}" height="{h}" fill="{fill}"/>"#,
        cut - LEFT
    );
    if over {
        let _ = write!(
            out,
            r#"<rect x="{:.1}" y="{y:.1}" width="{:.1}" height="{h}" fill="{over_fill}"/>"#,
            cut + 1.0,
            (end - cut - 1.0).max(0.0)
        );
    }
}

/// A vertical line at `x` from `top` to `bottom`, and its label (baseline `label_y`).
fn mean_line(
    out: &mut String,
    x: f64,
    (top, bottom, label_y): (f64, f64, f64),
    dash: &str,
    label: &str,
    p: &Palette,
) {
    // a label near an edge ends (or starts) at its line rather than running off the image
    let anchor = if x > WIDTH - RIGHT - 60.0 { "end" } else { "middle" };
    let _ = write!(
        out,
        r#"<line x1="{x:.1}" x2="{x:.1}" y1="{top:.1}" y2="{bottom:.1}" stroke="{}" stroke-width="1.5" stroke-dasharray="{dash}"/><text x="{x:.1}" y="{label_y:.1}" text-anchor="{anchor}" fill="{}" font-size="11">{}</text>"#,
        p.mean,
        p.text,
        escape(label)
    );
}

/// Where the chart's parts go, top to bottom.
struct Layout {
    legend: f64,
    headings: f64,
    ticks: f64,
    rows: f64,
    rows_end: f64,
    height: f64,
}

impl Layout {
    fn of(lines: usize, rows: usize, rest: bool) -> Layout {
        let legend = 28.0 + lines as f64 * 16.0 + 10.0;
        let headings = legend + 2.0 * LEGEND_ROW + 16.0;
        let ticks = headings + 18.0;
        let rows_top = ticks + 34.0;
        let rows_end = rows_top + rows as f64 * ROW;
        let height = rows_end + if rest { 28.0 } else { 0.0 } + 12.0;
        Layout {
            legend,
            headings,
            ticks,
            rows: rows_top,
            rows_end,
            height,
        }
    }
}

const LEGEND_ROW: f64 = 18.0;

/// The legend: every mark the chart draws, with its swatch, in two rows of four columns
/// (`risk`: the at-risk mark is drawn).
fn legend(
    out: &mut String,
    y: f64,
    (now_label, planned_label): (&str, &str),
    (pct, risk): (u32, bool),
    p: &Palette,
) {
    let over = format!("over its mean by more than {pct}%");
    let mut items: Vec<(&str, &str)> = vec![
        ("now", "now: the load it holds"),
        ("planned", "planned: its load after the plan"),
        ("over", &over),
        ("full", "full: every lane of its cap used"),
        ("mean-now", now_label),
        ("mean-planned", planned_label),
        ("default", "*: the leader's default cap"),
    ];
    if risk {
        items.push(("risk", "⚠n: splits at risk of quarantine"));
    }
    for (i, (kind, text)) in items.iter().enumerate() {
        let x = 12.0 + (i % 4) as f64 * 245.0;
        let top = y + (i / 4) as f64 * LEGEND_ROW;
        let _ = match *kind {
            "now" => write!(
                out,
                r#"<rect x="{x}" y="{:.1}" width="18" height="5" fill="{}"/>"#,
                top + 5.0,
                p.now
            ),
            "planned" => write!(
                out,
                r#"<rect x="{x}" y="{:.1}" width="18" height="9" fill="{}"/>"#,
                top + 3.0,
                p.planned
            ),
            "over" => write!(
                out,
                r#"<rect x="{x}" y="{:.1}" width="18" height="9" fill="{}"/>"#,
                top + 3.0,
                p.over
            ),
            "mean-now" | "mean-planned" => write!(
                out,
                r#"<line x1="{x1}" x2="{x1}" y1="{:.1}" y2="{:.1}" stroke="{}" stroke-width="1.5" stroke-dasharray="{}"/>"#,
                top,
                top + 14.0,
                p.mean,
                if *kind == "mean-now" { "2 3" } else { "6 3" },
                x1 = x + 9.0
            ),
            _ => Ok(()),
        };
        let _ = write!(
            out,
            r#"<text x="{:.1}" y="{:.1}" fill="{}">{}</text>"#,
            x + 24.0,
            top + 12.0,
            p.text,
            escape(text)
        );
    }
}

/// The columns' headings and the axis's ticks (with their grid lines down to `rows_end`).
fn columns(out: &mut String, l: &Layout, ticks: &[f64], at: &dyn Fn(f64) -> f64, p: &Palette) {
    let _ = write!(
        out,
        r#"<g font-weight="600" fill="{t}"><text x="{:.1}" y="{y:.1}" text-anchor="end">member</text><text x="{LEFT}" y="{y:.1}">load (bytes): thin bar now, thick bar planned</text><text x="{:.1}" y="{y:.1}">lanes / cap</text><text x="{:.1}" y="{y:.1}" text-anchor="end">planned</text></g>"#,
        LEFT - 8.0,
        WIDTH - RIGHT + 10.0,
        WIDTH - 12.0,
        t = p.text,
        y = l.headings
    );
    for t in ticks {
        let x = LEFT + at(*t);
        let _ = write!(
            out,
            r#"<line x1="{x:.1}" x2="{x:.1}" y1="{:.1}" y2="{:.1}" stroke="{}"/><text x="{x:.1}" y="{:.1}" text-anchor="middle" fill="{}">{}</text>"#,
            l.ticks + 4.0,
            l.rows_end,
            p.grid,
            l.ticks,
            p.muted,
            escape(&human_bytes(*t as u64))
        );
    }
}

/// The line that sums up the members not drawn.
fn rest_line(out: &mut String, y: f64, rest: &[Row], p: &Palette) {
    let now = rest.iter().fold(0u64, |s, (m, _)| s.saturating_add(m.load_now));
    let planned = rest
        .iter()
        .fold(0u64, |s, (m, _)| s.saturating_add(m.load_planned));
    let over = rest.iter().filter(|(_, k)| k.over_planned).count();
    let full = rest.iter().filter(|(_, k)| k.at_cap_planned).count();
    let n = rest.len();
    let _ = write!(
        out,
        r#"<text x="12" y="{y:.1}" fill="{}">… and {n} more member{}, each lighter than those drawn: together {} now, {} planned; {over} over the planned mean, {full} with every lane used.</text>"#,
        p.text,
        if n == 1 { "" } else { "s" },
        human_bytes(now),
        human_bytes(planned)
    );
}

/// The SVG's opening, its text alternative (saying when only the heaviest of the members are
/// drawn: `(shown, rest)`), its background, the title and the lines under it.
fn open(out: &mut String, c: &FleetChart, height: f64, (shown, rest): (usize, usize), p: &Palette) {
    let cut = match rest {
        0 => String::new(),
        n => format!(" The {shown} heaviest of {} members.", shown + n),
    };
    let alt = format!("{}. {}.{cut}", c.title, c.lines.join(". "));
    let _ = write!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} {height}" role="img" font-family="system-ui, sans-serif" font-size="12"><title>{}</title><rect x="0" y="0" width="{WIDTH}" height="{height}" fill="{}"/><text x="12" y="22" font-size="16" font-weight="600" fill="{}">{}</text>"#,
        escape(&alt),
        p.bg,
        p.text,
        escape(c.title),
    );
    for (i, line) in c.lines.iter().enumerate() {
        let _ = write!(
            out,
            r#"<text x="12" y="{}" fill="{}">{}</text>"#,
            42.0 + i as f64 * 16.0,
            p.muted,
            escape(line)
        );
    }
}

/// The fleet chart of `a`'s plan.
pub fn fleet_chart(a: &Analysis, c: &FleetChart) -> String {
    let p = c.palette.checked();
    let s = summary(&a.report);
    let (rows, rest) = heaviest(rows(a, &s.marks, c.order), &a.report.members, c.rows);
    let inputs = &a.applied.inputs;
    let risk = at_risk(&inputs.splits, &inputs.members, a.applied.max_attempts.value).by_member;
    let max = rows
        .iter()
        .map(|(m, _)| m.load_now.max(m.load_planned))
        .max()
        .unwrap_or(0);
    let (end, ticks) = scale(max);
    let at = |v: f64| v / end * (WIDTH - LEFT - RIGHT);
    let wrapped = wrap_lines(c.lines, LINE_CHARS);
    let c = &FleetChart {
        lines: &wrapped,
        ..*c
    };
    let l = Layout::of(c.lines.len(), rows.len(), !rest.is_empty());
    let mut out = String::new();
    open(&mut out, c, l.height, (rows.len(), rest.len()), &p);
    let now_label = format!("mean now {}", human_bytes(s.now.mean_load as u64));
    let planned_label = format!("planned mean {}", human_bytes(s.planned.mean_load as u64));
    legend(
        &mut out,
        l.legend,
        (&now_label, &planned_label),
        (
            s.over_mean_percent,
            rows.iter().any(|(m, _)| risk.contains_key(&m.name)),
        ),
        &p,
    );
    columns(&mut out, &l, &ticks, &at, &p);
    let means = (&s.now.mean_load, &s.planned.mean_load);
    for (i, row) in rows.iter().enumerate() {
        member_row(
            &mut out,
            l.rows + i as f64 * ROW,
            *row,
            (&at, means.0, means.1),
            (&p, &risk),
        );
    }
    let (xn, xp) = (LEFT + at(s.now.mean_load), LEFT + at(s.planned.mean_load));
    // the labels sit above their lines, the planned one a row lower when the two are close
    let lowered = if (xn - xp).abs() < 150.0 { 12.0 } else { 0.0 };
    mean_line(
        &mut out,
        xn,
        (l.rows - 16.0, l.rows_end, l.ticks + 14.0),
        "2 3",
        &now_label,
        &p,
    );
    mean_line(
        &mut out,
        xp,
        (
            l.rows - 4.0 - 12.0 + lowered,
            l.rows_end,
            l.ticks + 14.0 + lowered,
        ),
        "6 3",
        &planned_label,
        &p,
    );
    if !rest.is_empty() {
        rest_line(&mut out, l.rows_end + 20.0, &rest, &p);
    }
    out.push_str("</svg>");
    out
}

type Scales<'a> = (&'a dyn Fn(f64) -> f64, &'a f64, &'a f64);

/// The ⚠n mark of a member holding `n` splits at risk: after its longer bar ending at `end`
/// (px from the axis' start), or before that end when the bar nears the axis' end.
fn risk_mark(out: &mut String, y: f64, end: f64, n: u32, p: &Palette) {
    let (x, anchor) = if end > 0.85 * (WIDTH - LEFT - RIGHT) {
        (LEFT + end - 4.0, "end")
    } else {
        (LEFT + end + 4.0, "start")
    };
    let _ = write!(
        out,
        r#"<text x="{x:.1}" y="{:.1}" text-anchor="{anchor}" font-size="11" font-weight="700" fill="{}">⚠{n}</text>"#,
        y + 13.0,
        p.text
    );
}

fn member_row(
    out: &mut String,
    y: f64,
    (m, k): Row,
    (at, mean_now, mean_planned): Scales,
    (p, risk): (&Palette, &BTreeMap<String, u32>),
) {
    let full = k.at_cap_planned;
    let risky = risk.get(&m.name).copied().unwrap_or(0);
    let _ = write!(
        out,
        r#"<g data-member="{n}"><title>{n}: now {}, planned {}; lanes {} of {}{}{}{}</title><text x="{:.1}" y="{:.1}" text-anchor="end" fill="{}">{}</text>"#,
        human_bytes(m.load_now),
        human_bytes(m.load_planned),
        m.lanes,
        m.cap,
        if full { ", full" } else { "" },
        if k.over_planned {
            ", over the planned mean"
        } else {
            ""
        },
        if risky > 0 {
            format!("; {risky} split(s) at risk of quarantine")
        } else {
            String::new()
        },
        LEFT - 8.0,
        y + 14.0,
        p.text,
        escape(&clip(&m.name)),
        n = escape(&m.name),
    );
    let now = (at(m.load_now as f64), at(*mean_now), k.over_now);
    bar(out, (y + 2.0, 5.0), now, &p.now, &p.over);
    let planned = (at(m.load_planned as f64), at(*mean_planned), k.over_planned);
    bar(out, (y + 8.0, 9.0), planned, &p.planned, &p.over);
    if risky > 0 {
        risk_mark(out, y, now.0.max(planned.0), risky, p);
    }
    let _ = write!(
        out,
        r#"<text x="{:.1}" y="{y14:.1}" fill="{}" font-weight="{}">{}/{}{}{}</text><text x="{:.1}" y="{y14:.1}" text-anchor="end" fill="{}">{}</text></g>"#,
        WIDTH - RIGHT + 10.0,
        p.text,
        if full { 700 } else { 400 },
        m.lanes,
        m.cap,
        if m.default_cap { "*" } else { "" },
        if full { " full" } else { "" },
        WIDTH - 12.0,
        p.text,
        human_bytes(m.load_planned),
        y14 = y + 14.0
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn colours_that_are_not_plain_fall_back() {
        assert!(plain_colour("#2456c8") && plain_colour("rgb(36, 86, 200)") && plain_colour("#fff"));
        assert!(!plain_colour("red\" onload=\"x") && !plain_colour("url(#x)") && !plain_colour("#12345"));
        let odd = Palette {
            now: "\"/><script>".into(),
            ..Palette::default()
        };
        assert_eq!(odd.checked().now, Palette::default().now);
    }

    #[test]
    fn the_scale_ends_on_a_round_binary_value() {
        let gib = (1u64 << 30) as f64;
        let (end, ticks) = scale(35 * (1 << 30));
        assert_eq!(end, 40.0 * gib);
        assert_eq!(ticks.len(), 5);
        assert_eq!(scale(0).0, 1.0);
    }
}
