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
      const { id, ok, value, error } = ev.data;
      const p = this.pending.get(id);
      if (!p) return;
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

  raw(op, args = {}, transfer = []) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, op, ...args }, transfer);
    });
  }

  /** Loads a snapshot: { kind: 'text'|'bytes'|'demo', payload, splits, members, seed }. */
  async load(msg) {
    const copy = msg.kind === 'bytes' ? { ...msg, payload: msg.payload.slice(0) } : msg;
    const info = await this.raw('load', msg, msg.kind === 'bytes' ? [msg.payload] : []);
    this.lastLoad = copy; // kept to reload after a trap
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
    const msg = this.lastLoad;
    const again = msg.kind === 'bytes' ? { ...msg, payload: msg.payload.slice(0) } : msg;
    await this.raw('load', again, again.kind === 'bytes' ? [again.payload] : []);
    this.onRestart?.(cause);
  }

  terminate() {
    this.worker.terminate();
  }
}
