// The permalink: the page's whole state that a person may share, in the URL fragment — the
// scenario, the chart order and the snapshot it was made on
// (`#scenario=…&order=planned&snapshot=orders@1764547200000`), the Timeline's script and
// configuration B (`timeline=…&compare=…`), the tab shown (`tab=sweep`), the focused member
// (`member=worker-03`), the sweep (`sweep={"axis":…}`) and the earlier snapshot compared with
// (`before=job@ms`, and `before-url=…` when it was read from this origin). Pure functions, and
// one binding to a window.
import { scenarioText, parseScenario, emptyScenario, hasContent, snapshotId } from '../../common/shared/scenario.js';
import { hasTimeline, scriptText, overridesText, parseScript, parseOverrides } from '../../timeline/shared/script.js';
import { checkSweep } from '../../review/shared/sweep-model.js';
import { ORDERS } from '../../common/shared/sort.js';

/** The sweep's parameters as the link holds them (JSON, u32 values only). */
function sweepText(p) {
  return JSON.stringify({ axis: p.axis, from: p.from, to: p.to, ...(p.cap ? { cap: p.cap } : {}), ...(p.crash ? { crash: true } : {}) });
}

/** The view's part of a fragment: tab, member, sweep, earlier snapshot. */
function setView(params, { tab, member, sweep, before }) {
  if (tab) params.set('tab', tab);
  if (member) params.set('member', member);
  if (sweep) params.set('sweep', sweepText(sweep));
  if (before?.id) params.set('before', before.id);
  if (before?.url) params.set('before-url', before.url);
}

/**
 * The fragment for a scenario and its extras (empty when there is nothing to keep): { order,
 * snapshot, timeline, tab (a tab's id), member (the focused one), sweep ({ axis, from, to, cap,
 * crash }), before ({ id, url }) }. The snapshot is named whenever what is kept depends on it.
 */
export function toFragment(scenario, { order = null, snapshot = '', timeline = null, tab = null, member = null, sweep = null, before = null } = {}) {
  const params = new URLSearchParams();
  if (hasContent(scenario)) params.set('scenario', scenarioText(scenario));
  if (order && order !== 'name') params.set('order', order);
  if (hasTimeline(timeline)) {
    params.set('timeline', scriptText(timeline.script));
    if (timeline.b) params.set('compare', overridesText(timeline.b));
  }
  setView(params, { tab, member, sweep, before });
  // what depends on the snapshot names it (a tab or an order applies to any)
  if (snapshot && [...params.keys()].some((k) => k !== 'order' && k !== 'tab')) params.set('snapshot', snapshot);
  const s = params.toString();
  return s ? `#${s}` : '';
}

/** The Timeline of a fragment's parameters: { timeline (null: none), timelineError }. */
function timelineOf(params) {
  const text = params.get('timeline');
  const compare = params.get('compare');
  if (!text && !compare) return { timeline: null, timelineError: null };
  try {
    return { timeline: { script: text ? parseScript(text) : { events: [] }, b: compare ? parseOverrides(compare) : null }, timelineError: null };
  } catch (e) {
    return { timeline: null, timelineError: e };
  }
}

/** The sweep of a fragment's parameters: { sweep (null: none), sweepError }. */
function sweepOf(params) {
  const text = params.get('sweep');
  if (!text) return { sweep: null, sweepError: null };
  try {
    const p = JSON.parse(text);
    if (typeof p !== 'object' || p === null) throw Object.assign(new Error('the sweep is not a JSON object'), { code: 'invalid_sweep' });
    return { sweep: checkSweep({ axis: p.axis, from: p.from, to: p.to, cap: p.cap ?? '', crash: p.crash === true }), sweepError: null };
  } catch (e) {
    return { sweep: null, sweepError: e.code ? e : Object.assign(e, { code: 'invalid_sweep' }) };
  }
}

/** The view's part of a fragment's parameters: { tab, member, before, sweep, sweepError }. */
function viewOf(params) {
  const id = params.get('before');
  const url = params.get('before-url');
  return { tab: params.get('tab') || null, member: params.get('member') || null, before: id || url ? { id: id || '', url: url || null } : null, ...sweepOf(params) };
}

/**
 * Reads a fragment: { scenario, order, snapshot, error, timeline, timelineError, tab, member,
 * sweep, sweepError, before }; a bad scenario reads as empty, a bad timeline or sweep as none.
 */
export function fromFragment(hash) {
  const params = new URLSearchParams(String(hash || '').replace(/^#/, ''));
  const asked = params.get('order') || 'name';
  const known = Object.hasOwn(ORDERS, asked);
  const order = known ? asked : 'name';
  const orderError = known ? null : Object.assign(
    new Error(`the link orders the members by "${asked}", which this page does not know (it knows ${Object.keys(ORDERS).join(', ')}); they are ordered by name`),
    { code: 'invalid_order' },
  );
  const snapshot = params.get('snapshot') || '';
  const text = params.get('scenario');
  const rest = { ...timelineOf(params), ...viewOf(params), orderError };
  if (!text) return { scenario: emptyScenario(), order, snapshot, error: null, ...rest };
  try {
    return { scenario: parseScenario(text), order, snapshot, error: null, ...rest };
  } catch (e) {
    return { scenario: emptyScenario(), order, snapshot, error: e, ...rest };
  }
}

/** The extras of a fragment for the store's state (what toFragment keeps besides the scenario). */
export function linkExtras(s) {
  const sweep = s.sweepRun?.params ?? s.sweep?.params ?? null;
  const before = s.before ? { id: snapshotId(s.before.info), url: s.before.url ?? null } : null;
  return { order: s.order, snapshot: s.snapshotId, timeline: s.timeline, tab: s.tab?.id ?? null, member: s.focus, sweep, before };
}

/**
 * Keeps `store`'s shareable state in `win`'s location fragment, and reads it back on
 * hashchange (a person editing the address). Returns an unbind function.
 */
export function bindPermalink(win, store, onExternal) {
  let last = win.location.hash;
  const write = () => {
    const s = store.state;
    const frag = toFragment(s.scenario, linkExtras(s));
    if (frag === (win.location.hash || '')) return;
    last = frag;
    win.history.replaceState(null, '', `${win.location.pathname}${win.location.search}${frag}`);
  };
  const read = () => {
    if (win.location.hash === last) return;
    last = win.location.hash;
    onExternal(fromFragment(win.location.hash));
  };
  store.addEventListener('change', write);
  win.addEventListener('hashchange', read);
  return () => {
    store.removeEventListener('change', write);
    win.removeEventListener('hashchange', read);
  };
}
