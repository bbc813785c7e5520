//! The Timeline's tables and documents, from the simulator (`spate-planner-sim`): the figures
//! of configurations A and B with the difference, and the review document's Timeline section.
//! Each is one call into the simulator and one conversion. A simulation kept ([`SimRun`],
//! `Planner.simulateRun`) gives the chart's series and answers the fleet at any instant.

use crate::js::{error, to_js};
use js_sys::{Array, Float64Array, Object, Reflect};
use spate_planner_sim::{
    figures_table, timeline_section, touched, Chart, Figures, FleetIndex, Metric, Outcome, Script,
    SectionInput, Series, Start, Summary, IDLE_LABEL, MAX_BUCKETS,
};
use wasm_bindgen::prelude::*;

/// A simulation document's `figures` (as `JSON.parse` of `Planner.simulate` gives them;
/// `idle_weighted` a decimal string), read exactly.
fn figures_of(which: &str, v: JsValue) -> Result<Figures, JsValue> {
    serde_wasm_bindgen::from_value(v).map_err(|e| {
        error(
            "invalid_figures",
            &format!("the figures of configuration {which} cannot be read: {e}"),
            Some(which),
        )
    })
}

/// The headline figures of configuration A, and of B with the difference B − A when `b` is
/// not null (`spate-planner simulate --compare`'s `figures_table`): rows of key, label, kind,
/// help, the values as decimal strings and in words. `has_events`: whether the script has
/// events (a recovery without a value is then "not recovered", else "no events").
#[wasm_bindgen(js_name = figuresTable, unchecked_return_type = "FigureRow[]")]
pub fn figures_table_js(
    #[wasm_bindgen(unchecked_param_type = "SimFigures")] a: JsValue,
    #[wasm_bindgen(unchecked_param_type = "SimFigures | null")] b: JsValue,
    has_events: bool,
) -> Result<JsValue, JsValue> {
    let a = figures_of("A", a)?;
    let b = match b.is_null() || b.is_undefined() {
        true => None,
        false => Some(figures_of("B", b)?),
    };
    to_js(&figures_table(&a, b.as_ref(), has_events))
}

/// The review document's Timeline section (Markdown): from A's script text, B's overrides text,
/// the configurations' names, the run (`{status: "not_run"}`, `{status: "error", error}` or
/// `{status: "done", a, b}`, each side its document's `figures`, `rules_note` and marks) and the
/// charts as SVG text (`images`), which it links by file name: `{ markdown, images: [{ name, svg }] }`,
/// each chart a file beside the document (`review-timeline-a.svg`). Every string from the store or
/// the script is escaped as the core's review document escapes it.
#[wasm_bindgen(js_name = timelineSection, unchecked_return_type = "ReviewFiles")]
pub fn timeline_section_js(
    #[wasm_bindgen(unchecked_param_type = "TimelineSectionInput")] input: JsValue,
) -> Result<JsValue, JsValue> {
    let input: SectionInput = serde_wasm_bindgen::from_value(input).map_err(|e| {
        error(
            "invalid_section",
            &format!("the Timeline section's input cannot be read: {e}"),
            None,
        )
    })?;
    #[derive(serde::Serialize)]
    struct Image<'a> {
        name: &'a str,
        svg: &'a str,
    }
    #[derive(serde::Serialize)]
    struct Section<'a> {
        markdown: String,
        images: Vec<Image<'a>>,
    }
    to_js(&Section {
        markdown: timeline_section(&input),
        images: input
            .images
            .iter()
            .map(|i| Image {
                name: i.which.image_name(),
                svg: &i.svg,
            })
            .collect(),
    })
}

/// A simulation kept for the Timeline: its summary (the rules, figures, marks and counts), the
/// chart's series and the fleet at any instant. The whole document is not kept: it is
/// `Planner.simulate`'s (15.7 MiB at 20,000 splits on 200 members, where the summary is a few
/// kilobytes).
#[wasm_bindgen]
pub struct SimRun {
    summary: Summary,
    index: FleetIndex,
}

impl SimRun {
    pub(crate) fn new(o: &Outcome, start: &Start, script: &Script) -> SimRun {
        SimRun {
            summary: Summary::new(o, script),
            index: FleetIndex::new(o, start, script),
        }
    }
}

#[wasm_bindgen]
impl SimRun {
    /// The run's summary: `rules`, `rules_source`, `rules_note` and `figures` as the document
    /// of `spate-planner simulate --json` has them (`idle_weighted` a decimal string), the
    /// marks on the time axis with their sentences, the `counts` of claims, quarantines,
    /// elections and timeline events, and `first_event_ms` (null without events). Numbers as
    /// `JSON.parse` reads the document's.
    #[wasm_bindgen(unchecked_return_type = "SimSummary")]
    pub fn summary(&self) -> Result<JsValue, JsValue> {
        let text = serde_json::to_string(&self.summary)
            .map_err(|e| error("internal", &format!("cannot write the run's summary: {e}"), None))?;
        js_sys::JSON::parse(&text)
    }

