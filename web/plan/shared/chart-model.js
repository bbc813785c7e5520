// What the fleet chart shows, computed without the DOM: rows in order, the top-N fold, the
// scale (axis ticks in round binary units, common/shared/ticks.js), and the words for each member.
import { humanBytes, exactBytes, times } from '../../common/shared/format.js';
import { ticks } from '../../common/shared/ticks.js';
import { sortRows } from '../../common/shared/sort.js';
import { OVER } from '../../common/shared/summary.js';

/** Members shown before the rest are folded, when the fleet is larger than FOLD_OVER. */
export const TOP_N = 25;
export const FOLD_OVER = 40;

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
