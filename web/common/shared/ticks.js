// Axis ticks in round binary units (1, 2, 5 × 1024^k bytes): the fleet chart's and the
// Timeline's load axes.
import { humanBytes } from './format.js';

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
