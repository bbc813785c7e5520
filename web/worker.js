// The planner's Web Worker: owns the wasm module and the loaded snapshot, so that parsing and
// planning never block the page. Messages: { id, op, ...args } -> { id, ok, value | error }.
// Big results stay here: the moves table asks for sorted, filtered slices.
import init, { Planner, debugTrap } from './pkg/spate_planner.js';

let ready = null;
let planner = null;
let moves = [];
let view = [];
let viewKey = '';

const REASONS = ['unowned', 'owner_gone', 'over_cap', 'improve', 'queued'];

function errorOf(e) {
  const trapped = e instanceof WebAssembly.RuntimeError || /unreachable|RuntimeError/.test(String(e && e.name));
  return {
    message: e && e.message ? e.message : String(e),
    code: (e && e.code) || (trapped ? 'wasm_trap' : 'internal'),
    bucket: e && e.bucket, key: e && e.key, path: e && e.path,
    trapped,
  };
}

function cmpBig(a, b) {
  // exact comparison of decimal u64 strings
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}

/** Byte-wise UTF-8 order, as Rust orders strings (display only; decisions are made in Rust). */
const enc = new TextEncoder();
function cmpStr(a, b) {
  if (a === b) return 0;
  if (a == null) return -1;
  if (b == null) return 1;
  const x = enc.encode(a);
  const y = enc.encode(b);
  const n = Math.min(x.length, y.length);
  for (let i = 0; i < n; i++) if (x[i] !== y[i]) return x[i] - y[i];
  return x.length - y.length;
}

const SORTS = {
  split: (a, b) => cmpStr(a.split, b.split),
  weight: (a, b) => cmpBig(a.weight, b.weight) || cmpStr(a.split, b.split),
  from: (a, b) => cmpStr(a.from, b.from) || cmpStr(a.split, b.split),
  to: (a, b) => cmpStr(a.to, b.to) || cmpStr(a.split, b.split),
  reason: (a, b) => REASONS.indexOf(a.reason) - REASONS.indexOf(b.reason) || cmpStr(a.split, b.split),
  gain: (a, b) => cmpBig(a.gain || '0', b.gain || '0') || cmpStr(a.split, b.split),
};

function movesSlice({ sort = 'weight', desc = true, filter = '', offset = 0, limit = 100 }) {
  const key = `${sort}|${desc}|${filter}`;
  if (key !== viewKey) {
    const f = filter.trim().toLowerCase();
    view = f
      ? moves.filter((m) => m.split.toLowerCase().includes(f) || (m.from || '').toLowerCase().includes(f)
        || (m.to || '').toLowerCase().includes(f) || m.reason.includes(f))
      : moves.slice();
    const cmp = SORTS[sort] || SORTS.weight;
    view.sort(desc ? (a, b) => cmp(b, a) : cmp);
    viewKey = key;
  }
  return { total: view.length, offset, rows: view.slice(offset, offset + limit) };
}

async function readAll(stream, total, progress) {
  const reader = stream.getReader();
  const chunks = [];
  let got = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    got += value.length;
    if (got > maxBytes()) {
      reader.cancel();
      throw Object.assign(new Error(`the snapshot is over ${Math.round(maxBytes() / 1048576)} MiB, the most the dashboard accepts (use spate-planner plan on the command line)`), { code: 'too_large' });
    }
    progress(got, total);
  }
  const bytes = new Uint8Array(got);
  let at = 0;
  for (const c of chunks) { bytes.set(c, at); at += c.length; }
  return bytes;
}

function maxBytes() {
  return Planner.maxSnapshotBytes();
}

const ops = {
  async load({ kind, payload, url, file, splits, members, seed }, progress) {
    await ready;
    let bytes = null;
    if (kind === 'url') {
      const resp = await fetch(url);
      if (!resp.ok) throw Object.assign(new Error(`${new URL(url).pathname}: HTTP ${resp.status}`), { code: 'fetch_failed' });
      const total = Number(resp.headers.get('content-length') || 0);
      if (total > maxBytes()) throw Object.assign(new Error(`the snapshot is ${Math.round(total / 1048576)} MiB; the dashboard accepts at most ${Math.round(maxBytes() / 1048576)} MiB (use spate-planner plan on the command line)`), { code: 'too_large' });
      bytes = await readAll(resp.body, total, progress);
    } else if (kind === 'file') {
      if (file.size > maxBytes()) throw Object.assign(new Error(`${file.name} is ${Math.round(file.size / 1048576)} MiB; the dashboard accepts at most ${Math.round(maxBytes() / 1048576)} MiB (use spate-planner plan on the command line)`), { code: 'too_large' });
      bytes = await readAll(file.stream(), file.size, progress);
    } else if (kind === 'bytes') {
      bytes = new Uint8Array(payload);
    }
    progress(-1, 0); // parsing
    const next = kind === 'demo' ? Planner.demo(splits, members, seed)
      : bytes ? Planner.fromBytes(bytes) : Planner.fromText(payload);
    // only now replace the fleet shown: a bad snapshot leaves the previous one in place
    planner?.free();
    planner = next;
    moves = [];
    viewKey = '';
    return planner.info();
  },
  async plan({ scenario, defaultCap }) {
    const t0 = performance.now();
    const v = planner.plan(scenario, defaultCap);
    v.planMs = performance.now() - t0;
    v.moveCount = v.moves.length;
    if (!v.moves.every((m) => m.split)) throw new Error('malformed moves');
    // keep the moves here; the page asks for slices
    moves = v.moves;
    viewKey = '';
    delete v.moves;
    return v;
  },
  async baseline({ scenario, defaultCap }) {
    // the same figures for another scenario, without touching the moves kept for the table
    const v = planner.plan(scenario, defaultCap);
    v.moveCount = v.moves.length;
    delete v.moves;
    return v;
  },
  async moves(args) {
    return movesSlice(args);
  },
  async planJson({ scenario, defaultCap }) {
    return planner.planJson(scenario, defaultCap);
  },
  async claims({ scenario, defaultCap, instance, maxAttempts }) {
    return planner.claims(scenario, defaultCap, instance, maxAttempts);
  },
  async findSplits({ scenario, defaultCap, query, limit }) {
    return planner.findSplits(scenario, defaultCap, query, limit);
  },
  async converge({ scenario, defaultCap, maxRounds }) {
    return planner.converge(scenario, defaultCap, maxRounds);
  },
  async debugTrap() {
    debugTrap();
  },
  async maxBytes() {
    await ready;
    return Planner.maxSnapshotBytes();
  },
};

self.onmessage = async (ev) => {
  const { id, op, ...args } = ev.data;
  try {
    if (!ops[op]) throw Object.assign(new Error(`unknown request ${op}`), { code: 'internal' });
    if (op !== 'load' && op !== 'maxBytes' && op !== 'debugTrap' && !planner) {
      throw Object.assign(new Error('no snapshot is loaded'), { code: 'no_snapshot' });
    }
    const value = await ops[op](args, (got, total) => self.postMessage({ id, progress: { got, total } }));
    self.postMessage({ id, ok: true, value });
  } catch (e) {
    self.postMessage({ id, ok: false, error: errorOf(e) });
  }
};

ready = init({ module_or_path: new URL('./pkg/spate_planner_bg.wasm', import.meta.url) });
