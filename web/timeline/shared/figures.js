// The simulation's headline figures as text, for configuration A, B and their difference (the
// Timeline's table and the Markdown report). Exact values stay as the document gives them
// (idle_weighted is a decimal string beyond 2^53). No DOM.
import { humanBytes, thousands } from '../../common/shared/format.js';
import { duration } from './script.js';

/** key, label, kind (ms | count | byte_ms), and the words for the table's hover. */
export const FIGURES = [
  ['recovery_ms', 'recovery', 'ms', 'From the first event until every split the events took (running on a member as it crashed or stopped, or failed) runs again (or has completed) and keeps running to the end.'],
  ['idle_split_ms', 'idle split-seconds', 'split_ms', 'Sum over splits of the time they were runnable and read by nobody (unheld, queued, withheld, or held by a dead process).'],
  ['idle_weighted', 'idle work (weighted)', 'byte_ms', 'The same, each split weighted by its size (at least 1 byte): bytes × seconds of work nobody read.'],
  ['attempts_burned', 'attempts burned', 'count', 'Attempts consumed: reclaims, expired takeovers, quarantines and failures.'],
  ['splits_quarantined', 'quarantined', 'count', 'Splits quarantined (attempts exhausted), by a scan or a failure.'],
  ['moves', 'moves', 'count', "Claims by another worker than the split's previous holder."],
  ['forced_drains', 'forced drains', 'count', 'Releases forced by the drain deadline or a declined revocation.'],
  ['replayed_ms', 'work replayed', 'ms', "Per forced drain, the time since the split's last commit: work the next owner reads again."],
  ['leadership_gap_ms', 'leadership gap', 'ms', 'Time with no live leader, in all.'],
  ['longest_leadership_gap_ms', 'longest leadership gap', 'ms', 'The longest stretch with no live leader.'],
  ['elections', 'elections', 'count', 'Leader elections.'],
  ['publishes', 'publishes', 'count', 'Steps in which the leader wrote at least one assignment record.'],
  ['claims', 'claims', 'count', 'Claims of splits, by every worker.'],
];

function signed(neg, text) {
  return `${neg ? '−' : '+'}${text}`;
}

/** A figure's value as text. `recovery_ms` null: not recovered by the end (or no events). */
export function figureText(kind, value, { hasEvents = true } = {}) {
  if (value === null || value === undefined) return hasEvents ? 'not recovered' : 'no events';
  switch (kind) {
    case 'ms': return duration(value);
    case 'split_ms': return `${thousands(Math.round(Number(value) / 1000))} split-s`;
    case 'byte_ms': return `${humanBytes(BigInt(value) / 1000n)}·s`;
    default: return thousands(value);
  }
}

/** B − A as text ('same' when equal; '—' when either is missing). */
export function differenceText(kind, a, b) {
  if (a === null || a === undefined || b === null || b === undefined) return '—';
  const d = BigInt(b) - BigInt(a);
  if (d === 0n) return 'same';
  const abs = d < 0n ? -d : d;
  switch (kind) {
    case 'ms': return signed(d < 0n, duration(Number(abs)));
    case 'split_ms': return signed(d < 0n, `${thousands(Math.round(Number(abs) / 1000))} split-s`);
    case 'byte_ms': return signed(d < 0n, `${humanBytes(abs / 1000n)}·s`);
    default: return signed(d < 0n, thousands(abs));
  }
}

/**
 * Rows of the figures table: { key, label, help, a, b, diff (texts), rawA, rawB (as in the
 * document) }; b and diff are null without configuration B.
 */
export function figureRows(figA, figB = null, { hasEvents = true } = {}) {
  return FIGURES.map(([key, label, kind, help]) => ({
    key, label, help,
    rawA: figA[key], rawB: figB ? figB[key] : null,
    a: figureText(kind, figA[key], { hasEvents }),
    b: figB ? figureText(kind, figB[key], { hasEvents }) : null,
    diff: figB ? differenceText(kind, figA[key], figB[key]) : null,
  }));
}
