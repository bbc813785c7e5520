// The Timeline's script (docs/script-format.md) as the page holds it: a script object (the
// configuration A and the events) and the overrides of a second configuration B. u64 fields
// (`seed`, `weight`) are kept as decimal strings and written as bare JSON integers, which the
// core reads exactly (it refuses strings there). No DOM here.

export const SCRIPT_FORMAT = 'spate-planner-script/1';
const U64_KEYS = ['seed', 'weight'];

/**
 * The configuration fields the page offers and where each lives in the script. `unit`: ms
 * (shown in seconds), count, or choice (one of `choices`: [value, words]). Their defaults are
 * the simulator's, for the snapshot shown (Planner.simDefaults, the store's `simDefaults`): the
 * page keeps no copy of them.
 */
export const FIELDS = [
  {
    key: 'rules', label: 'release', where: 'top', unit: 'choice',
    choices: [['0.1', 'Spate 0.1 (and 0.2)'], ['0.3', 'Spate 0.3']],
  },
  {
    key: 'start', label: 'starting fleet', where: 'top', unit: 'choice',
    choices: [['snapshot', 'the snapshot as it is'], ['planned', 'the fleet settled on its plan']],
  },
  { key: 'rebalance_delay_ms', label: 'rebalance delay', where: 'config', unit: 'ms' },
  { key: 'lease_duration_ms', label: 'lease duration', where: 'config', unit: 'ms' },
  { key: 'reconcile_interval_ms', label: 'reconcile interval', where: 'config', unit: 'ms' },
  { key: 'drain_deadline_ms', label: 'drain deadline', where: 'config', unit: 'ms' },
  { key: 'max_attempts', label: 'max attempts', where: 'config', unit: 'count' },
  { key: 'detection_ms', label: 'detection latency', where: 'config', unit: 'ms' },
  { key: 'drain_ms', label: 'drain time (data plane)', where: 'data_plane', unit: 'ms' },
  { key: 'seed', label: 'seed', where: 'top', unit: 'count' },
  { key: 'until_ms', label: 'horizon', where: 'top', unit: 'ms' },
];

export const FIELD = Object.fromEntries(FIELDS.map((f) => [f.key, f]));

/** The timeline before anything is picked: no events, Spate's defaults, no comparison. */
export function emptyTimeline() {
  return { script: { events: [] }, b: null };
}

/** True when the timeline has anything to keep (an event, a setting, a comparison). */
export function hasTimeline(t) {
  if (!t) return false;
  const { events, ...rest } = t.script;
  return (Array.isArray(events) && events.length > 0) || Object.keys(rest).length > 0 || t.b !== null;
}

/** True when the script has events (without any, a run has no recovery to measure). */
export function hasEvents(script) {
  return Array.isArray(script?.events) && script.events.length > 0;
}

function invalid(message) {
  return Object.assign(new Error(message), { code: 'invalid_script', path: '$' });
}

function isObject(v) {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Parses script text, keeping `seed` and `weight` exact (as strings). Throws code invalid_script. */
export function parseScript(text) {
  const quoted = String(text).replace(/(?<!\\)"(seed|weight)"(\s*:\s*)(\d+)(?=\s*[,}\]])/g, '"$1"$2"$3"');
  let doc;
  try {
    doc = JSON.parse(quoted);
  } catch (e) {
    throw invalid(`the script is not JSON: ${e.message}`);
  }
  if (!isObject(doc)) throw invalid('a script is a JSON object');
  const { format, ...script } = doc;
  if (format !== undefined && format !== SCRIPT_FORMAT) {
    throw Object.assign(new Error(`script format ${JSON.stringify(format)} is not ${SCRIPT_FORMAT}`), { code: 'unsupported_format', path: 'format' });
  }
  if (script.events === undefined) script.events = [];
  return script;
}

/** Reads the overrides of configuration B ({ key: value }); throws code invalid_script. */
export function parseOverrides(text) {
  const doc = parseScript(text);
  const { events, ...b } = doc;
  if (Array.isArray(events) && events.length) throw invalid('configuration B holds settings only, no events');
  return b;
}

