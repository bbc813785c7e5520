// The Claims view's words (the core's claims document: per live member its actions, drains,
// circumstances, whether it acts and why it skipped candidates; the totals). The judgements are
// the core's (`acts`, `skipped_why`, `totals`); these only write them. No DOM.
import { plural, thousands } from '../../common/shared/format.js';

/** A worker's fenced splits in words: not held, not drained, no lane of its cap. '' for none. */
export function fencedText(splits) {
  if (!splits?.length) return '';
  return `fenced, dropped at its next look (each lease is behind the split's progress record: not held, not drained, no lane): ${splits.join(', ')}`;
}

/** Why a worker passed candidates over (the core's `skipped_why`), with how many. '' when none. */
export function skippedText(w) {
  if (!w.skipped || !w.skipped_why) return '';
  return `${plural(w.skipped, 'candidate')} skipped: ${w.skipped_why}`;
}

/** One line of a worker's circumstances: lanes, assignment, what it skipped. */
export function workerFacts(w) {
  const skipped = skippedText(w);
  return `holds ${thousands(w.held)} of ${thousands(w.cap)} lanes; ${w.has_assignment ? 'has an assignment' : 'no assignment record'}${skipped ? `; ${skipped}` : ''}`;
}

/**
 * The view's first line: members, actions, where they act from, and (unless `focused`: one
 * member shown whatever it does) how many have nothing to do — the core's totals.
 */
export function claimsSummary(doc, focused = false) {
  const t = doc.totals;
  const source = doc.assignment_source === 'plan' ? 'the plan' : 'the published records';
  const head = `${plural(t.members, 'live member')}, ${plural(t.actions, 'action')} (acting on ${source}; max_attempts ${thousands(doc.max_attempts)}).`;
  if (focused || !t.idle) return head;
  return `${head} ${thousands(t.idle)} of them ${t.idle === 1 ? 'has' : 'have'} nothing to claim, quarantine, drain or drop.`;
}
