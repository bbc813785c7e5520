// Reading a source into a fleet in the worker, and the first load's work done ahead of it: the
// snapshot the page names as it starts is read, parsed and planned (the empty scenario) while
// the page's own modules still load; the first `load` of that URL and its first `analyse` then
// take what is ready instead of doing it again.
import { scenarioText, emptyScenario } from '../../common/shared/scenario.js';
import { readSource, refuseOver } from '../../common/worker/read-source.js';
import { ReplayJob, recordingBytes } from '../../live/worker/replay.js';

/**
 * A User Timing measure `spate:NAME` from `start` (ms) to now, the one of that name (so that
 * they do not pile up): where a load's time goes, for DevTools and tests/bench/first-render.mjs.
 */
export function measure(name, start) {
  performance.clearMeasures(`spate:${name}`);
  performance.measure(`spate:${name}`, { start });
}

/**
 * `input` (what readSource read) made a fleet: { next } (a Planner), or for a recording
 * { next (its first moment's), opened (the ReplayJob, its `overview` set) }. `wasm`: { Planner,
 * Replay, guard } (guard runs a call into the module).
 */
export async function parsedInput(input, max, { Planner, Replay, guard }) {
  const parse = performance.now();
  const recording = input.live || input.demo ? null : await recordingBytes(input, Replay, max);
  let out;
  if (recording) {
    const opened = new ReplayJob(Replay, recording, guard);
    try {
      const { planner: first, overview } = opened.open();
      opened.overview = overview;
      out = { next: first, opened };
    } catch (e) {
      opened.close();
      throw e;
    }
  } else {
    out = { next: guard(() => fleetOf(input, Planner)) };
  }
  measure('parse', parse);
  return out;
}

function fleetOf(input, Planner) {
  if (input.live) return input.live.quick();
  if (input.demo) return Planner.demo(input.demo.splits, input.demo.members, input.demo.seed);
  return input.bytes ? Planner.fromBytes(input.bytes) : Planner.fromText(input.text);
}

/**
 * The first load's snapshot, read and parsed (and its empty scenario planned) ahead.
 * `early`: what worker-start.js started ({ snapshot: { url, response } }); `ready`: the module's
 * init; `moduleMax()`: the largest snapshot known so far; `wasm`: { Planner, Replay, guard }.
 */
export class FirstLoad {
  constructor({ early, ready, moduleMax, wasm }) {
    Object.assign(this, { early, ready, moduleMax, wasm });
    /** The snapshot being read ahead: { url, reading, parsed, relay }, or null. */
    this.prefetched = null;
    /** The plan of the empty scenario made ahead: { planner, text, r, planMs }, or null. */
    this.plannedAhead = null;
  }

  /** Starts reading, then parsing and planning, a same-origin snapshot URL (once). */
  prefetch(source) {
    if (source?.kind !== 'url' || this.prefetched) return;
    if (new URL(source.url).origin !== self.location.origin) return; // as the page's loadUrl
    // the response worker-start.js asked for, when it is this URL's
    const asked = this.early.snapshot?.url === source.url ? this.early.snapshot.response : undefined;
    this.early.snapshot = null;
    const read = { url: source.url, relay: () => {} };
    read.reading = readSource({ ...source, response: asked }, this.moduleMax, (got, total) => read.relay(got, total));
    read.parsed = read.reading.then((input) => this.#parseAhead(input));
    read.parsed.catch(() => {}); // the load that takes it reports a failure
    this.prefetched = read;
  }

  /** Parsed once read and the module is ready, while the page's modules still load. */
  async #parseAhead(input) {
    await this.ready;
    const max = this.wasm.Planner.maxSnapshotBytes();
    refuseOver(input, max);
    const out = await parsedInput(input, max, this.wasm);
    if (!out.opened) this.#planAhead(out.next); // a recording's first moment is planned as it is shown
    return out;
  }

  /** Plans the empty scenario on `next` now (a failure is the `analyse` asked for's to report). */
  #planAhead(next) {
    const t0 = performance.now();
    const text = scenarioText(emptyScenario());
    try {
      const r = this.wasm.guard(() => next.analyse(text));
      this.plannedAhead = { planner: next, text, r, planMs: performance.now() - t0 };
      measure('plan', t0);
    } catch {
      this.plannedAhead = null;
    }
  }

  /**
   * The read ahead when `source` is of its URL (its progress relayed from now on), else null;
   * either way it is no longer kept (a fleet parsed for another URL is freed).
   */
  takeRead(source, progress) {
    const read = this.prefetched;
    this.prefetched = null;
    if (!read) return null;
    if (source.kind !== 'url' || source.url !== read.url) {
      read.parsed.then(({ next, opened }) => { this.plannedAhead = null; next?.free(); opened?.close(); }, () => {});
      return null;
    }
    read.relay = progress;
    return read;
  }

  /** The plan made ahead when it is of `text` on `planner` (the fleet loaded), else null; taken once. */
  takePlan(text, planner) {
    const ahead = this.plannedAhead;
    this.plannedAhead = null;
    return ahead && ahead.planner === planner && ahead.text === text ? ahead : null;
  }
}
