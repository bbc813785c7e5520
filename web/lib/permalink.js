// The permalink: the scenario, the chart order and the snapshot it was made on, in the URL
// fragment (`#scenario=…&order=planned&snapshot=orders@1764547200000`). Pure functions, and
// one binding to a window.
import { scenarioText, parseScenario, emptyScenario, hasContent } from './scenario.js';

/** The fragment for a scenario and its extras (empty when there is nothing to keep). */
export function toFragment(scenario, { order = null, snapshot = '' } = {}) {
  const params = new URLSearchParams();
  if (hasContent(scenario)) params.set('scenario', scenarioText(scenario));
  if (order && order !== 'name') params.set('order', order);
  if (snapshot && params.has('scenario')) params.set('snapshot', snapshot);
  const s = params.toString();
  return s ? `#${s}` : '';
}

/** Reads a fragment: { scenario, order, snapshot, error }; a bad scenario reads as empty. */
export function fromFragment(hash) {
  const params = new URLSearchParams(String(hash || '').replace(/^#/, ''));
  const order = params.get('order') || 'name';
  const snapshot = params.get('snapshot') || '';
  const text = params.get('scenario');
  if (!text) return { scenario: emptyScenario(), order, snapshot, error: null };
  try {
    return { scenario: parseScenario(text), order, snapshot, error: null };
  } catch (e) {
    return { scenario: emptyScenario(), order, snapshot, error: e };
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
    const frag = toFragment(s.scenario, { order: s.order, snapshot: s.snapshotId });
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
