// The planner's Web Worker: owns the wasm module and the loaded snapshot, so that parsing and
// planning never block the page. Messages: { id, op, generation, ...args } →
// { id, ok, value | error } (and { id, progress } while reading a snapshot).
// Every request names the load generation it was made for; a request for another generation
// is refused (code `stale`), so a page never mixes two fleets. Big results stay here: the moves
// table asks for sorted, filtered slices.
import init, { Planner, Replay, figuresTable, timelineSection } from './pkg/spate_planner.js';
import { scenarioText } from './common/shared/scenario.js';
import { readSource, refuseOver } from './common/worker/read-source.js';
import { movesSlice } from './plan/worker/moves-slice.js';
import { openLive, liveFrame } from './live/worker/job.js';
import { reviewOps } from './review/worker/ops.js';
import { simulateModel, KeptRuns } from './timeline/worker/simulate.js';
import { transferables } from './timeline/shared/model.js';
import { FirstLoad, measure, parsedInput } from './shell/worker/first-load.js';

/**
 * What worker-start.js started before these modules loaded ({ wasm, snapshot }), taken once; empty
 * when worker.js was loaded on its own (the Node tests).
 */
const early = self.plannerEarly ?? {};
delete self.plannerEarly;

/** The wasm module: the one compiling since the worker started, else (or when that failed) fetched now. */
function wasmSource() {
  const url = new URL('./pkg/spate_planner_bg.wasm', import.meta.url);
  return early.wasm ? early.wasm.catch(() => fetch(url)) : url;
}

const ready = init({ module_or_path: wasmSource() })
  .then((r) => { measure('module', 0); return r; });

/** The largest snapshot read: the module's limit, once it is compiled (checked again after). */
let moduleMax = Infinity;
ready.then(() => { moduleMax = Planner.maxSnapshotBytes(); }, () => {});

let planner = null;
/** Generation of the planner loaded, and the newest load asked for. */
let loaded = 0;
let newest = 0;
/** The moves of the last plan, by scenario text, and the core's words for their reasons: { text, moves, reasons }. */
let kept = { text: null, moves: [], reasons: [] };
/** Set once the module has trapped: every later request fails the same way. */
let poisoned = null;
/** A live job's stream and frames (live/worker/job.js), or null. */
let live = null;
/** A recording replayed (live/worker/replay.js), or null. */
let replay = null;
/** The Timeline's runs kept for its scrubber (of the snapshot loaded). */
const scrubbed = new KeptRuns();

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

/**
 * Answers whose buffers move to the page instead of being copied (answer → transfer list). Such
 * an answer is read no more here once posted: its buffers are detached.
 */
const transfers = new WeakMap();

/** Requests that need no loaded snapshot (liveNext names the generation it makes). */
const UNCHECKED = new Set(['load', 'liveNext', 'replaySeek', 'prefetch']);

const post = (message) => self.postMessage(message);

// the first load's snapshot read, parsed and planned ahead (shell/worker/first-load.js)
const wasm = { Planner, Replay, guard };
const firstLoad = new FirstLoad({ early, ready, moduleMax: () => moduleMax, wasm });

