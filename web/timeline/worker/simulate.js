// The worker's side of the Timeline: runs a script on the snapshot the worker holds
// (Planner.simulate, the document of `spate-planner simulate --json`) and reduces the document
// to the model the page draws (timeline/shared/model.js). What it needs of the snapshot (its
// members, its leader, each split's weight) is read once per loaded planner.
import { timelineModel } from '../shared/model.js';

const fleets = new WeakMap();
/** Every split of a snapshot: findSplits with an empty query matches all. */
const ALL = 0xffffffff;

/** The snapshot's members, leader, split weights (as numbers: for drawing only) and owners. */
function fleetOf(planner, call) {
  let f = fleets.get(planner);
  if (!f) {
    const info = call(() => planner.info());
    const weights = new Map();
    const owners = new Map();
    for (const s of call(() => planner.findSplits('', '', ALL))) {
      weights.set(s.id, s.weight === null ? 0 : Number(s.weight));
      if (s.owner ?? s.lease_owner) owners.set(s.id, s.owner ?? s.lease_owner);
    }
    f = { members: info.members.map((m) => m.name), leader: info.leader, weights, owners };
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
 * trap guard). Returns the model with `timing`: { simMs (in wasm), modelMs (the reduction),
 * bytes (the document's length) }.
 */
export function simulateModel(planner, call, script) {
  const t0 = performance.now();
  const text = call(() => planner.simulate(script));
  const t1 = performance.now();
  const doc = JSON.parse(text);
  const fleet = fleetOf(planner, call);
  const added = addedWeights(script);
  const weightOf = (id) => {
    const w = fleet.weights.get(id);
    if (w !== undefined) return w;
    return added.find((a) => id.startsWith(a.prefix))?.weight ?? 0;
  };
  const model = timelineModel(doc, { weightOf, ownerOf: (id) => fleet.owners.get(id) ?? null, members: fleet.members, leader: fleet.leader, firstEventMs: firstEventMs(script) });
  model.timing = { simMs: t1 - t0, modelMs: performance.now() - t1, bytes: text.length };
  return model;
}
