// A simulation document (`spate-planner simulate --json`) turned into what the Timeline draws:
// per-member load and lanes and the idle work per time bucket (averages over each bucket, so a
// series' area is exactly its split-seconds) and the event marks. Built in the worker
// (timeline/worker/simulate.js), read on the page; no DOM, no wasm. The fleet at an instant is
// not here: the worker keeps the simulator's run and asks it (SimRun.fleetAt).

const PHASES = ['running', 'draining', 'idle', 'completed', 'quarantined'];
const PHASE_CODE = Object.fromEntries(PHASES.map((p, i) => [p, i]));

/** Most buckets a series has (the chart draws one point per bucket). */
export const MAX_BUCKETS = 720;
const STEPS_MS = [1000, 2000, 5000, 10000, 15000, 30000, 60000, 120000, 300000, 600000, 900000, 1800000, 3600000];

/** The bucket width for a run of `endMs`: the smallest round step (1 s or more) giving at most `max` buckets. */
export function bucketMs(endMs, max = MAX_BUCKETS) {
  return STEPS_MS.find((s) => Math.ceil(endMs / s) <= max) ?? Math.ceil(endMs / max / 3600000) * 3600000;
}

/**
 * Accumulates bucket averages of step functions: add(row, from, to, value) adds `value` over
 * [from, to); values() gives each bucket's time-weighted mean. O(1) per interval (a difference
 * array carries the whole buckets).
 */
export function averager(rows, buckets, step, end) {
  const area = new Float64Array(rows * buckets);
  const diff = new Float64Array(rows * buckets + 1);
  return {
    add(row, from, to, value) {
      if (!(to > from) || value === 0) return;
      const base = row * buckets;
      const ka = Math.min(buckets - 1, Math.floor(from / step));
      const kb = Math.min(buckets - 1, Math.floor((to - 1) / step));
      if (ka === kb) { area[base + ka] += value * (to - from); return; }
      area[base + ka] += value * ((ka + 1) * step - from);
      area[base + kb] += value * (to - kb * step);
      if (kb > ka + 1) { diff[base + ka + 1] += value; diff[base + kb] -= value; }
    },
    values() {
      const out = new Float64Array(rows * buckets);
      for (let r = 0; r < rows; r++) {
        let run = 0;
        for (let k = 0; k < buckets; k++) {
          const i = r * buckets + k;
          run += diff[i];
          const len = Math.min(step, end - k * step);
          out[i] = len > 0 ? (area[i] + run * step) / len : 0;
        }
      }
      return out;
    },
  };
}

/** Every instance the run knows, in order of appearance: the snapshot's members, then the started ones and any other holder. */
function memberNames(doc, initial) {
  const names = [...initial];
  const seen = new Set(names);
  const add = (n) => { if (n && !seen.has(n)) { seen.add(n); names.push(n); } };
  for (const e of doc.timeline) if (e.event === 'started') add(e.member);
  for (const list of Object.values(doc.splits)) for (const i of list) add(i.member);
  return names;
}

/** The split intervals as typed arrays: split s has intervals offsets[s] .. offsets[s+1]-1. */
function compactSplits(doc, index, weightOf) {
  const ids = Object.keys(doc.splits);
  let total = 0;
  for (const id of ids) total += doc.splits[id].length;
  const offsets = new Uint32Array(ids.length + 1);
  const from = new Float64Array(total);
  const to = new Float64Array(total);
  const phase = new Uint8Array(total);
  const member = new Int32Array(total);
  const weight = new Float64Array(ids.length);
  let j = 0;
  ids.forEach((id, s) => {
    offsets[s] = j;
    weight[s] = weightOf(id);
    for (const iv of doc.splits[id]) {
      from[j] = iv.from_ms;
      to[j] = iv.to_ms;
      phase[j] = PHASE_CODE[iv.phase];
      member[j] = iv.member === undefined ? -1 : index.get(iv.member);
      j++;
    }
  });
  offsets[ids.length] = j;
  return { ids, weight, offsets, from, to, phase, member };
}

/** Per-member load and lanes, and idle weight and count, as bucket averages. */
function series(splits, members, buckets, step, end) {
  const held = averager(members * 2, buckets, step, end);
  const idle = averager(2, buckets, step, end);
  const n = splits.ids.length;
  for (let s = 0; s < n; s++) {
    const w = splits.weight[s];
    for (let j = splits.offsets[s]; j < splits.offsets[s + 1]; j++) {
      const p = splits.phase[j];
      if (p <= 1 && splits.member[j] >= 0) {
        held.add(splits.member[j], splits.from[j], splits.to[j], w);
        held.add(members + splits.member[j], splits.from[j], splits.to[j], 1);
      } else if (p === 2) {
        idle.add(0, splits.from[j], splits.to[j], w);
        idle.add(1, splits.from[j], splits.to[j], 1);
      }
    }
  }
  const h = held.values();
  const i = idle.values();
  return {
    load: h.subarray(0, members * buckets), lanes: h.subarray(members * buckets),
    idleLoad: i.subarray(0, buckets), idleCount: i.subarray(buckets),
  };
}

const MARK_EVENTS = {
  crashed: 'crash', stopped: 'stop', started: 'start', cap_set: 'cap', leader_elected: 'election',
  splits_added: 'splits', failed: 'fail', ignored: 'ignored',
};

/** The marks on the time axis: scripted happenings and elections, same kind at the same instant folded into one. */
export function marksOf(doc, firstEventMs) {
  const marks = [];
  for (const e of doc.timeline) {
    const kind = MARK_EVENTS[e.event];
    if (!kind) continue;
    const who = e.member ?? e.split ?? (e.event === 'splits_added' ? `${e.count} × ${e.prefix}…` : e.reason ?? '');
    const last = marks[marks.length - 1];
    if (last && last.t === e.t_ms && last.kind === kind) last.who.push(who);
    else marks.push({ t: e.t_ms, kind, who: [who] });
  }
  const r = doc.figures.recovery_ms;
  if (r !== null && r !== undefined && firstEventMs !== null) marks.push({ t: firstEventMs + r, kind: 'recovered', who: [] });
  return marks.sort((a, b) => a.t - b.t);
}

/**
 * The model of one run. doc: the parsed simulation document; weightOf(id): a split's weight
 * (a number); members: the snapshot's member names; firstEventMs: the first scripted event's
 * time (null without events).
 */
export function timelineModel(doc, { weightOf, members = [], firstEventMs = null }) {
  const end = doc.figures.end_ms;
  const step = bucketMs(end);
  const buckets = Math.max(1, Math.ceil(end / step));
  const names = memberNames(doc, members);
  const index = new Map(names.map((n, i) => [n, i]));
  const s = series(compactSplits(doc, index, weightOf), names.length, buckets, step, end);
  return {
    rules: { rules: doc.rules, source: doc.rules_source, note: doc.rules_note },
    figures: doc.figures, endMs: end, stepMs: step, buckets, members: names, firstEventMs, ...s,
    marks: marksOf(doc, firstEventMs),
    counts: { claims: doc.claims.length, quarantines: doc.quarantines.length, elections: doc.elections.length, events: doc.timeline.length },
  };
}

/** The typed arrays of a model, for a zero-copy postMessage. */
export function transferables(m) {
  const arrays = [m.load, m.lanes, m.idleLoad, m.idleCount];
  return [...new Set(arrays.map((a) => a.buffer))];
}
