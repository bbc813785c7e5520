// The Claims view's words (the core's claims document: per live member its actions, drains and
// circumstances): who acts, who has nothing to do, and what "skipped" means for each. No DOM.
import { plural, thousands } from '../../common/shared/format.js';

/**
 * A worker acts when its next reconcile claims, quarantines or drains something, or drops a
 * split it was fenced from (its lease is behind the split's progress record).
 */
export function acts(doc, name) {
  return [doc.claims, doc.drains, doc.fenced].some((m) => (m?.[name]?.length || 0) > 0);
}

/** A worker's fenced splits in words: not held, not drained, no lane of its cap. '' for none. */
export function fencedText(splits) {
  if (!splits?.length) return '';
  return `fenced, dropped at its next look (each lease is behind the split's progress record: not held, not drained, no lane): ${splits.join(', ')}`;
}

/**
 * Why a worker passed candidates over, in words. A candidate is skipped when it is a claim of a
 * split its assignment does not name, or when its lanes are full (held plus claims taken reach
 * its cap); quarantines are never skipped. '' when nothing was skipped.
 */
export function skippedText(w, actions) {
  if (!w.skipped) return '';
  const n = plural(w.skipped, 'candidate');
  if (!w.has_assignment) return `${n} skipped: it has no assignment record, so it claims nothing`;
  const claims = actions.filter((a) => a.action === 'claim').length;
  if (w.held + claims < w.cap) return `${n} skipped: not in its assignment`;
  return `${n} skipped: not in its assignment, or beyond its cap of ${thousands(w.cap)} lanes`;
}

/** One line of a worker's circumstances: lanes, assignment, what it skipped. */
export function workerFacts(w, actions) {
  const skipped = skippedText(w, actions);
  return `holds ${thousands(w.held)} of ${thousands(w.cap)} lanes; ${w.has_assignment ? 'has an assignment' : 'no assignment record'}${skipped ? `; ${skipped}` : ''}`;
}

/** The view's first line: members, actions, where they act from, and how many have nothing to do. */
export function claimsSummary(doc, names, idle) {
  const total = names.reduce((n, x) => n + (doc.claims[x]?.length || 0), 0);
  const source = doc.assignment_source === 'plan' ? 'the plan' : 'the published records';
  const head = `${plural(names.length, 'live member')}, ${plural(total, 'action')} (acting on ${source}; max_attempts ${doc.max_attempts}).`;
  return idle ? `${head} ${thousands(idle)} of them ${idle === 1 ? 'has' : 'have'} nothing to claim, quarantine, drain or drop.` : head;
}
