// Sentences for people: errors with where they apply, and what a plan changed.
import { describe } from './scenario.js';
import { plural } from './format.js';

/** A page message from an error: { level, title, text, code, where }. */
export function errorMessage(e, title, level = 'error') {
  const where = [e.bucket && `bucket ${e.bucket}`, e.key && `key ${e.key}`, e.path && `at ${e.path}`].filter(Boolean).join(', ');
  return { level, title, text: e.message || String(e), code: e.code || '', where };
}

/** Errors no person needs to see: a result for a fleet or a load that was replaced. */
export function isSuperseded(e) {
  return e?.code === 'stale' || e?.code === 'superseded' || e?.code === 'closed';
}

/** "max/mean 1.312 now → 1.104 planned, 45 moves" for a plan view (its summary's figures). */
export function planSentence(view) {
  const s = view.summary;
  return `max/mean ${s.now.max_over_mean} now → ${s.planned.max_over_mean} planned, ${plural(s.moves, 'move')}`;
}

/** The message for changes a scenario could not apply (link or snapshot change). */
export function failuresMessage(scenario, failures, where) {
  if (!failures.length) return null;
  const parts = failures.map((f) => (f.index < 0
    ? `the settings (${f.message})`
    : `change ${f.index + 1} (${describe(scenario.changes[f.index], f)}): ${f.message}`));
  return {
    level: 'warning',
    title: `${failures.length === 1 ? 'A change' : `${failures.length} changes`} ${where} no longer appl${failures.length === 1 ? 'ies' : 'y'}; the rest are shown`,
    text: parts.join('; '),
    code: failures[0].code,
    where: failures[0].path ? `at ${failures[0].path}` : '',
  };
}

/** The message for a link made on another snapshot. */
export function otherSnapshotMessage(linkSnapshot, shown) {
  return {
    level: 'warning',
    title: 'This link was made on another snapshot',
    text: `It names snapshot ${linkSnapshot}; this page shows ${shown}. Its changes are applied where they still apply.`,
    code: 'other_snapshot',
    where: '',
  };
}
