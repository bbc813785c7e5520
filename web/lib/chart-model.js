// What the fleet chart shows, computed without the DOM: rows in order, the top-N fold, the
// scale, axis ticks in round binary units, and the words for each member.
import { humanBytes, exactBytes, times } from './format.js';
import { sortRows } from './sort.js';
import { OVER } from './summary.js';

/** Members shown before the rest are folded, when the fleet is larger than FOLD_OVER. */
export const TOP_N = 25;
export const FOLD_OVER = 40;

/** Round steps: 1, 2, 5 × 1024^k bytes. */
function niceStep(max, count) {
  const raw = Number(max) / Math.max(1, count);
  let unit = 1;
  while (unit * 1024 <= raw) unit *= 1024;
  for (const m of [1, 2, 5, 10, 20, 50, 100, 200, 500]) if (unit * m >= raw) return unit * m;
  return unit * 1024;
}

/** Axis ticks from 0 to at least `max` (a bigint): [{ value, label, at (0..1) }] and the scale end. */
export function ticks(max, count = 5) {
  const m = Number(max > 0n ? max : 1n);
  const step = niceStep(m, count);
  const end = Math.ceil(m / step) * step;
  const out = [];
  for (let v = 0; v <= end + step / 2; v += step) out.push({ value: v, label: humanBytes(BigInt(Math.round(v))), at: v / end });
  return { ticks: out, end };
}

/** Labels of a member for the tooltip and for assistive technology. */
export function describeMember(r, mean) {
  const change = r.planned - r.now;
  const sign = change > 0n ? '+' : change < 0n ? '−' : '±';
  const abs = change < 0n ? -change : change;
  const over = mean > 0 && Number(r.planned) > mean * OVER;
  const full = r.cap > 0 && r.lanes >= r.cap;
  return {
    short: `${r.name}: now ${humanBytes(r.now)}, planned ${humanBytes(r.planned)}; lanes ${r.lanes} of ${r.cap}${full ? ', full' : ''}${over ? ', more than 5% over the mean' : ''}`,
    lines: [
      `now ${humanBytes(r.now)} (${exactBytes(r.now)})`,
      `planned ${humanBytes(r.planned)} (${exactBytes(r.planned)}), ${mean ? times(Number(r.planned) / mean) : '—'} the mean`,
      `change ${sign}${humanBytes(abs)}: gains ${r.gained} split${r.gained === 1 ? '' : 's'}, loses ${r.lost}`,
      `lanes ${r.lanes} of ${r.cap}${r.defaultCap ? " (the leader's default cap)" : ''}${full ? ': every lane used' : ''}`,
    ],
    over,
    full,
  };
}

/**
 * The chart's model: rows sorted by `order`; when there are more than FOLD_OVER and not
 * `all`, the first TOP_N (and the focused member) with the rest folded.
 */
export function chartModel(rows, { order = 'name', all = false, focus = null, tickCount = 5 } = {}) {
  const sorted = sortRows(rows, order);
  const n = BigInt(Math.max(1, rows.length));
  const totalPlanned = rows.reduce((t, r) => t + r.planned, 0n);
  const mean = rows.length ? Number(totalPlanned) / rows.length : 0;
  let max = 0n;
  for (const r of rows) {
    if (r.now > max) max = r.now;
    if (r.planned > max) max = r.planned;
  }
  const scale = ticks(max, tickCount);
  const fold = !all && rows.length > FOLD_OVER;
  const shown = fold ? sorted.filter((r, i) => i < TOP_N || r.name === focus) : sorted;
  return {
    rows: shown,
    folded: sorted.length - shown.length,
    total: sorted.length,
    mean,
    meanBig: totalPlanned / n,
    end: scale.end,
    ticks: scale.ticks,
    at: (v) => Number(v) / scale.end,
  };
}
