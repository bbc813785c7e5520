// The what-if scenario: a list of changes (docs/scenario-format.md), kept in the URL fragment.
// u64 values (weights) are held as decimal strings and written into the JSON text as digits,
// so they stay exact; the decisions are made by the wasm core, which parses this text.

export const FORMAT = 'spate-planner-scenario/1';
const U64_FIELDS = new Set(['weight', 'count']);

/** Scenario JSON text for the core; u64 fields as bare digits. */
export function scenarioText(state) {
  const doc = { format: FORMAT, changes: state.changes };
  if (state.defaultCap != null) doc.default_cap = state.defaultCap;
  return JSON.stringify(doc, (k, v) => (U64_FIELDS.has(k) ? { $u64: String(v) } : v))
    .replace(/\{"\$u64":"(\d+)"\}/g, '$1');
}

/** Parses scenario text into page state, keeping u64 fields as strings. */
export function parseScenario(text) {
  // quote bare integers of u64 fields before JSON.parse can round them
  const quoted = text.replace(/"(weight|count)":\s*(\d+)/g, '"$1":"$2"');
  const doc = JSON.parse(quoted);
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new Error('a scenario is a JSON object');
  if (doc.format && doc.format !== FORMAT) throw new Error(`scenario format ${doc.format} is not ${FORMAT}`);
  return {
    defaultCap: doc.default_cap == null ? null : Number(doc.default_cap),
    changes: Array.isArray(doc.changes) ? doc.changes : [],
  };
}

/** The fragment for a state: `#scenario=<json>` (empty when there is nothing to keep). */
export function toFragment(state, extra = {}) {
  const params = new URLSearchParams();
  if (state.changes.length || state.defaultCap != null) params.set('scenario', scenarioText(state));
  for (const [k, v] of Object.entries(extra)) if (v != null && v !== '') params.set(k, String(v));
  const s = params.toString();
  return s ? `#${s}` : '';
}

/** Reads a fragment; bad content gives an empty scenario and the error. */
export function fromFragment(hash) {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  const extra = Object.fromEntries([...params].filter(([k]) => k !== 'scenario'));
  const text = params.get('scenario');
  if (!text) return { state: { defaultCap: null, changes: [] }, extra, error: null };
  try {
    return { state: parseScenario(text), extra, error: null };
  } catch (e) {
    return { state: { defaultCap: null, changes: [] }, extra, error: e };
  }
}

/** One line describing a change, for the list of changes. */
export function describe(c) {
  switch (c.op) {
    case 'add_member': return `add member ${c.member}${c.cap ? ` (cap ${c.cap})` : ' (default cap)'}`;
    case 'remove_member': return `remove ${c.member}${c.within_rebalance_delay ? ', departed within the rebalance delay (its splits reserved)' : ''}`;
    case 'set_cap': return `cap of ${c.member}: ${c.cap || 'default'}`;
    case 'set_default_cap': return `default cap: ${c.cap}`;
    case 'reserve': return `reserve ${c.splits.join(', ')}`;
    case 'release': return `release ${c.splits.join(', ')}`;
    case 'set_weight': return `weight of ${c.split}: ${c.weight} B`;
    case 'add_splits': return `add ${c.count} splits of ${c.weight} B (${c.prefix || 'synthetic-'}…)${c.owner ? ` owned by ${c.owner}` : ''}`;
    default: return JSON.stringify(c);
  }
}
