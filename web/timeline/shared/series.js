// What the Timeline's chart stacks, from a run's model (model.js): the members shown one by one
// (those the script touches first, then those whose load changes most), the rest folded into
// one band, and the idle work on top; the scales and the time ticks. No DOM.
import { ticks as byteTicks } from '../../common/shared/ticks.js';
import { clock } from './script.js';

/** Members drawn one by one before the rest are folded. */
export const TOP_MEMBERS = 8;

/** The values of `row` of a members × buckets array. */
export function rowOf(values, row, buckets) {
  return values.subarray(row * buckets, (row + 1) * buckets);
}

function range(values) {
  let lo = Infinity;
  let hi = -Infinity;
  for (const v of values) { if (v < lo) lo = v; if (v > hi) hi = v; }
  return values.length ? hi - lo : 0;
}

/** Members the marks name (crashed, stopped, started, cap changed), in order of first mark. */
function touched(model) {
  const out = [];
  for (const m of model.marks) {
    if (!['crash', 'stop', 'start', 'cap'].includes(m.kind)) continue;
    for (const w of m.who) if (!out.includes(w)) out.push(w);
  }
  return out;
}

/**
 * The members shown one by one: all of them when at most `top` + 1, else those the script
 * touches, then the largest change over the run (ties by order of appearance), `top` in all.
 */
export function pickMembers(model, metric = 'load', top = TOP_MEMBERS) {
  const n = model.members.length;
  if (n <= top + 1) return model.members.map((_, i) => i);
  const values = model[metric];
  const first = touched(model).map((w) => model.members.indexOf(w)).filter((i) => i >= 0);
  const rest = model.members.map((_, i) => i).filter((i) => !first.includes(i))
    .map((i) => ({ i, change: range(rowOf(values, i, model.buckets)) }))
    .sort((a, b) => b.change - a.change || a.i - b.i)
    .map((x) => x.i);
  return [...first, ...rest].slice(0, top).sort((a, b) => a - b);
}

/**
 * The stack, bottom to top: the folded rest (when any), each shown member, the idle work.
 * [{ key, label, kind: rest | member | idle, slot (colour index of a member), values }].
 */
export function layers(model, metric = 'load', shown = pickMembers(model, metric)) {
  const K = model.buckets;
  const values = model[metric];
  const out = [];
  const folded = model.members.map((_, i) => i).filter((i) => !shown.includes(i));
  if (folded.length) {
    const sum = new Float64Array(K);
    for (const i of folded) {
      const row = rowOf(values, i, K);
      for (let k = 0; k < K; k++) sum[k] += row[k];
    }
    out.push({ key: 'rest', label: `${folded.length} other member${folded.length === 1 ? '' : 's'}`, kind: 'rest', values: sum, count: folded.length });
  }
  shown.forEach((i, slot) => out.push({ key: model.members[i], label: model.members[i], kind: 'member', slot, values: rowOf(values, i, K) }));
  out.push({ key: 'idle', label: 'idle (runnable, read by nobody)', kind: 'idle', values: metric === 'load' ? model.idleLoad : model.idleCount });
  return out;
}

/** The highest total of a stack. */
export function stackMax(stack) {
  const K = stack[0]?.values.length ?? 0;
  let max = 0;
  for (let k = 0; k < K; k++) {
    let t = 0;
    for (const l of stack) t += l.values[k];
    if (t > max) max = t;
  }
  return max;
}

/** Round steps 1, 2, 5 × 10^k for counts: ticks from 0 to at least `max`. */
export function countTicks(max, count = 4) {
  const raw = Math.max(1, max) / count;
  const pow = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * pow).find((s) => s >= raw);
  const end = Math.max(step, Math.ceil(max / step) * step);
  const out = [];
  for (let v = 0; v <= end + step / 2; v += step) out.push({ value: v, label: String(Math.round(v)), at: v / end });
  return { ticks: out, end };
}

/** The vertical scale of a metric: bytes in binary units, lanes as counts. */
export function valueScale(max, metric, count = 4) {
  return metric === 'load' ? byteTicks(BigInt(Math.ceil(max)), count) : countTicks(max, count);
}

const TIME_STEPS_S = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 14400, 21600, 43200, 86400];

/** Time ticks from `fromMs` to `toMs`, about `count` of them at round steps: [{ t, label }]. */
export function timeTicks(fromMs, toMs, count = 6) {
  const raw = (toMs - fromMs) / 1000 / Math.max(1, count);
  const step = (TIME_STEPS_S.find((s) => s >= raw) ?? Math.ceil(raw / 86400) * 86400) * 1000;
  const out = [];
  for (let t = Math.ceil(fromMs / step) * step; t <= toMs; t += step) out.push({ t, label: clock(t) });
  return out;
}

const WINDOW_MARKS = new Set(['crash', 'stop', 'start', 'cap', 'splits', 'fail', 'election', 'parked', 'recovered']);

/**
 * The stretch of the runs where things happen: from a little before the first event to a
 * while after the last event, election or recovery (A's and B's alike), in whole seconds; null
 * without events, or when that stretch is most of the run anyway.
 */
