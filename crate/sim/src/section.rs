//! The review document's Timeline section (the dashboard's report, after the core's review): the
//! script (configuration A) and B's settings, the release each followed, both configurations'
//! figures with the difference B − A ([`figures_table`]), the charts as SVG images and A's event
//! marks (the charts are files beside the document, linked by name). Every string from the store or the script reaches the Markdown as a code span, a
//! fenced block or punctuation-escaped text (the core's `markdown_text`, as its review
//! document), so no tag, link, image or table break comes from a member's or a split's name.

use crate::marks::{mark_text, Mark};
use crate::outcome::Figures;
use crate::recovery::recovery_text;
use crate::script::Script;
use crate::start::StartFrom;
use crate::table::{figures_table, FigureRow};
use crate::words::{clock_text, duration_text};
use serde::Deserialize;
use spate_planner_core::review::markdown_text::{code_span, fenced, text};

/// Configuration A or B.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename = "TimelineWhich"))]
pub enum Which {
    A,
    B,
}

/// A configuration that was simulated: its document's figures, its rules note, its marks.
#[derive(Clone, Debug, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename = "TimelineSectionSide"))]
pub struct RunSide {
    pub figures: Figures,
    /// The document's `rules_note`: the release followed, in words.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub rules_note: Option<String>,
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub marks: Vec<Mark>,
}

/// Why a configuration could not be simulated.
#[derive(Clone, Debug, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename = "TimelineSectionError"))]
pub struct RunError {
    pub which: Which,
    pub message: String,
    pub code: String,
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub path: Option<String>,
}

/// Where the run of the script stands.
#[derive(Clone, Debug, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename = "TimelineSectionRun"))]
pub enum RunState {
    /// Not simulated (or still running).
    NotRun,
    Error {
        error: RunError,
    },
    Done {
        a: Box<RunSide>,
        b: Option<Box<RunSide>>,
    },
}

/// One chart: configuration `which`'s load over time as SVG text, and the stretch shown.
#[derive(Clone, Debug, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename = "TimelineSectionImage"))]
pub struct SectionImage {
    pub which: Which,
    pub svg: String,
    /// `[from, to]` in ms (as the chart computed it, maybe fractional), or none: the whole run.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub range: Option<[f64; 2]>,
}

/// What the section is written from.
#[derive(Clone, Debug, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename = "TimelineSectionInput"))]
pub struct SectionInput {
    /// Configuration A's script, as JSON text (docs/script-format.md).
    pub script: String,
    /// B's overrides as JSON text (`{"rebalance_delay_ms":0}`), or none: no comparison.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub b: Option<String>,
    /// The configurations' names for people (`A: Spate's defaults`, `B: rebalance delay 0 s`).
    pub names: Names,
    pub run: RunState,
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub images: Vec<SectionImage>,
}

/// The configurations' names.
#[derive(Clone, Debug, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename = "TimelineSectionNames"))]
pub struct Names {
    #[serde(rename = "A")]
    pub a: String,
    #[serde(rename = "B", default)]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub b: Option<String>,
}

impl Names {
    fn of(&self, which: Which) -> &str {
        match which {
            Which::A => &self.a,
            Which::B => self.b.as_deref().unwrap_or("B"),
        }
    }
}

/// The most event marks listed.
pub const MARKS_LISTED: usize = 40;

/// The section, ending with a newline.
pub fn timeline_section(input: &SectionInput) -> String {
    let script = Script::parse(&input.script).ok();
    let mut lines = head(input, script.as_ref());
    match &input.run {
        RunState::NotRun => lines.extend([
            String::new(),
            "_Not simulated in the page: run `spate-planner simulate SNAPSHOT --script script.json`._".into(),
        ]),
        RunState::Error { error } => lines.extend([String::new(), failure(error)]),
        RunState::Done { a, b } => {
            let has_events = script.as_ref().is_some_and(|s| !s.events.is_empty());
            lines.extend(figures_part(input, a, b.as_deref(), has_events));
            lines.extend(recovery_part(input, script.as_ref(), a, b.as_deref(), has_events));
            lines.extend(images_part(input));
            lines.extend(marks_part(&a.marks));
        }
    }
    lines.push(String::new());
    lines.join("\n")
}

/// The heading, what is simulated, the script and B's settings.
fn head(input: &SectionInput, script: Option<&Script>) -> Vec<String> {
    let how_long = script.map_or(String::new(), |s| format!("{} of ", duration_text(s.until_ms)));
    let mut lines = vec![
        "## Timeline".to_string(),
        String::new(),
        format!("What the timing simulator (`spate-planner simulate`) replays on this snapshot: {how_long}heartbeats, lease expiry, the rebalance delay, elections, claims and drains for the events below."),
        String::new(),
        "### Script".into(),
        String::new(),
        fenced(&input.script, "json"),
    ];
    if let Some(b) = &input.b {
        let name = input.names.of(Which::B);
        let settings = name.strip_prefix("B: ").unwrap_or(name);
        lines.push(String::new());
        lines.push(format!(
            "Configuration B runs the same script with: {} ({}).",
            code_span(b),
            text(settings)
        ));
    }
    lines
}

