// What the Compare view shows of a comparison (`Planner.compare`, the document of
// `spate-planner diff --json`), without the DOM: the two snapshots side by side, the leader's
// decision checked, the caps that changed, each member's load before and after and its change,
// whether "before" is earlier — every figure and verdict the core's, written here. Splits stay in
// the core's order; members are shown in natural order (worker-2 before worker-10), and sorted
// by any column for display only.
import { humanBytes, exactBytes, thousands, utc, big } from '../../common/shared/format.js';
import { naturalCompare } from '../../common/shared/sort.js';

/** A side's rules as the table shows them: the release, and whether the user picked it. */
const rulesText = (r) => `Spate ${r.rules}${r.source === 'user' ? ' (picked)' : ''}`;

/** [label, before, after, exact before, exact after] of the two snapshots and their figures. */
export function sideBySide(d) {
  const b = d.figures_before;
  const a = d.figures_after;
  const bytes = (label, x, y) => [label, humanBytes(x), humanBytes(y), exactBytes(x), exactBytes(y)];
  const plain = (label, x, y) => [label, String(x), String(y)];
  return [
    plain('job', d.before.job, d.after.job),
    plain('taken at', utc(d.before.taken_at_ms), utc(d.after.taken_at_ms)),
    plain('plan generation', d.before.plan_generation ?? 'none', d.after.plan_generation ?? 'none'),
    plain('rules', rulesText(d.before.rules), rulesText(d.after.rules)),
    plain('members', thousands(d.before.members), thousands(d.after.members)),
    plain('splits', thousands(d.before.splits), thousands(d.after.splits)),
    bytes('max load now', b.max_load_now, a.max_load_now),
    bytes('max load planned', b.max_load_planned, a.max_load_planned),
    plain('max / mean planned', b.max_over_mean_planned, a.max_over_mean_planned),
    plain('queued', thousands(b.queued), thousands(a.queued)),
    plain('moves pending', thousands(b.moves), thousands(a.moves)),
    bytes('weight those moves carry', b.bytes_moved, a.bytes_moved),
    plain('completed', thousands(b.completed), thousands(a.completed)),
    plain('quarantined', thousands(b.quarantined), thousands(a.quarantined)),
  ];
}

/** Whether the later published assignment is the earlier state's plan (the core's check): { level, text, count }. */
export function decisionVerdict(d) {
  const c = d.decision;
  const level = !c.published ? 'none' : c.matches ? 'ok' : 'differs';
  return { level, count: c.differing, text: c.verdict };
}

/** Rows of the members table: loads as BigInt (null: not a member on that side), the core's change. */
export function memberLoads(d) {
  return d.members.map((m) => ({
    name: m.name,
    before: m.load_before === null ? null : big(m.load_before),
    after: m.load_after === null ? null : big(m.load_after),
    change: big(m.load_change),
    capBefore: m.cap_before,
    capAfter: m.cap_after,
  }));
}

/** The largest load on either side (the bars' scale). */
export function maxLoad(rows) {
  let max = 0n;
  for (const r of rows) for (const v of [r.before, r.after]) if (v !== null && v > max) max = v;
  return max;
}

/** A cap on both sides: "96", "96 → 64", "— → 128". */
export function capText(r) {
  const c = (v) => (v === null ? '—' : String(v));
  return r.capBefore === r.capAfter ? c(r.capAfter) : `${c(r.capBefore)} → ${c(r.capAfter)}`;
}

/** A list of names for a sentence, or "none". */
export function names(list) {
  return list.length ? list.join(', ') : 'none';
}

/** BigInt (or number) order with null (not a member on that side) after every value. */
function nullsLast(x, y) {
  if (x === null || y === null) return (x === null) - (y === null);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** The members table's columns: [label, comparator of memberLoads rows (ties by name), first press descending]. */
export const MEMBER_COLUMNS = [
  ['member', (a, b) => naturalCompare(a.name, b.name), false],
  ['before', (a, b) => nullsLast(a.before, b.before) || naturalCompare(a.name, b.name), true],
  ['after', (a, b) => nullsLast(a.after, b.after) || naturalCompare(a.name, b.name), true],
  ['change', (a, b) => nullsLast(a.change, b.change) || naturalCompare(a.name, b.name), true],
  ['cap', (a, b) => nullsLast(a.capAfter, b.capAfter) || nullsLast(a.capBefore, b.capBefore) || naturalCompare(a.name, b.name), true],
];
