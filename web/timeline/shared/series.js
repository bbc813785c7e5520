// What the Timeline's chart stacks, from a run's model (model.js): the members the simulator
// draws one by one and the rest it folds (SimRun.series: charts), and the idle work on top, in
// the shapes the SVG draws; the scales and the time ticks. No DOM, and no choice of members.
import { ticks as byteTicks } from '../../common/shared/ticks.js';
import { clock } from './script.js';

/** The values of `row` of a members × buckets array. */
export function rowOf(values, row, buckets) {
  return values.subarray(row * buckets, (row + 1) * buckets);
}

/** The idle work's layer of a model's chart of `metric`. */
function idleLayer(model, metric) {
  return { key: 'idle', label: model.idleLabel, kind: 'idle', values: metric === 'load' ? model.idleLoad : model.idleCount };
}

/** The members a model's chart of `metric` draws one by one (SimChart.shown), as layers or lines. */
function memberLayers(model, metric) {
  const values = model[metric];
  return model.charts[metric].shown.map((i, slot) => ({ key: model.members[i], label: model.members[i], kind: 'member', slot, values: rowOf(values, i, model.buckets) }));
}

/**
 * The stack, bottom to top: the folded rest (when any: its sum), each member drawn one by one,
 * the idle work; what is folded and the names are the simulator's (SimRun.series: charts).
 * [{ key, label, kind: rest | member | idle, slot (colour index of a member), values }].
 */
export function layers(model, metric = 'load') {
  const rest = model.charts[metric].rest;
  return [
    ...(rest ? [{ key: 'rest', label: rest.label, kind: 'rest', values: rest.sum, count: rest.count }] : []),
    ...memberLayers(model, metric),
    idleLayer(model, metric),
  ];
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

/**
 * Per-member lines: each member drawn one by one, the folded rest as its middle 80% and its mean
 * (the simulator's: SimFolded lo, hi, mean), and the idle work (drawn as an area from zero).
 * { lines: [{ key, label, kind: member, slot, values }], rest: { label, count, lo, hi, mean } | null, idle }.
 */
export function lines(model, metric = 'load') {
  const r = model.charts[metric].rest;
  return {
    lines: memberLayers(model, metric),
    rest: r ? { key: 'rest', kind: 'rest', count: r.count, lo: r.lo, hi: r.hi, mean: r.mean, label: r.bandLabel } : null,
    idle: idleLayer(model, metric),
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

/** Stacked areas while every member is drawn; lines once the simulator folds the rest. */
export function defaultMode(model) {
  return model.charts.load.rest ? 'lines' : 'stack';
}

/**
 * The views of several runs (A, B) in one mode; each run's chart draws the members A's does
 * (the worker asks B's series for A's names).
 */
export function chartViews(models, metric, mode) {
  return models.map((m) => (mode === 'stack' ? layers(m, metric) : lines(m, metric)));
}

/** The highest value a view draws. */
export function viewMax(view) {
  return Array.isArray(view) ? stackMax(view) : linesMax(view);
}
