//! The fleet chart as a stand-alone SVG document: one row per member, its load now (thin bar)
//! and planned (thick bar), the part over each side's mean in a warm colour exactly where the
//! plan's summary says the member is over it, both means as labelled lines, lanes against the
//! cap. The dashboard's SVG and PNG exports and the review document draw this one chart; the
//! page passes the colours of its theme, its title lines and its member order.
//!
//! Self-contained SVG text (no script, no external reference); every label from the data is
//! XML-escaped, and a colour that is not a plain CSS colour is replaced by the default one.

use crate::chart::escape;
use crate::pipeline::Analysis;
use crate::report::{human_bytes, summary, Marks, MemberReport};
use serde::Deserialize;
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

/// What the chart shows around the plan.
pub struct FleetChart<'a> {
    pub title: &'a str,
    /// Lines under the title (job, snapshot, scenario).
    pub lines: &'a [String],
    /// The members' order, by name (members not named follow in the report's order); `None`:
    /// the report's order.
    pub order: Option<&'a [String]>,
    pub palette: &'a Palette,
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

/// The members in the order asked for, each with its marks.
fn rows<'a>(
    a: &'a Analysis,
    marks: &'a [Marks],
    order: Option<&[String]>,
) -> Vec<(&'a MemberReport, &'a Marks)> {
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

/// A labelled vertical line at `x` from `top` to `bottom`.
fn mean_line(out: &mut String, x: f64, (top, bottom): (f64, f64), dash: &str, label: &str, p: &Palette) {
    let _ = write!(
        out,
        r#"<line x1="{x:.1}" x2="{x:.1}" y1="{top}" y2="{bottom}" stroke="{}" stroke-width="1.5" stroke-dasharray="{dash}"/><text x="{x:.1}" y="{:.1}" text-anchor="middle" fill="{}" font-size="11">{}</text>"#,
        p.mean,
        top - 4.0,
        p.text,
        escape(label)
    );
}

/// The fleet chart of `a`'s plan.
pub fn fleet_chart(a: &Analysis, c: &FleetChart) -> String {
    let p = c.palette.checked();
    let s = summary(&a.report);
    let rows = rows(a, &s.marks, c.order);
    let max = rows
        .iter()
        .map(|(m, _)| m.load_now.max(m.load_planned))
        .max()
        .unwrap_or(0);
    let (end, ticks) = scale(max);
    let w = WIDTH - LEFT - RIGHT;
    let at = |v: f64| v / end * w;
    let head = 28.0 + c.lines.len() as f64 * 16.0 + 48.0;
    let height = head + rows.len() as f64 * ROW + 24.0;
    let mut out = String::new();
    let alt = format!("{}. {}", c.title, c.lines.join(". "));
    let _ = write!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} {height}" role="img" font-family="system-ui, sans-serif" font-size="12"><title>{}</title><rect x="0" y="0" width="{WIDTH}" height="{height}" fill="{}"/><text x="12" y="22" font-size="16" font-weight="600" fill="{}">{}</text>"#,
        escape(&alt),
        p.bg,
        p.text,
        escape(c.title)
    );
    for (i, l) in c.lines.iter().enumerate() {
        let _ = write!(
            out,
            r#"<text x="12" y="{}" fill="{}">{}</text>"#,
            42.0 + i as f64 * 16.0,
            p.muted,
            escape(l)
        );
    }
    let axis_y = head - 24.0;
    for t in &ticks {
        let x = LEFT + at(*t);
        let _ = write!(
            out,
            r#"<line x1="{x:.1}" x2="{x:.1}" y1="{:.1}" y2="{:.1}" stroke="{}"/><text x="{x:.1}" y="{axis_y:.1}" text-anchor="middle" fill="{}">{}</text>"#,
            axis_y + 4.0,
            height - 20.0,
            p.grid,
            p.muted,
            escape(&human_bytes(*t as u64))
        );
    }
    for (i, (m, k)) in rows.iter().enumerate() {
        member_row(
            &mut out,
            head + i as f64 * ROW,
            (m, k),
            (&at, &s.now.mean_load, &s.planned.mean_load),
            &p,
        );
    }
    let lines = (head - 4.0, height - 20.0);
    let now_label = format!("mean now {}", human_bytes(s.now.mean_load as u64));
    let planned_label = format!("planned mean {}", human_bytes(s.planned.mean_load as u64));
    let (xn, xp) = (LEFT + at(s.now.mean_load), LEFT + at(s.planned.mean_load));
    // the labels sit above their lines, the planned one a row higher when the two are close
    mean_line(&mut out, xn, lines, "2 3", &now_label, &p);
    let lifted = if (xn - xp).abs() < 150.0 { 12.0 } else { 0.0 };
    mean_line(
        &mut out,
        xp,
        (lines.0 - lifted, lines.1),
        "6 3",
        &planned_label,
        &p,
    );
    let _ = write!(
        out,
        r#"<text x="12" y="{:.1}" fill="{}">thin bar: now, past the dotted line (the mean now) by more than {pct}%: over it; thick bar: planned, past the dashed line (the planned mean) by more than {pct}%: over it; full: every lane used; * default cap</text></svg>"#,
        height - 6.0,
        p.muted,
        pct = s.over_mean_percent
    );
    out
}

type Scales<'a> = (&'a dyn Fn(f64) -> f64, &'a f64, &'a f64);

fn member_row(
    out: &mut String,
    y: f64,
    (m, k): (&MemberReport, &Marks),
    (at, mean_now, mean_planned): Scales,
    p: &Palette,
) {
    let full = k.at_cap_planned;
    let _ = write!(
        out,
        r#"<g data-member="{n}"><title>{n}: now {}, planned {}; lanes {} of {}{}{}</title><text x="{:.1}" y="{:.1}" text-anchor="end" fill="{}">{}</text>"#,
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
    let _ = write!(
        out,
        r#"<text x="{:.1}" y="{:.1}" fill="{}" font-weight="{}">{}/{}{}{}  {}</text></g>"#,
        WIDTH - RIGHT + 10.0,
        y + 14.0,
        p.text,
        if full { 700 } else { 400 },
        m.lanes,
        m.cap,
        if m.default_cap { "*" } else { "" },
        if full { " full" } else { "" },
        human_bytes(m.load_planned)
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
