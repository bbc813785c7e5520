// The what-if scenario (docs/scenario-format.md) as the page holds it: settings and a list of
// changes. 64-bit fields (weights, counts, the rebalance delay) are kept as decimal strings and
// written into the scenario text as strings, which the core reads exactly. No DOM here.
import { humanBytes, thousands } from './format.js';

export const FORMAT = 'spate-planner-scenario/1';
const U64_FIELDS = ['weight', 'count', 'rebalance_delay_ms'];

/** The empty scenario. */
export function emptyScenario() {
  return { defaultCap: null, rebalanceDelayMs: null, rules: null, changes: [] };
}

/**
 * Scenario JSON text for the core, every change in it (the core leaves out those that do not
 * apply, and says why). u64 fields are decimal strings.
 */
export function scenarioText(s) {
  const doc = { format: FORMAT };
  if (s.defaultCap !== null && s.defaultCap !== undefined) doc.default_cap = s.defaultCap;
  if (s.rebalanceDelayMs !== null && s.rebalanceDelayMs !== undefined) doc.rebalance_delay_ms = String(s.rebalanceDelayMs);
  if (s.rules !== null && s.rules !== undefined) doc.rules = s.rules;
  doc.changes = s.changes;
  return JSON.stringify(doc, (k, v) => (U64_FIELDS.includes(k) && typeof v === 'number' ? String(v) : v));
}

function invalid(message) {
  return Object.assign(new Error(message), { code: 'invalid_scenario' });
}

/** Parses scenario text, keeping u64 fields exact (as strings). Throws code invalid_scenario. */
export function parseScenario(text) {
  // quote bare integers of u64 fields before JSON.parse can round them
  const quoted = String(text).replace(/(?<!\\)"(weight|count|rebalance_delay_ms)"(\s*:\s*)(\d+)/g, '"$1"$2"$3"');
  let doc;
  try {
    doc = JSON.parse(quoted);
  } catch (e) {
    throw invalid(`the scenario is not JSON: ${e.message}`);
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw invalid('a scenario is a JSON object');
  if (doc.format !== undefined && doc.format !== FORMAT) {
    throw Object.assign(new Error(`scenario format ${JSON.stringify(doc.format)} is not ${FORMAT}`), { code: 'unsupported_format' });
  }
  if (doc.changes !== undefined && !Array.isArray(doc.changes)) throw invalid('changes is a list');
  // each change as written: the core reads each on its own and refuses one it cannot read
  // (invalid_change, unknown_op), planning the others
  const changes = doc.changes || [];
  return {
    defaultCap: doc.default_cap === undefined || doc.default_cap === null ? null : Number(doc.default_cap),
    rebalanceDelayMs: doc.rebalance_delay_ms === undefined || doc.rebalance_delay_ms === null ? null : String(doc.rebalance_delay_ms),
    // the release whose rules decide (the core reads and checks it): null, the store's
    rules: doc.rules === undefined || doc.rules === null ? null : String(doc.rules),
    changes,
  };
}

/** True when a scenario has anything to keep (a setting or a change). */
export function hasContent(s) {
  return s.changes.length > 0 || s.defaultCap !== null || s.rebalanceDelayMs !== null || (s.rules ?? null) !== null;
}

const DEPARTURE = {
  crash: 'crashed just now (its splits withheld for the rebalance delay)',
  crash_after_delay: 'crashed longer ago than the rebalance delay',
  graceful: 'stopped gracefully (released what it held)',
};

/** The departure of a remove_member change, reading the older field too. */
export function departureOf(c) {
  if (c.departure) return c.departure;
  return c.within_rebalance_delay ? 'crash' : 'crash_after_delay';
}

/**
 * One line describing a change, for the list of changes; a change the core could not read
 * (`failure.code` invalid_change) as written.
 */
export function describe(c, failure = null) {
  if (failure?.code === 'invalid_change') return JSON.stringify(c);
  switch (c?.op) {
    case 'add_member': return `add member ${c.member}${c.cap ? ` (cap ${c.cap})` : ' (default cap)'}`;
    case 'remove_member': return `remove ${c.member}: ${DEPARTURE[departureOf(c)] || departureOf(c)}`;
    case 'release_departed': return `release the splits withheld for ${c.member} (its delay is over)`;
    case 'set_cap': return `cap of ${c.member}: ${c.cap || 'the default'}`;
    case 'set_default_cap': return `default cap: ${c.cap}`;
    case 'reserve': return `reserve ${c.splits.join(', ')}`;
    case 'release': return `release ${c.splits.join(', ')}`;
    case 'set_weight': return `weight of ${c.split}: ${humanBytes(c.weight)}`;
    case 'add_splits':
      return `add ${thousands(c.count)} splits of ${humanBytes(c.weight)} (${c.prefix || 'synthetic-'}…)${c.owner ? ` owned by ${c.owner}` : ''}`;
    default: return JSON.stringify(c);
  }
}

/** The identity of a snapshot, as a link names it: `job@taken_at_ms`. */
export function snapshotId(info) {
  return info ? `${info.job}@${info.taken_at_ms}` : '';
}
