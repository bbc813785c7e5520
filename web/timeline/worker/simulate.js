// The worker's side of the Timeline: runs a script on the snapshot the worker holds
// (Planner.simulateRun: the document of `spate-planner simulate --json`, and the run kept), takes
// the chart's series from the run (SimRun.series) into the model the page draws
// (timeline/shared/model.js), and keeps the runs that answer the fleet at an instant
// (SimRun.fleetAt, the simulator's FleetIndex).
import { timelineModel } from '../shared/model.js';

function firstEventMs(text) {
  let doc;
  try { doc = JSON.parse(text); } catch { return null; }
  const times = (Array.isArray(doc.events) ? doc.events : []).map((e) => Number(e?.at_ms)).filter(Number.isFinite);
  return times.length ? Math.min(...times) : null;
}

/**
 * Simulates `script` (text) on `planner`; `call(fn)` runs a call into the module (the worker's
 * trap guard); `keep(run)` takes the kept run (SimRun; by default it is freed). Returns the
 * model with `timing`: { simMs (in wasm: the run and its series), modelMs (reading the
 * document), bytes (the document's length) }.
 */
export function simulateModel(planner, call, script, keep = (run) => run.free()) {
  const t0 = performance.now();
  const run = call(() => planner.simulateRun(script));
  let text;
  let series;
  try {
    text = call(() => run.document());
    series = call(() => run.series());
  } catch (e) {
    run.free();
    throw e;
  }
  keep(run);
  const t1 = performance.now();
  const model = timelineModel(JSON.parse(text), series, firstEventMs(script));
  model.timing = { simMs: t1 - t0, modelMs: performance.now() - t1, bytes: text.length };
  return model;
}

/**
 * The runs kept for the scrubber: configuration A's and B's of the newest run. A new run of A
 * starts a new pair (B's is dropped with A's: B is run after A when it is compared).
 */
export class KeptRuns {
  #byConfig = new Map();
  #seq = 0;

  /** Keeps `run` as configuration `which` ('A' or 'B'); its id, for asking about it. */
  keep(which, run) {
    if (which === 'A') this.clear();
    else this.#byConfig.get(which)?.run.free();
    const id = ++this.#seq;
    this.#byConfig.set(which, { id, run });
    return id;
  }

  /** The run of id `id`, or null once it was replaced. */
  get(id) {
    for (const k of this.#byConfig.values()) if (k.id === id) return k.run;
    return null;
  }

  clear() {
    for (const k of this.#byConfig.values()) k.run.free();
    this.#byConfig.clear();
  }
}
