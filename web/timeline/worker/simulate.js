// The worker's side of the Timeline: runs a script on the snapshot the worker holds
// (Planner.simulateRun: the run kept), takes its summary and the chart's series (SimRun.summary,
// SimRun.series) into the model the page draws
// (timeline/shared/model.js), and keeps the runs that answer the fleet at an instant
// (SimRun.fleetAt, the simulator's FleetIndex).
import { timelineModel } from '../shared/model.js';

/**
 * Simulates `script` (text) on `planner`; `call(fn)` runs a call into the module (the worker's
 * trap guard); `keep(run)` takes the kept run (SimRun; by default it is freed). Returns the
 * model with `timing`: { simMs (in wasm: the run, its summary and its series), modelMs
 * (building the model) }. `shownAs`: { load, lanes } the names of the members another run's
 * charts draw one by one (A's, when this is B), or null.
 */
export function simulateModel(planner, call, script, keep = (run) => run.free(), shownAs = null) {
  const t0 = performance.now();
  const run = call(() => planner.simulateRun(script));
  let summary;
  let series;
  try {
    summary = call(() => run.summary());
    series = call(() => run.series(shownAs?.load ?? null, shownAs?.lanes ?? null));
  } catch (e) {
    run.free();
    throw e;
  }
  keep(run);
  const t1 = performance.now();
  const model = timelineModel(summary, series);
  model.timing = { simMs: t1 - t0, modelMs: performance.now() - t1 };
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
