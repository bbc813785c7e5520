// The planner's Web Worker: owns the wasm module and the loaded snapshot, so that parsing and
// planning never block the page. Messages: { id, op, generation, ...args } →
// { id, ok, value | error } (and { id, progress } while reading a snapshot).
// Every request names the load generation it was made for; a request for another generation
// is refused (code `stale`), so a page never mixes two fleets. Big results stay here: the moves
// table asks for sorted, filtered slices.
import init, { Planner } from './pkg/spate_planner.js';
import { analyseScenario } from './lib/analyse.js';
import { readSource } from './lib/read-source.js';
import { movesSlice } from './lib/moves-slice.js';
import { simulateModel } from './lib/timeline-worker.js';

const ready = init({ module_or_path: new URL('./pkg/spate_planner_bg.wasm', import.meta.url) });

let planner = null;
/** Generation of the planner loaded, and the newest load asked for. */
let loaded = 0;
let newest = 0;
/** The moves of the last plan, by scenario text: { text, moves }. */
let kept = { text: null, moves: [] };
/** Set once the module has trapped: every later request fails the same way. */
let poisoned = null;

function fail(code, message) {
  return Object.assign(new Error(message), { code });
}

function isTrap(e) {
  return e instanceof WebAssembly.RuntimeError || e?.name === 'RuntimeError';
}

/** Runs a call into the module; a trap poisons the worker (the page starts a fresh one). */
function guard(fn) {
  if (poisoned) throw poisoned;
  try {
    return fn();
  } catch (e) {
    if (!isTrap(e)) throw e;
    poisoned = Object.assign(new Error(`the planner module trapped (${e.message})`), { code: 'wasm_trap', trapped: true });
    throw poisoned;
  }
}

/** The snapshot's summary; a separate binding so that the test build can make it fail. */
let infoOf = (p) => p.info();

function withoutMoves(view) {
  const { moves, ...report } = view.report;
  return { ...view, report };
}

/** Requests that need no loaded snapshot. */
const UNCHECKED = new Set(['load']);

const ops = {
  async load({ source, generation }, progress) {
    await ready;
    newest = Math.max(newest, generation);
    const max = Planner.maxSnapshotBytes();
    const input = await readSource(source, max, progress);
    progress(-1, 0); // parsing
    const next = guard(() => (input.demo ? Planner.demo(input.demo.splits, input.demo.members, input.demo.seed)
      : input.bytes ? Planner.fromBytes(input.bytes) : Planner.fromText(input.text)));
    let info;
    try {
      info = guard(() => infoOf(next));
      if (generation < newest) throw fail('superseded', 'a newer snapshot was asked for while this one loaded');
    } catch (e) {
      next.free();
      throw e;
    }
    // only now replace the fleet: a refused snapshot leaves the previous one in place
    planner?.free();
    planner = next;
    loaded = generation;
    kept = { text: null, moves: [] };
    return info;
  },

  analyse({ scenario }) {
    const t0 = performance.now();
    const r = analyseScenario((text) => guard(() => planner.plan(text)), scenario);
    const planMs = performance.now() - t0;
    kept = { text: r.text, moves: r.view.report.moves };
    return {
      view: withoutMoves(r.view),
      baseline: r.baseline === r.view ? null : withoutMoves(r.baseline),
      failures: r.failures,
      text: r.text,
      moveCount: r.view.report.moves.length,
      planMs,
    };
  },

  moves({ text, ...query }) {
    if (kept.text !== text) kept = { text, moves: guard(() => planner.plan(text)).report.moves };
    return movesSlice(kept.moves, query);
  },

  planJson({ text }) {
    return guard(() => planner.planJson(text));
  },

  claims({ text, instance, afterPlan, maxAttempts }) {
    return guard(() => planner.claims(text, instance ?? null, afterPlan, maxAttempts));
  },

  findSplits({ text, query, limit }) {
    return guard(() => planner.findSplits(text, query, limit));
  },

  converge({ text, maxRounds }) {
    return guard(() => planner.converge(text, maxRounds));
  },

  /** The Timeline: a script simulated on the snapshot, reduced to what the page draws. */
  simulate({ script }) {
    return simulateModel(planner, guard, script);
  },
};

function errorOf(e) {
  return {
    message: e?.message ? e.message : String(e),
    code: e?.code || (isTrap(e) ? 'wasm_trap' : 'internal'),
    bucket: e?.bucket, key: e?.key, path: e?.path,
    trapped: Boolean(e?.trapped || isTrap(e)),
  };
}

self.onmessage = async (ev) => {
  const { id, op, generation, ...args } = ev.data;
  try {
    if (!Object.hasOwn(ops, op)) throw fail('internal', `unknown request ${op}`);
    if (poisoned) throw poisoned;
    if (!UNCHECKED.has(op)) {
      if (!planner) throw fail('no_snapshot', 'no snapshot is loaded');
      if (generation !== loaded) throw fail('stale', 'the request was made for another snapshot');
    }
    const progress = (got, total) => self.postMessage({ id, progress: { got, total } });
    const value = await ops[op]({ ...args, generation }, progress);
    self.postMessage({ id, ok: true, value });
  } catch (e) {
    self.postMessage({ id, ok: false, error: errorOf(e) });
  }
};
