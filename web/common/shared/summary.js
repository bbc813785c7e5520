// The figures of the summary strip, computed from a plan view: who is overloaded now and after
// the plan. Loads are exact (BigInt); ratios are for display. No DOM here.
import { big } from './format.js';

/** "Over the mean" counts members more than 5% above it (a byte above is not news). */
export const OVER = 1.05;

function ratioOf(a, b) {
  return b === 0n ? (a === 0n ? 1 : Infinity) : Number(a) / Number(b);
}

/** Chart and summary rows of a view's members: loads as BigInt. */
export function memberRows(view) {
  return view.report.members.map((m) => ({
    name: m.name,
    cap: m.cap,
    defaultCap: m.default_cap,
    lanes: m.lanes,
    lanesNow: m.lanes_now,
    now: big(m.load_now),
    planned: big(m.load_planned),
    gained: m.gained,
    lost: m.lost,
  }));
}

function side(rows, key, lanesKey) {
  const n = BigInt(rows.length);
  const total = rows.reduce((t, r) => t + r[key], 0n);
  const mean = n ? total / n : 0n;
  const meanExact = rows.length ? Number(total) / rows.length : 0;
  let max = 0n;
  for (const r of rows) if (r[key] > max) max = r[key];
  return {
    total,
    mean,
    max,
    maxOverMean: meanExact ? Number(max) / meanExact : (max === 0n ? 1 : Infinity),
    overMean: rows.filter((r) => Number(r[key]) > meanExact * OVER).length,
    full: rows.filter((r) => r.cap > 0 && r[lanesKey] >= r.cap).length,
  };
}

/**
 * { members, now, planned, worst, moves, weightMoved, published, publishes } for a plan view.
 * `worst` is today's heaviest member (natural tie-break: the first in the core's order).
 */
export function summarize(view) {
  const rows = memberRows(view);
  const now = side(rows, 'now', 'lanesNow');
  const planned = side(rows, 'planned', 'lanes');
  let worst = null;
  for (const r of rows) if (!worst || r.now > worst.now) worst = r;
  return {
    members: rows.length,
    now,
    planned,
    worst: worst && {
      name: worst.name,
      now: worst.now,
      planned: worst.planned,
      ratioNow: ratioOf(worst.now * BigInt(rows.length), now.total),
      ratioPlanned: ratioOf(worst.planned * BigInt(rows.length), planned.total),
    },
    moves: view.report.churn.moves,
    weightMoved: big(view.report.churn.weight_moved),
    publishes: view.leader_publishes,
    noPublishReason: view.no_publish_reason,
    published: view.published,
  };
}