export function eventWindow(models) {
  const end = Math.max(...models.map((m) => m.endMs));
  const times = models.flatMap((m) => m.marks.filter((k) => WINDOW_MARKS.has(k.kind)).map((k) => k.t_ms));
  if (!times.length) return null;
  const first = Math.min(...times);
  const last = Math.max(...times);
  const pad = Math.max(10000, (last - first) * 0.1);
  const from = Math.max(0, Math.floor((first - pad) / 1000) * 1000);
  const to = Math.min(end, Math.ceil((last + 3 * pad) / 1000) * 1000);
  return to - from > 0.7 * end ? null : [from, to];
}

/**
 * A stacked band as polygon points: the top edge left to right, then the lower edge back, as
 * steps (each bucket flat over its width); equal neighbouring buckets are merged.
 * x(k): the left edge of bucket k (k = K is the right end); y(v): the height of v.
 */
export function bandPoints(lower, values, x, y) {
  const K = values.length;
  const top = [];
  const bottom = [];
  for (let k = 0; k < K; k++) {
    const hi = lower[k] + values[k];
    if (k === 0 || hi !== lower[k - 1] + values[k - 1]) top.push([x(k), y(hi)]);
    if (k === K - 1 || hi !== lower[k + 1] + values[k + 1]) top.push([x(k + 1), y(hi)]);
    if (k === 0 || lower[k] !== lower[k - 1]) bottom.push([x(k), y(lower[k])]);
    if (k === K - 1 || lower[k] !== lower[k + 1]) bottom.push([x(k + 1), y(lower[k])]);
  }
  return [...top, ...bottom.reverse()];
}

/** The value at quantile `q` (0 … 1) of sorted values (nearest rank). */
export function quantile(sorted, q) {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

/** Per bucket, the 10th and 90th percentiles and the mean of the members `rows` (a members × buckets array). */
export function spread(values, rows, K) {
  const lo = new Float64Array(K);
  const hi = new Float64Array(K);
  const mean = new Float64Array(K);
  const at = new Float64Array(rows.length);
  for (let k = 0; k < K; k++) {
    let sum = 0;
    rows.forEach((i, j) => { at[j] = values[i * K + k]; sum += at[j]; });
    at.sort();
    lo[k] = quantile(at, 0.1);
    hi[k] = quantile(at, 0.9);
    mean[k] = sum / rows.length;
  }
  return { lo, hi, mean };
}

/**
 * Per-member lines: each shown member's values, the folded rest as its middle 80% (10th to 90th
 * percentile at each bucket, so a few stopped members do not stretch it) and its mean, and the
 * idle work (drawn as an area from zero).
 * { lines: [{ key, label, kind: member, slot, values }], rest: { label, count, lo, hi, mean } | null, idle }.
 */
export function lines(model, metric = 'load', shown = pickMembers(model, metric)) {
  const K = model.buckets;
  const values = model[metric];
  const folded = model.members.map((_, i) => i).filter((i) => !shown.includes(i));
  const rest = folded.length ? {
    key: 'rest', kind: 'rest', count: folded.length, ...spread(values, folded, K),
    label: `${folded.length} other member${folded.length === 1 ? '' : 's'}: middle 80% and mean`,
  } : null;
  return {
    lines: shown.map((i, slot) => ({ key: model.members[i], label: model.members[i], kind: 'member', slot, values: rowOf(values, i, K) })),
    rest,
    idle: { key: 'idle', kind: 'idle', label: 'idle (runnable, read by nobody)', values: metric === 'load' ? model.idleLoad : model.idleCount },
  };
}

function maxOf(arrays) {
  let max = 0;
  for (const values of arrays) for (const v of values) if (v > max) max = v;
  return max;
}

/** The highest value of a lines view's members (its idle work has its own panel). */
export function linesMax(view) {
  return maxOf([...view.lines.map((l) => l.values), ...(view.rest ? [view.rest.hi, view.rest.mean] : [])]);
}

/** The most idle work a view draws. */
export function idleMax(view) {
  return maxOf([Array.isArray(view) ? view[view.length - 1].values : view.idle.values]);
}

/** A step line's points: each bucket flat over its width, equal neighbours merged. */
export function stepPoints(values, x, y) {
  const K = values.length;
  const out = [];
  for (let k = 0; k < K; k++) {
    if (k === 0 || values[k] !== values[k - 1]) out.push([x(k), y(values[k])]);
    if (k === K - 1 || values[k] !== values[k + 1]) out.push([x(k + 1), y(values[k])]);
  }
  return out;
}

/** The layers a legend lists for a view, top of the drawing first. */
export function legendLayers(view) {
  if (Array.isArray(view)) return [...view].reverse();
  return [view.idle, ...(view.rest ? [view.rest] : []), ...view.lines];
}

/** Stacked areas while every member fits; lines once the rest is folded. */
export function defaultMode(model) {
  return model.members.length > TOP_MEMBERS + 1 ? 'lines' : 'stack';
}

/** The views of several runs (A, B) in one mode, the same members shown (picked in the first). */
export function chartViews(models, metric, mode) {
  const names = pickMembers(models[0], metric).map((i) => models[0].members[i]);
  return models.map((m) => {
    const shown = names.map((n) => m.members.indexOf(n)).filter((i) => i >= 0);
    return mode === 'stack' ? layers(m, metric, shown) : lines(m, metric, shown);
  });
}

/** The highest value a view draws. */
export function viewMax(view) {
  return Array.isArray(view) ? stackMax(view) : linesMax(view);
}