fn failure(e: &RunError) -> String {
    let which = match e.which {
        Which::A => "A",
        Which::B => "B",
    };
    let at = e.path.as_deref().filter(|p| !p.is_empty());
    format!(
        "**Configuration {which} could not be simulated:** {} (code {}{}).",
        text(&e.message),
        code_span(&e.code),
        at.map_or(String::new(), |p| format!(", at {}", code_span(p)))
    )
}

/// The release each configuration followed and the table of their figures.
fn figures_part(input: &SectionInput, a: &RunSide, b: Option<&RunSide>, has_events: bool) -> Vec<String> {
    let mut lines = vec![String::new(), "### Figures".to_string(), String::new()];
    for (which, side) in [(Which::A, Some(a)), (Which::B, b)] {
        let Some(note) = side.and_then(|s| s.rules_note.as_deref()) else {
            continue;
        };
        let prefix = match (b.is_some(), which) {
            (false, _) => "",
            (true, Which::A) => "A: ",
            (true, Which::B) => "B: ",
        };
        lines.push(format!("{prefix}timing and decisions of {}.", text(note)));
        lines.push(String::new());
    }
    let rows = figures_table(&a.figures, b.map(|b| &b.figures), has_events);
    lines.extend(table_lines(input, &rows, b.is_some()));
    lines
}

/// Whether a configuration starts from the fleet settled on its plan: B's overrides may set
/// `start`; else the script's.
fn starts_planned(input: &SectionInput, script: Option<&Script>, which: Which) -> bool {
    let b_start = (which == Which::B)
        .then(|| serde_json::from_str::<serde_json::Value>(input.b.as_deref()?).ok())
        .flatten()
        .and_then(|v| v.get("start")?.as_str().map(str::to_string));
    match b_start.as_deref() {
        Some(start) => start == "planned",
        None => script.is_some_and(|s| s.start == StartFrom::Planned),
    }
}

/// What each configuration's recovery rests on, in the simulator's words (escaped: they name
/// members and splits).
fn recovery_part(
    input: &SectionInput,
    script: Option<&Script>,
    a: &RunSide,
    b: Option<&RunSide>,
    has_events: bool,
) -> Vec<String> {
    let mut lines = Vec::new();
    for (which, side) in [(Which::A, Some(a)), (Which::B, b)] {
        let Some(side) = side else { continue };
        let said = recovery_text(&side.figures, has_events, starts_planned(input, script, which))
            .lines()
            .join(" ");
        if said.is_empty() {
            continue;
        }
        let prefix = if b.is_some() {
            format!("{which:?}: ")
        } else {
            String::new()
        };
        lines.extend([String::new(), format!("{prefix}{}", text(&said))]);
    }
    lines
}

/// The figures as a Markdown table: A alone, or A, B and B − A. The names are escaped text; the
/// values are the simulator's words.
fn table_lines(input: &SectionInput, rows: &[FigureRow], compared: bool) -> Vec<String> {
    if !compared {
        let mut lines = vec!["| figure | value |".to_string(), "| --- | --- |".into()];
        lines.extend(rows.iter().map(|r| format!("| {} | {} |", r.label, r.a_text)));
        return lines;
    }
    let (a, b) = (text(input.names.of(Which::A)), text(input.names.of(Which::B)));
    let mut lines = vec![
        format!("| figure | {a} | {b} | B − A |"),
        "| --- | --- | --- | --- |".into(),
    ];
    lines.extend(rows.iter().map(|r| {
        let (b, diff) = (
            r.b_text.as_deref().unwrap_or(""),
            r.diff_text.as_deref().unwrap_or(""),
        );
        format!("| {} | {} | {b} | {diff} |", r.label, r.a_text)
    }));
    lines
}

impl Which {
    /// The file name of this configuration's chart beside the review document
    /// (`review-timeline-a.svg`), as the section links it.
    pub fn image_name(self) -> &'static str {
        match self {
            Which::A => "review-timeline-a.svg",
            Which::B => "review-timeline-b.svg",
        }
    }
}

/// Each chart as an image linking its file beside the document ([`Which::image_name`]): a
/// relative link, which every renderer follows (markdown-it refuses `data:` URIs by default).
fn images_part(input: &SectionInput) -> Vec<String> {
    let mut lines = Vec::new();
    for img in &input.images {
        // whole seconds of the clock; a negative or NaN time is 0 (the cast saturates)
        let span = img.range.map_or(String::new(), |[from, to]| {
            format!(", {} to {}", clock_text(from as u64), clock_text(to as u64))
        });
        lines.push(String::new());
        lines.push(format!(
            "![{}: each member's load over time and the idle work{}]({})",
            text(input.names.of(img.which)),
            span,
            img.which.image_name()
        ));
    }
    lines
}

/// A's event marks, the first [`MARKS_LISTED`].
fn marks_part(marks: &[Mark]) -> Vec<String> {
    if marks.is_empty() {
        return Vec::new();
    }
    let first = match marks.len() > MARKS_LISTED {
        true => format!(" (the first {MARKS_LISTED})"),
        false => String::new(),
    };
    let mut lines = vec![String::new(), format!("Events of A{first}:"), String::new()];
    lines.extend(
        marks
            .iter()
            .take(MARKS_LISTED)
            .map(|m| format!("- {}", text(&mark_text(m)))),
    );
    lines
}
