// The worker's side of the Timeline: runs a script on the snapshot the worker holds
// (Planner.simulateRun: the document of `spate-planner simulate --json`, and the run kept for
// the scrubber), reduces the document to the model the page draws (timeline/shared/model.js),
// and keeps the runs that answer the fleet at an instant (SimRun.fleetAt, the simulator's
// FleetIndex). What it needs of the snapshot (its members and each split's weight) is read once
// per loaded planner.
import { timelineModel } from '../shared/model.js';

const fleets = new WeakMap();
/** Every split of a snapshot: findSplits with an empty query matches all. */
const ALL = 0xffffffff;

/** The snapshot's members and split weights (as numbers: for drawing only). */
function fleetOf(planner, call) {
  let f = fleets.get(planner);
  if (!f) {
    const info = call(() => planner.info());
    const weights = new Map();
    for (const s of call(() => planner.findSplits('', '', ALL))) weights.set(s.id, s.weight === null ? 0 : Number(s.weight));
    f = { members: info.members.map((m) => m.name), weights };
    fleets.set(planner, f);
  }
  return f;
}

/** Weights of the splits the script's add_splits events land (`{prefix}{n:06}`). */
function addedWeights(text) {
  const out = [];
  let doc;
  try { doc = JSON.parse(text); } catch { return out; }
  for (const e of Array.isArray(doc.events) ? doc.events : []) {
    if (e?.op === 'add_splits') out.push({ prefix: e.prefix ?? 'synthetic-', weight: Number(e.weight) || 0 });
  }
  return out;
}

function firstEventMs(text) {
  let doc;
  try { doc = JSON.parse(text); } catch { return null; }
  const times = (Array.isArray(doc.events) ? doc.events : []).map((e) => Number(e?.at_ms)).filter(Number.isFinite);
  return times.length ? Math.min(...times) : null;
}

/**
 * Simulates `script` (text) on `planner`; `call(fn)` runs a call into the module (the worker's
 * trap guard); `keep(run)` takes the kept run (SimRun; by default it is freed). Returns the
 * model with `timing`: { simMs (in wasm), modelMs (the reduction), bytes (the document's length) }.
 */
export function simulateModel(planner, call, script, keep = (run) => run.free()) {
  const t0 = performance.now();
  const run = call(() => planner.simulateRun(script));
  let text;
  try {
    text = call(() => run.document());
  } catch (e) {
    run.free();
    throw e;
  }
  keep(run);
  const t1 = performance.now();
  const doc = JSON.parse(text);
  const fleet = fleetOf(planner, call);
  const added = addedWeights(script);
  const weightOf = (id) => {
    const w = fleet.weights.get(id);
    if (w !== undefined) return w;
    return added.find((a) => id.startsWith(a.prefix))?.weight ?? 0;
  };
  const model = timelineModel(doc, { weightOf, members: fleet.members, firstEventMs: firstEventMs(script) });
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