/** The script with B's overrides put where each belongs (config, data_plane or the top). */
export function withOverrides(script, overrides) {
  if (!overrides) return script;
  const out = { ...script, config: { ...(script.config || {}) }, data_plane: { ...(script.data_plane || {}) } };
  for (const [k, v] of Object.entries(overrides)) {
    const where = FIELD[k]?.where ?? 'top';
    if (where === 'top') out[k] = v;
    else out[where][k] = v;
  }
  if (!Object.keys(out.config).length) delete out.config;
  if (!Object.keys(out.data_plane).length) delete out.data_plane;
  return out;
}

/** JSON text with u64 fields held as strings written as bare integers. */
function u64Json(value) {
  const text = JSON.stringify(value);
  return text.replace(new RegExp(`(?<!\\\\)"(${U64_KEYS.join('|')})":"(\\d+)"`, 'g'), '"$1":$2');
}

/** The script text the core reads (`format` first, events last). */
export function scriptText(script) {
  const { events, ...rest } = script;
  return u64Json({ format: SCRIPT_FORMAT, ...rest, events: events ?? [] });
}

/** B's overrides as text (for the link). */
export function overridesText(b) {
  return u64Json(b);
}

/** The value a field has in a script, or undefined when it is not set there. */
export function fieldIn(script, key) {
  const where = FIELD[key].where;
  if (where === 'top') return script[key];
  return script[where]?.[key];
}

/**
 * The value a field takes: set in the script, else the simulator's default (`defaults`:
 * Planner.simDefaults of the snapshot; u64 values there are decimal strings, read as numbers but
 * the seed). Undefined while no defaults are known.
 */
export function effective(script, key, defaults) {
  const v = fieldIn(script, key);
  if (v !== undefined && v !== null) return v;
  const d = defaults?.[key];
  if (d === undefined || d === null) return undefined;
  return key === 'seed' || FIELD[key].unit === 'choice' ? String(d) : Number(d);
}

/** A script with one field set (`null`: back to the default). */
export function setField(script, key, value) {
  const where = FIELD[key].where;
  if (where === 'top') {
    const { [key]: _gone, ...rest } = script;
    return value === null ? rest : { ...rest, [key]: value };
  }
  const { [key]: _old, ...part } = script[where] || {};
  if (value !== null) part[key] = value;
  const { [where]: _part, ...rest } = script;
  return Object.keys(part).length ? { ...rest, [where]: part } : rest;
}

/** B's overrides with one field set (`null`: as configuration A). */
export function setOverride(b, key, value) {
  const { [key]: _old, ...rest } = b || {};
  return value === null ? rest : { ...rest, [key]: value };
}

/**
 * A field's input text as the script's value: seconds to integer ms, counts as integers (the
 * seed as a decimal string). '' is the default (null). Anything else is passed on as a number,
 * so the core refuses it with its own code and path.
 */
export function readInput(key, text) {
  const t = String(text).trim();
  if (t === '') return null;
  if (FIELD[key].unit === 'choice') {
    if (!FIELD[key].choices.some(([v]) => v === t)) throw Object.assign(new Error(`${FIELD[key].label}: ${JSON.stringify(t)} is not one of ${FIELD[key].choices.map(([v]) => v).join(', ')}`), { code: 'invalid_script', path: key });
    return t;
  }
  if (key === 'seed' && /^\d+$/.test(t)) return t.replace(/^0+(?=\d)/, '');
  const n = Number(t);
  if (!Number.isFinite(n)) throw Object.assign(new Error(`${FIELD[key].label}: ${JSON.stringify(t)} is not a number`), { code: 'invalid_script', path: key });
  return FIELD[key].unit === 'ms' ? Math.round(n * 1000) : n;
}

/** A value as input text: ms in seconds, counts as they are. */
export function inputText(key, value) {
  if (value === undefined || value === null) return '';
  if (typeof value === 'object') return '';
  if (FIELD[key].unit === 'choice') return String(value);
  return FIELD[key].unit === 'ms' ? String(Number(value) / 1000) : String(value);
}

/** A duration for people: `0 s`, `1.5 s`, `20 s`, `2 min`, `1 min 30 s`, `1 h 5 min`. */
export function duration(ms) {
  const v = Number(ms);
  if (!Number.isFinite(v)) return String(ms);
  if (v < 60000) {
    const s = v / 1000;
    return `${Number.isInteger(s) ? s : s.toFixed(s < 10 ? 2 : 1).replace(/0$/, '')} s`;
  }
  const totalS = Math.round(v / 1000);
  const h = Math.floor(totalS / 3600);
  const m = Math.floor((totalS % 3600) / 60);
  const s = totalS % 60;
  if (h) return m ? `${h} h ${m} min` : `${h} h`;
  return s ? `${m} min ${s} s` : `${m} min`;
}

