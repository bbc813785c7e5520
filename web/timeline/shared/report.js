// What the review document's Timeline section is written from: the script (configuration A),
// B's overrides, the configurations' names, the run and the charts as SVG text. The simulator
// writes the section (`timelineSection`, crate/sim/src/section.rs), escaping every name; this
// only gathers its input. No DOM.
import { scriptText, overridesText, configNames } from './script.js';

/** One configuration of a finished run: its figures, rules note and marks (the simulator's). */
function side(model) {
  return {
    figures: model.figures,
    rules_note: model.rules?.note ?? null,
    marks: model.marks.map((m) => ({ t_ms: m.t_ms, kind: m.kind, who: m.who.map(String) })),
  };
}

function runInput(run) {
  if (!run || run.status === 'running') return { status: 'not_run' };
  if (run.status === 'error') {
    const e = run.error;
    return { status: 'error', error: { which: e.which, message: String(e.message), code: String(e.code), path: e.path || null } };
  }
  return { status: 'done', a: side(run.a), b: run.b ? side(run.b) : null };
}

/**
 * The input of `timelineSection`: { timeline (the script state), run (its run: done, error, or
 * null), images: [{ which, svg (text), range ([from, to] ms shown, or none: the whole run) }] }.
 */
export function sectionInput({ timeline, run, images = [] }) {
  return {
    script: scriptText(timeline.script),
    b: timeline.b ? overridesText(timeline.b) : null,
    names: configNames(timeline),
    run: runInput(run),
    images: images.map((i) => ({ which: i.which, svg: i.svg, range: i.range ?? null })),
  };
}