const ops = {
  /**
   * Starts reading, then parsing (and planning the empty scenario on), a same-origin snapshot
   * URL that the first load will name (answers nothing): the load and the first plan then only
   * wait for what is left.
   */
  prefetch({ source }) {
    if (!loaded && !newest) firstLoad.prefetch(source);
  },

  async load({ source, generation }, progress) {
    if (source.kind === 'live') { live?.close(); live = null; }
    // a live stream opens, or the snapshot is read, while the module compiles
    const read = performance.now();
    const taken = source.kind === 'live' ? null : firstLoad.takeRead(source, progress);
    const opening = source.kind === 'live' ? openLive(source, post, { Planner, infoOf, guard })
      : taken ? taken.reading : readSource(source, () => moduleMax, progress);
    opening.catch(() => {}); // awaited below; a refusal before then is not unhandled
    await ready;
    newest = Math.max(newest, generation);
    const input = await opening;
    measure('read', read);
    const max = Planner.maxSnapshotBytes();
    refuseOver(input, max);
    progress(-1, 0); // parsing
    let next;
    let info;
    let opened = null;
    try {
      // the prefetched snapshot was parsed as soon as it was read and the module was ready
      ({ next, opened = null } = taken ? await taken.parsed : await parsedInput(input, max, wasm));
      const summary = performance.now();
      info = guard(() => infoOf(next));
      measure('info', summary);
      if (generation < newest) throw fail('superseded', 'a newer snapshot was asked for while this one loaded');
    } catch (e) {
      next?.free();
      opened?.close();
      input.live?.close();
      throw e;
    }
    // only now replace the fleet: a refused snapshot leaves the previous one in place (and
    // one kept as the "before" of a comparison stays alive)
    if (!review.holds(planner)) planner?.free();
    planner = next;
    loaded = generation;
    kept = { text: null, moves: [], reasons: [] };
    scrubbed.clear();
    live?.close();
    live = input.live || null;
    live?.started(next, info);
    replay?.close();
    replay = opened;
    // a recording's overview goes with the first moment's summary (the page starts a replay with it)
    return opened ? { ...info, replay: opened.overview } : info;
  },

  /**
   * The plan of the scenario as far as it applies, and its baseline: the core's one policy
   * (Planner.analyse) leaves out each change that does not apply and lists it in `refused`,
   * here `failures`. Every later request names the scenario's whole text.
   */
  analyse({ scenario }) {
    const t0 = performance.now();
    const text = scenarioText(scenario);
    const ahead = firstLoad.takePlan(text, planner);
    const r = ahead ? ahead.r : guard(() => planner.analyse(text));
    const planMs = ahead ? ahead.planMs : performance.now() - t0;
    if (!ahead) measure('plan', t0);
    kept = { text, moves: r.view.report.moves, reasons: r.view.reasons };
    return {
      view: withoutMoves(r.view),
      baseline: r.baseline && withoutMoves(r.baseline),
      failures: r.view.refused,
      // the baseline's figures as `watch` and /metrics give them: the live chart's point
      moment: r.moment,
      text,
      moveCount: r.view.report.moves.length,
      planMs,
    };
  },

  /** What the Timeline's script leaves unset takes, for this snapshot (the simulator's defaults). */
  simDefaults() {
    return guard(() => planner.simDefaults());
  },

  /** The fleet chart of the plan as SVG text (the core's): { order (names), palette, title, lines, rows (0: every member) }. */
  fleetChart({ text, order, palette, title, lines, rows = 0 }) {
    return guard(() => planner.fleetChart(text, order, palette, title, lines, rows));
  },

  /** A table of the plan as CSV (`moves`, `members`, `splits`): `spate-planner plan --csv TABLE`. */
  planCsv({ text, table }) {
    return guard(() => planner.planCsv(text, table));
  },

  /** Every live member's next actions as CSV: `spate-planner claims [--after-plan] --csv`. */
  claimsCsv({ text, afterPlan, maxAttempts }) {
    return guard(() => planner.claimsCsv(text, afterPlan, maxAttempts));
  },

  moves({ text, ...query }) {
    if (kept.text !== text) {
      const view = guard(() => planner.plan(text));
      kept = { text, moves: view.report.moves, reasons: view.reasons };
    }
    return movesSlice(kept.moves, { ...query, reasons: kept.reasons });
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

  /** A live job's next frame: what arrived applied, then planned; it becomes `generation`. */
  liveNext({ generation, scenario }) {
    if (!live || !planner) throw fail('not_live', 'no live job is followed');
    const frame = liveFrame(live, planner, Date.now());
    if (frame.planner !== planner) { if (!review.holds(planner)) planner.free(); planner = frame.planner; }
    newest = Math.max(newest, generation);
    loaded = generation;
    const result = ops.analyse({ scenario });
    const simDefaults = ops.simDefaults();
    // while the page renders: the live planner (after the first frame)
    setTimeout(prepareLive, 0);
    return { info: frame.info, result, simDefaults, live: frame.describe(result), incidents: incidentsOf(scenario) };
  },

  /** The followed job's incidents now (the countdowns move with the clock between frames). */
  liveIncidents({ scenario }) {
    if (!live || !planner) throw fail('not_live', 'no live job is followed');
    return incidentsOf(scenario);
  },

  /** A recording's moment `moment`: its fleet planned; it becomes `generation`. */
  replaySeek({ generation, moment, scenario }) {
    if (!replay || !planner) throw fail('not_live', 'no recording is replayed');
    const { planner: next, frame } = replay.seek(moment);
    if (!review.holds(planner)) planner.free();
    planner = next;
    newest = Math.max(newest, generation);
    loaded = generation;
    const result = ops.analyse({ scenario });
    const incidents = replay.incidents(moment, scenario);
    return { info: guard(() => infoOf(planner)), result, simDefaults: ops.simDefaults(), replay: replay.momentOf(frame), incidents };
  },

  /** The recording's moment shown, as a snapshot file taken then. */
  replaySave() {
    if (!replay) throw fail('not_live', 'no recording is replayed');
    return replay.save();
  },

  /** The live job as a snapshot file (what `spate-planner snapshot` writes at these revisions). */
  liveSave() {
    if (!live) throw fail('not_live', 'no live job is followed');
    return live.save(planner, Date.now());
  },

  /**
   * The Timeline: a script simulated on the snapshot as configuration `which`, reduced to what
   * the page draws (its typed arrays transferred); the run is kept for the scrubber (`runId`).
   * `shownAs`: the members A's charts draw one by one ({ load, lanes } names), for B.
   */
  simulate({ script, which, shownAs = null }) {
    let runId = 0;
    const model = simulateModel(planner, guard, script, (run) => { runId = scrubbed.keep(which, run); }, shownAs);
    model.runId = runId;
    transfers.set(model, transferables(model));
    return model;
  },

  /**
   * The fleet at `t` (ms) of the kept run `runId` (`SimRun.fleetAt`), with at most `idleLimit`
   * idle splits listed; refused as stale once that run was replaced.
   */
  fleetAt({ runId, t, idleLimit }) {
    const run = scrubbed.get(runId);
    if (!run) throw fail('stale', 'the simulation asked about was replaced by a newer one');
    return guard(() => run.fleetAt(t, idleLimit));
  },

  /** The headline figures of A (and B, with B − A) in rows: the simulator's table (`figuresTable`). */
  figuresTable({ a, b, hasEvents }) {
    return guard(() => figuresTable(a, b ?? null, hasEvents));
  },

  /** The review document's Timeline section, written by the simulator (`timelineSection`). */
  timelineSection({ input }) {
    return guard(() => timelineSection(input));
  },
};

/**
 * Builds the live planner when nothing else waits (a failure is the next frame's to report; a
 * trap poisons the worker).
 */
/** The live job's incidents now, newest first (none while the first state's planner shows). */
function incidentsOf(scenario) {
  if (!live || !planner || planner.revisions() === undefined) return [];
  return guard(() => planner.incidents(scenario, undefined, Date.now()));
}

function prepareLive() {
  try {
    if (!live || !planner || poisoned) return;
    live.prepare();
  } catch {
    // the next request reports it
  }
}

// sweeps, the "before" snapshot, the comparison and the review report (review/worker/ops.js)
const review = reviewOps({ Planner, ready, readSource, guard, infoOf: (p) => infoOf(p), planner: () => planner, loaded: () => loaded });
Object.assign(ops, review.ops);
for (const op of review.unchecked) UNCHECKED.add(op);

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
    self.postMessage({ id, ok: true, value }, transfers.get(value) ?? []);
  } catch (e) {
    self.postMessage({ id, ok: false, error: errorOf(e) });
  }
};
