//! Small SVG charts for reports: curves over a sweep and paired bars (before/after, now/planned).
//!
//! Self-contained SVG text (no script, no external reference), readable in light and dark
//! viewers (dark strokes on a white card). Every label from the data is XML-escaped.

use std::fmt::Write;

const W: f64 = 720.0;
const H: f64 = 300.0;
const LEFT: f64 = 70.0;
const RIGHT: f64 = 20.0;
const TOP: f64 = 40.0;
const BOTTOM: f64 = 70.0;
/// Series colours with at least 3:1 contrast on white.
const COLOURS: [&str; 4] = ["#1f5fbf", "#b3401a", "#2f7d32", "#6a3d9a"];

/// Text for an SVG text node or attribute.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

/// One curve: a name and its points (x, y).
pub struct Series<'a> {
    pub name: &'a str,
    pub points: Vec<(f64, f64)>,
}

fn open(out: &mut String, title: &str) {
    let _ = write!(
        out,
        r##"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W} {H}" width="{W}" height="{H}" role="img" aria-label="{t}" font-family="system-ui, sans-serif" font-size="12"><rect width="{W}" height="{H}" fill="#ffffff"/><text x="{LEFT}" y="22" font-size="14" font-weight="600" fill="#1a1a1a">{t}</text>"##,
        t = escape(title)
    );
}

fn nice_max(v: f64) -> f64 {
    if v <= 0.0 || !v.is_finite() {
        return 1.0;
    }
    let p = 10f64.powf(v.log10().floor());
    [1.0, 2.0, 2.5, 5.0, 10.0]
        .iter()
        .map(|m| m * p)
        .find(|x| *x >= v)
        .unwrap_or(10.0 * p)
}

/// A round axis top for byte values: round in the binary unit the value is shown in (GiB, …).
fn nice_bytes(v: f64) -> f64 {
    let mut unit = 1.0;
    while v / unit >= 1024.0 {
        unit *= 1024.0;
    }
    unit * nice_max(v / unit)
}

/// How the y axis reads.
#[derive(Clone, Copy)]
pub enum Scale {
    /// Plain numbers.
    Number,
    /// Byte counts (round in binary units).
    Bytes,
}

impl Scale {
    fn top(self, v: f64) -> f64 {
        match self {
            Scale::Number => nice_max(v),
            Scale::Bytes => nice_bytes(v),
        }
    }
}

fn axes(out: &mut String, x_label: &str, y_max: f64, fmt_y: &dyn Fn(f64) -> String) {
    let (x0, x1, y0, y1) = (LEFT, W - RIGHT, H - BOTTOM, TOP);
    for i in 0..=4 {
        let v = y_max * i as f64 / 4.0;
        let y = y0 - (y0 - y1) * i as f64 / 4.0;
        let _ = write!(
            out,
            r##"<line x1="{x0}" x2="{x1}" y1="{y:.1}" y2="{y:.1}" stroke="#d0d0d0"/><text x="{tx}" y="{ty:.1}" text-anchor="end" fill="#333333">{label}</text>"##,
            tx = x0 - 6.0,
            ty = y + 4.0,
            label = escape(&fmt_y(v))
        );
    }
    let _ = write!(
        out,
        r##"<line x1="{x0}" x2="{x1}" y1="{y0}" y2="{y0}" stroke="#555555"/><text x="{cx}" y="{ly}" text-anchor="middle" fill="#333333">{l}</text>"##,
        cx = (x0 + x1) / 2.0,
        ly = H - 12.0,
        l = escape(x_label)
    );
}

/// Curves over a common x axis (e.g. sweep values), each scaled to the same y axis.
pub fn line_chart(
    title: &str,
    x_label: &str,
    series: &[Series],
    scale: Scale,
    fmt_y: &dyn Fn(f64) -> String,
) -> String {
    let mut out = String::new();
    open(&mut out, title);
    let all = || series.iter().flat_map(|s| s.points.iter());
    let (xmin, xmax) = all().fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p.0), b.max(p.0)));
    let y_max = scale.top(all().map(|p| p.1).fold(0.0, f64::max));
    axes(&mut out, x_label, y_max, fmt_y);
    let span = if xmax > xmin { xmax - xmin } else { 1.0 };
    let sx = |x: f64| LEFT + (W - LEFT - RIGHT) * (x - xmin) / span;
    let sy = |y: f64| (H - BOTTOM) - (H - BOTTOM - TOP) * (y / y_max);
    let xs: Vec<f64> = match series.first() {
        Some(s) if s.points.len() <= 16 => s.points.iter().map(|p| p.0).collect(),
        _ => vec![xmin, xmax],
    };
    for x in xs {
        let _ = write!(
            out,
            r##"<text x="{:.1}" y="{}" text-anchor="middle" fill="#333333">{x}</text>"##,
            sx(x),
            H - BOTTOM + 16.0
        );
    }
    for (i, s) in series.iter().enumerate() {
        let c = COLOURS[i % COLOURS.len()];
        let d: Vec<String> = s
            .points
            .iter()
            .map(|p| format!("{:.1},{:.1}", sx(p.0), sy(p.1)))
            .collect();
        let _ = write!(
            out,
            r##"<polyline fill="none" stroke="{c}" stroke-width="2" points="{}"/>"##,
            d.join(" ")
        );
        for p in &s.points {
            let _ = write!(
                out,
                r##"<circle cx="{:.1}" cy="{:.1}" r="3" fill="{c}"/>"##,
                sx(p.0),
                sy(p.1)
            );
        }
        let x = W - RIGHT - 220.0 + 110.0 * (i % 2) as f64;
        let _ = write!(
            out,
            r##"<text x="{x}" y="{}" fill="{c}" font-weight="600">{}</text>"##,
            16.0 + 12.0 * (i / 2) as f64,
            escape(s.name)
        );
    }
    out.push_str("</svg>");
    out
}