    /// The fleet at `t_ms` (past the end: at the end): each member's state, load, lanes and
    /// draining, the leader, the splits per phase, the idle splits (since when, held before by
    /// whom) and their weight; u64 values as decimal strings. `idle_limit`: at most that many
    /// idle splits listed, the first in split order (`counts.idle` and `idle_weight` count them
    /// all); absent: every one.
    #[wasm_bindgen(js_name = fleetAt, unchecked_return_type = "FleetAt")]
    pub fn fleet_at(&self, t_ms: f64, idle_limit: Option<u32>) -> Result<JsValue, JsValue> {
        // a negative or NaN time is 0, a time beyond u64 the end (the cast saturates)
        let mut fleet = self.index.at(t_ms as u64);
        if let Some(limit) = idle_limit {
            fleet.idle.truncate(limit as usize);
        }
        to_js(&fleet)
    }

    /// The chart's series (docs/simulator.md, "The chart's series"): `members` (every instance
    /// the run knows, in the order of `fleetAt`'s), `stepMs`, `buckets`, `endMs`, and as
    /// Float64Arrays the bucket means of each member's `load` and `lanes` (members × buckets,
    /// row by row) and of the idle splits' weight (`idleLoad`) and number (`idleCount`);
    /// `mostIdleMs`, where the scrubber starts (`Series::most_idle_ms`); and what the chart
    /// draws of each (`charts.load`, `charts.lanes`: `Series::chart_of`): the members drawn one
    /// by one and the rest folded, with the legend's names (`idleLabel` the idle work's).
    /// `load_as`, `lanes_as`: the members another run's charts draw one by one (configuration
    /// A's, when this is B), drawn here too in the same order; null: this run's own.
    #[wasm_bindgen(unchecked_return_type = "SimSeries")]
    pub fn series(
        &self,
        load_as: Option<Vec<String>>,
        lanes_as: Option<Vec<String>>,
    ) -> Result<JsValue, JsValue> {
        let s = self.index.series(MAX_BUCKETS);
        let out = Object::new();
        let members: Array = s.members.iter().map(|m| JsValue::from_str(m)).collect();
        let most_idle = s.most_idle_ms(self.summary.first_event_ms);
        let touched = touched(self.summary.marks.iter().map(|m| &m.mark));
        let chart = |metric, names: Option<Vec<String>>| match names {
            Some(names) => s.chart(metric, s.shown_as(&names)),
            None => s.chart_of(metric, &touched),
        };
        let charts = Object::new();
        set(
            &charts,
            "load",
            chart_js(&s, &chart(Metric::Load, load_as))?.into(),
        )?;
        set(
            &charts,
            "lanes",
            chart_js(&s, &chart(Metric::Lanes, lanes_as))?.into(),
        )?;
        let fields: [(&str, JsValue); 11] = [
            ("members", members.into()),
            ("stepMs", (s.step_ms as f64).into()),
            ("buckets", (s.buckets as f64).into()),
            ("endMs", (s.end_ms as f64).into()),
            ("load", Float64Array::from(&s.load[..]).into()),
            ("lanes", Float64Array::from(&s.lanes[..]).into()),
            ("idleLoad", Float64Array::from(&s.idle_load[..]).into()),
            ("idleCount", Float64Array::from(&s.idle_count[..]).into()),
            ("mostIdleMs", (most_idle as f64).into()),
            ("charts", charts.into()),
            ("idleLabel", JsValue::from_str(IDLE_LABEL)),
        ];
        for (k, v) in fields {
            set(&out, k, v)?;
        }
        Ok(out.into())
    }
}

fn set(o: &Object, k: &str, v: JsValue) -> Result<(), JsValue> {
    Reflect::set(o, &k.into(), &v).map(|_| ())
}

/// A chart as the page reads it (`SimChart`): `shown` (member indices) and their `names`, and
/// `rest` (`count`, `label`, `bandLabel`, and as Float64Arrays `sum`, `lo`, `hi`, `mean`) or null.
fn chart_js(s: &Series, c: &Chart) -> Result<Object, JsValue> {
    let out = Object::new();
    let shown: Array = c.shown.iter().map(|&i| JsValue::from_f64(i as f64)).collect();
    let names: Array = c
        .shown
        .iter()
        .map(|&i| JsValue::from_str(&s.members[i]))
        .collect();
    set(&out, "shown", shown.into())?;
    set(&out, "names", names.into())?;
    let rest = match &c.rest {
        None => JsValue::NULL,
        Some(f) => {
            let r = Object::new();
            set(&r, "count", JsValue::from_f64(f.count as f64))?;
            set(&r, "label", JsValue::from_str(&f.label))?;
            set(&r, "bandLabel", JsValue::from_str(&f.band_label))?;
            for (k, v) in [("sum", &f.sum), ("lo", &f.lo), ("hi", &f.hi), ("mean", &f.mean)] {
                set(&r, k, Float64Array::from(&v[..]).into())?;
            }
            r.into()
        }
    };
    set(&out, "rest", rest)?;
    Ok(out)
}