/** A time on the axis: `0:45`, `10:00`, `1:02:03`. */
export function clock(ms) {
  const total = Math.floor(Number(ms) / 1000);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, '0');
  return h ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}

/** One line for a scripted event. */
export function describeEvent(e) {
  const at = `t = ${duration(e.at_ms)}`;
  switch (e.op) {
    case 'crash': return `${at}: crash ${e.member}`;
    case 'stop': return `${at}: stop ${e.member} gracefully`;
    case 'start': return `${at}: start ${e.member}${e.cap ? ` (cap ${e.cap})` : ''}`;
    case 'set_cap': return `${at}: cap of ${e.member} → ${e.cap || 'the default'}`;
    case 'crash_leader': return `${at}: crash the leader`;
    case 'add_splits': return `${at}: add ${e.count} splits (${e.prefix || 'synthetic-'}…)`;
    case 'fail': return `${at}: fail ${e.split}`;
    default: return `${at}: ${JSON.stringify(e)}`;
  }
}

/** `count` fresh instance ids `{prefix}01`, … that are not in `taken`. */
export function freshNames(count, prefix, taken) {
  const used = new Set(taken);
  const out = [];
  const width = Math.max(2, String(count).length);
  for (let i = 1; out.length < count; i++) {
    const name = `${prefix}${String(i).padStart(width, '0')}`;
    if (!used.has(name)) out.push(name);
  }
  return out;
}

/**
 * A rolling restart: each member stopped gracefully and started again `downtimeMs` later, one
 * every `everyMs` from `fromMs`.
 */
export function rollingRestart(members, fromMs, everyMs, downtimeMs) {
  return members.flatMap((member, i) => [
    { at_ms: fromMs + i * everyMs, op: 'stop', member },
    { at_ms: fromMs + i * everyMs + downtimeMs, op: 'start', member },
  ]);
}

/** Instance ids the script starts (they can then be crashed or stopped). */
export function startedMembers(script) {
  const events = Array.isArray(script.events) ? script.events : [];
  return [...new Set(events.filter((e) => e?.op === 'start' && typeof e.member === 'string').map((e) => e.member))];
}

/** The events in time order (same time: as written), each with its index in the script. */
export function orderedEvents(script) {
  const events = Array.isArray(script.events) ? script.events : [];
  return events.map((e, index) => ({ e, index }))
    .sort((x, y) => (Number(x.e?.at_ms) || 0) - (Number(y.e?.at_ms) || 0) || x.index - y.index);
}

/** One setting's value for people: `0 s`, `3`, `the fleet settled on its plan`. */
function settingText(f, v) {
  if (typeof v === 'object') return JSON.stringify(v);
  if (f.unit === 'ms') return duration(v);
  if (f.unit === 'choice') return f.choices.find(([c]) => c === v)?.[1] ?? String(v);
  return String(v);
}

/** The settings a script or B's overrides set, for people: `rebalance delay 0 s, seed 3`. */
export function settingsText(settings) {
  const parts = FIELDS.filter((f) => settings[f.key] !== undefined && settings[f.key] !== null)
    .map((f) => `${f.label} ${settingText(f, settings[f.key])}`);
  return parts.join(', ');
}

/** A's settings as they are set in its script ({ key: value }, only those set). */
export function settingsOf(script) {
  return Object.fromEntries(FIELDS.map((f) => [f.key, fieldIn(script, f.key)]).filter(([, v]) => v !== undefined && v !== null));
}

/** The release other than `rules` ('0.1' or '0.3'): what upgrading, or staying, changes. */
export function otherRelease(rules) {
  return rules === '0.3' ? '0.1' : '0.3';
}

/** Names for the two configurations: `A: Spate's defaults`, `B: rebalance delay 0 s`. */
export function configNames(timeline) {
  const a = settingsText(settingsOf(timeline.script)) || "Spate's defaults";
  const b = timeline.b ? settingsText(timeline.b) || 'as A' : null;
  return { A: `A: ${a}`, B: b === null ? null : `B: ${b}` };
}
