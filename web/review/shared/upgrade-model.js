// What the Upgrade view shows of the core's side by side of the two releases' rules
// (`Planner.diffRules`, the document of `spate-planner diff-rules --json`), without the DOM: each
// figure of both sides as text, with the core's own value kept beside it. Nothing is computed
// here: every figure is the document's.
import { humanBytes, exactBytes, thousands } from '../../common/shared/format.js';

/** The document's two sides, in the order shown. */
export const SIDES = ['v0_1', 'v0_3'];

const count = (v) => thousands(v);
const bytes = (v) => humanBytes(v);
const yesNo = (v) => (v ? 'yes' : 'no');

/** [key, label, the side's value, its text, its exact text (a title) or null]. */
const FIGURES = [
  ['moves', 'moves (splits that change hands)', (s) => s.churn.moves, count],
  ['weight_moved', 'weight those moves carry', (s) => s.churn.weight_moved, bytes, exactBytes],
  ['reassigned', 'reassigned (planned elsewhere than the last publish named)', (s) => s.reassigned, count],
  ['weight_reassigned', 'weight reassigned', (s) => s.weight_reassigned, bytes, exactBytes],
  ['queued', 'queued', (s) => s.queued, count],
  ['max_load', 'max load planned', (s) => s.max_load, bytes, exactBytes],
  ['max_over_mean', 'max / mean planned', (s) => s.max_over_mean, String],
  ['improving_moves', 'improving moves', (s) => s.improving_moves, count],
  ['bound_hit', 'move bound hit', (s) => s.bound_hit, yesNo],
];

/**
 * The figures of both sides: [{ key, label, cells: [{ value, text, exact }] }], `value` the
 * document's own (a decimal string for a u64), `text` as shown.
 */
export function upgradeRows(d) {
  return FIGURES.map(([key, label, get, text, exact]) => ({
    key,
    label,
    cells: SIDES.map((k) => {
      const v = get(d[k]);
      return { value: String(v), text: text(v), exact: exact ? exact(v) : null };
    }),
  }));
}

/** A side's column heading: its release, and "today" for the one the store (or the person) names. */
export function sideTitle(d, k) {
  const today = d.today.rules === d[k].rules;
  return `Spate ${d[k].rules}${d[k].rules === '0.1' ? ' / 0.2' : ''}${today ? ' (today)' : ''}`;
}

/** The sentence under the heading: which side is today and why (the core's words). */
export function todayText(d) {
  return `Today: ${d.today_note}.`;
}