/// Paired bars per label: `(label, first, second)` drawn side by side, named by `legend`.
pub fn paired_bars(
    title: &str,
    legend: (&str, &str),
    bars: &[(String, f64, f64)],
    scale: Scale,
    fmt_y: &dyn Fn(f64) -> String,
) -> String {
    let mut out = String::new();
    open(&mut out, title);
    let y_max = scale.top(bars.iter().map(|b| b.1.max(b.2)).fold(0.0, f64::max));
    axes(&mut out, "", y_max, fmt_y);
    let slot = (W - LEFT - RIGHT) / bars.len().max(1) as f64;
    let bw = (slot * 0.4).min(24.0);
    let sy = |y: f64| (H - BOTTOM - TOP) * (y / y_max);
    for (i, (label, a, b)) in bars.iter().enumerate() {
        let x = LEFT + slot * i as f64 + slot / 2.0;
        for (j, v) in [a, b].into_iter().enumerate() {
            let h = sy(*v);
            let _ = write!(
                out,
                r##"<rect x="{:.1}" y="{:.1}" width="{bw:.1}" height="{h:.1}" fill="{}"><title>{}: {}</title></rect>"##,
                x - bw + j as f64 * bw,
                H - BOTTOM - h,
                COLOURS[j],
                escape(label),
                escape(&fmt_y(*v))
            );
        }
        if bars.len() <= 40 {
            // slanted when the slots are narrow, so that neighbours never overlap
            let y = H - BOTTOM + 12.0;
            let turn = if slot < 70.0 {
                format!(r#" transform="rotate(-35 {x:.1} {y:.1})""#)
            } else {
                String::new()
            };
            let anchor = if slot < 70.0 { "end" } else { "middle" };
            let _ = write!(
                out,
                r##"<text x="{x:.1}" y="{y:.1}" text-anchor="{anchor}" fill="#333333" font-size="10"{turn}>{}</text>"##,
                escape(label)
            );
        }
    }
    for (j, name) in [legend.0, legend.1].into_iter().enumerate() {
        // in the title row, clear of the bars
        let x = W - RIGHT - 180.0 + 90.0 * j as f64;
        let _ = write!(
            out,
            r##"<rect x="{x}" y="13" width="10" height="10" fill="{}"/><text x="{}" y="22" fill="#1a1a1a">{}</text>"##,
            COLOURS[j],
            x + 15.0,
            escape(name)
        );
    }
    out.push_str("</svg>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn labels_are_text_never_markup() {
        let svg = paired_bars(
            "t<",
            ("a", "b"),
            &[("<script>&\"'".into(), 1.0, 2.0)],
            Scale::Number,
            &|v| format!("{v}"),
        );
        assert!(!svg.contains("<script>"));
        assert!(svg.contains("&lt;script&gt;&amp;&quot;&#39;"));
        let svg = line_chart(
            "x",
            "y",
            &[Series {
                name: "</svg>",
                points: vec![(0.0, 1.0), (1.0, 2.0)],
            }],
            Scale::Number,
            &|v| format!("{v}"),
        );
        assert_eq!(svg.matches("</svg>").count(), 1);
    }

    #[test]
    fn axis_tops_are_round_numbers() {
        assert_eq!(nice_max(0.0), 1.0);
        assert_eq!(nice_max(7.0), 10.0);
        assert_eq!(nice_max(1.3), 2.0);
        assert_eq!(nice_max(2_300.0), 2_500.0);
        let gib = (1u64 << 30) as f64;
        assert_eq!(nice_bytes(46.0 * gib), 50.0 * gib);
        assert_eq!(nice_bytes(700.0), 1000.0);
    }
}
