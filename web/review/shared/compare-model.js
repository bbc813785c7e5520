// What the Compare view shows of a comparison (`Planner.compare`, the document of
// `spate-planner diff --json`), computed without the DOM: the two snapshots side by side, the
// leader's decision checked, the caps that changed, each member's load before and after.
// Splits stay in the core's order; members are shown in natural order (worker-2 before
// worker-10), and sorted by any column for display only.
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
    plain('max / mean planned', b.max_over_mean_planned.toFixed(4), a.max_over_mean_planned.toFixed(4)),
    plain('queued', thousands(b.queued), thousands(a.queued)),
    plain('moves pending', thousands(b.moves), thousands(a.moves)),
    bytes('weight those moves carry', b.bytes_moved, a.bytes_moved),
    plain('completed', thousands(b.completed), thousands(a.completed)),
    plain('quarantined', thousands(b.quarantined), thousands(a.quarantined)),
  ];
}

/** Whether the later published assignment is the earlier state's plan: { level, text, count }. */
export function decisionVerdict(d) {
  const n = Object.keys(d.decision.differences).length;
  if (!d.decision.published) return { level: 'none', count: n, text: 'The later snapshot has no published assignment (no assign.* records) to check against the planner.' };
  if (d.decision.matches) return { level: 'ok', count: 0, text: 'The later published assignment is exactly what the planner decided from the earlier snapshot.' };
  return { level: 'differs', count: n, text: `The later published assignment differs from what the planner decided from the earlier snapshot for ${thousands(n)} split${n === 1 ? '' : 's'}.` };
}

/** Members on both sides whose cap changed: [{ name, before, after }]. */
export function capChanges(d) {
  return d.members.filter((m) => m.cap_before !== null && m.cap_after !== null && m.cap_before !== m.cap_after)
    .map((m) => ({ name: m.name, before: m.cap_before, after: m.cap_after }));
}

/** Rows of the members table: loads as BigInt (null: not a member on that side). */
export function memberLoads(d) {
  return d.members.map((m) => {
    const before = m.load_before === null ? null : big(m.load_before);
    const after = m.load_after === null ? null : big(m.load_after);
    const change = (after ?? 0n) - (before ?? 0n);
    return { name: m.name, before, after, change, capBefore: m.cap_before, capAfter: m.cap_after };
  });
}

/** The largest load on either side (the bars' scale). */
export function maxLoad(rows) {
  let max = 0n;
  for (const r of rows) for (const v of [r.before, r.after]) if (v !== null && v > max) max = v;
  return max;
}

/** "+1.50 GiB", "−512 MiB", "±0 B". */
export function signedBytes(v) {
  const sign = v > 0n ? '+' : v < 0n ? '−' : '±';
  return `${sign}${humanBytes(v < 0n ? -v : v)}`;
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

/**
 * Whether "before" is earlier than "after": null when it is, else a warning sentence (taken at
 * the same instant, or later: the comparison runs backwards).
 */
export function orderWarning(d) {
  const b = big(d.before.taken_at_ms);
  const a = big(d.after.taken_at_ms);
  if (b < a) return null;
  const when = `"before" was taken ${utc(d.before.taken_at_ms)}, the snapshot shown ${utc(d.after.taken_at_ms)}`;
  return b === a
    ? `"Before" is not earlier than the snapshot shown: both were taken at the same instant (${utc(d.after.taken_at_ms)}), so nothing happened between them.`
    : `"Before" is not earlier than the snapshot shown: ${when}. The comparison runs backwards: joined and left, and every change, read the wrong way round; open the earlier snapshot as "before".`;
}
