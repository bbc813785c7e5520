// The page's side of the planner worker: a promise per request, and recovery when the wasm
// module traps (the worker is replaced, the snapshot reloaded, the request retried once).

export class PlannerClient {
  constructor({ onRestart } = {}) {
    this.onRestart = onRestart;
    this.pending = new Map();
    this.nextId = 1;
    this.lastLoad = null;
    this.restarts = 0;
    this.start();
  }

  start() {
    this.worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
    this.worker.onmessage = (ev) => {
      const { id, ok, value, error, progress } = ev.data;
      const p = this.pending.get(id);
      if (!p) return;
      if (progress) { p.onProgress?.(progress); return; }
      this.pending.delete(id);
      if (ok) p.resolve(value);
      else p.reject(Object.assign(new Error(error.message), error));
    };
    this.worker.onerror = (ev) => {
      ev.preventDefault();
      const err = Object.assign(new Error(`the planner worker failed: ${ev.message || 'unknown error'}`), { code: 'worker_failed', trapped: true });
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
    };
  }

  raw(op, args = {}, transfer = [], onProgress = null) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, onProgress });
      this.worker.postMessage({ id, op, ...args }, transfer);
    });
  }

  /**
   * Loads a snapshot: { kind: 'url', url } | { kind: 'file', file } | { kind: 'text', payload }
   * | { kind: 'demo', splits, members, seed }. The worker reads URLs and files itself, so big
   * snapshots never pass through the page's main thread. onProgress({ got, total }); got -1:
   * parsing.
   */
  async load(msg, onProgress) {
    const info = await this.raw('load', msg, [], onProgress);
    this.lastLoad = msg; // kept to reload after a trap
    return info;
  }

  /** A request; if the module trapped, restart it, reload the snapshot and retry once. */
  async call(op, args) {
    try {
      return await this.raw(op, args);
    } catch (e) {
      if (!e.trapped || !this.lastLoad) throw e;
      await this.restart(e);
      return this.raw(op, args);
    }
  }

  async restart(cause) {
    this.worker.terminate();
    for (const p of this.pending.values()) p.reject(cause);
    this.pending.clear();
    this.restarts++;
    this.start();
    await this.raw('load', this.lastLoad);
    this.onRestart?.(cause);
  }

  /** Traps the module on purpose and recovers, as after a real trap (the recovery test). */
  async crashForTest() {
    try {
      await this.raw('debugTrap');
    } catch (e) {
      if (!e.trapped) throw e;
      await this.restart(e);
    }
  }

  terminate() {
    this.worker.terminate();
  }
}
