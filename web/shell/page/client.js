// The page's side of the planner worker: a promise per request, and recovery when the wasm
// module traps. However many requests fail with the trap, one restart replaces the worker and
// reloads the snapshot; each request is then retried once.
import { takeWorker } from './early.js';

function rebuildError(error) {
  return Object.assign(new Error(error.message), error);
}

export class PlannerClient {
  /**
   * onRestart(cause): after a restart has reloaded the snapshot; onLive(message): what the
   * worker's live stream says unasked ({ status } or { pending }).
   */
  constructor({ onRestart, onLive } = {}) {
    this.onRestart = onRestart;
    this.onLive = onLive;
    this.pending = new Map();
    this.nextId = 1;
    this.lastLoad = null;
    this.lastBefore = null;
    this.restarts = 0;
    this.restarting = null;
    this.start();
  }

  start() {
    // the page's first client takes the worker main.js started (a restart makes a new one)
    this.worker = takeWorker() ?? new Worker(new URL('../../worker-start.js', import.meta.url), { type: 'module' });
    this.worker.onmessage = (ev) => this.receive(ev.data);
    this.worker.onerror = (ev) => {
      ev.preventDefault();
      const err = Object.assign(new Error(`the planner worker failed: ${ev.message || 'it could not start'}`), { code: 'worker_failed', trapped: true });
      this.rejectAll(err);
    };
  }

  receive({ id, ok, value, error, progress, live }) {
    if (live) { this.onLive?.(live); return; }
    const p = this.pending.get(id);
    if (!p) return;
    if (progress) { p.onProgress?.(progress); return; }
    this.pending.delete(id);
    if (ok) p.resolve(value);
    else p.reject(rebuildError(error));
  }

  rejectAll(err) {
    const all = [...this.pending.values()];
    this.pending.clear();
    for (const p of all) p.reject(err);
  }

  /** One request, as is: no waiting for a restart, no retry. */
  raw(op, args = {}, onProgress = null) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, onProgress });
      this.worker.postMessage({ id, op, ...args });
    });
  }

  /**
   * Loads a snapshot source for load `generation`; resolves to its FleetInfo. The worker
   * replaces its fleet only once info() has succeeded and no newer load was asked for.
   */
  async load(source, generation, onProgress) {
    if (this.restarting) await this.restarting.catch(() => {});
    const info = await this.raw('load', { source, generation }, onProgress);
    if (!this.lastLoad || generation >= this.lastLoad.generation) this.lastLoad = { source, generation };
    return info;
  }

  /** A request for the loaded snapshot; after a trap, waits for the one restart and retries once. */
  async call(op, args, onProgress = null) {
    if (this.restarting) await this.restarting;
    try {
      return await this.raw(op, args, onProgress);
    } catch (e) {
      if (!e.trapped || !this.lastLoad) throw e;
      await this.recover(e);
      return this.raw(op, args, onProgress);
    }
  }

  /** Starts a restart, or joins the one under way. */
  recover(cause) {
    if (!this.restarting) {
      this.restarting = this.restart(cause).finally(() => { this.restarting = null; });
    }
    return this.restarting;
  }

  async restart(cause) {
    this.worker.terminate();
    this.rejectAll(cause);
    this.restarts++;
    this.start();
    const { source, generation } = this.lastLoad;
    await this.raw('load', { source, generation });
    // the earlier snapshot of a comparison ({ source, before }, set by review/page/actions.js)
    // comes back too
    if (this.lastBefore) await this.raw('loadBefore', this.lastBefore).catch(() => { this.lastBefore = null; });
    this.onRestart?.(cause);
  }

  terminate() {
    this.worker.terminate();
    this.rejectAll(Object.assign(new Error('the planner was closed'), { code: 'closed' }));
  }
}
