// The permalink: the scenario, the chart order and the snapshot it was made on, in the URL
// fragment (`#scenario=…&order=planned&snapshot=orders@1764547200000`), and the Timeline's
// script and configuration B (`timeline=…&compare=…`). Pure functions, and one binding to a
// window.
import { scenarioText, parseScenario, emptyScenario, hasContent } from '../../common/shared/scenario.js';
import { hasTimeline, scriptText, overridesText, parseScript, parseOverrides } from '../../timeline/shared/script.js';

/** The fragment for a scenario and its extras (empty when there is nothing to keep). */
export function toFragment(scenario, { order = null, snapshot = '', timeline = null } = {}) {
  const params = new URLSearchParams();
  if (hasContent(scenario)) params.set('scenario', scenarioText(scenario));
  if (order && order !== 'name') params.set('order', order);
  if (hasTimeline(timeline)) {
    params.set('timeline', scriptText(timeline.script));
    if (timeline.b) params.set('compare', overridesText(timeline.b));
  }
  if (snapshot && (params.has('scenario') || params.has('timeline'))) params.set('snapshot', snapshot);
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

/**
 * Reads a fragment: { scenario, order, snapshot, error, timeline, timelineError }; a bad
 * scenario reads as empty, a bad timeline as none.
 */
export function fromFragment(hash) {
  const params = new URLSearchParams(String(hash || '').replace(/^#/, ''));
  const order = params.get('order') || 'name';
  const snapshot = params.get('snapshot') || '';
  const text = params.get('scenario');
  const tl = timelineOf(params);
  if (!text) return { scenario: emptyScenario(), order, snapshot, error: null, ...tl };
  try {
    return { scenario: parseScenario(text), order, snapshot, error: null, ...tl };
  } catch (e) {
    return { scenario: emptyScenario(), order, snapshot, error: e, ...tl };
  }
}

/**
 * Keeps `store`'s scenario and order in `win`'s location fragment, and reads it back on
 * hashchange (a person editing the address). Returns an unbind function.
 */
export function bindPermalink(win, store, onExternal) {
  let last = win.location.hash;
  const write = () => {
    const s = store.state;
    const frag = toFragment(s.scenario, { order: s.order, snapshot: s.snapshotId, timeline: s.timeline });
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
