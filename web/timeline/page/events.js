// The Timeline's events: the script's events in time order (✕ removes one; an event the core
// refuses is marked with the reason), and a form that adds one: crash, graceful stop, crash the
// leader, start N new members, restart, a rolling restart, a lane cap change.
import { el, attrs, button, input, select, field, setOptions, replaceKeepingFocus } from '../../common/page/dom.js';
import { describeEvent, orderedEvents, freshNames, rollingRestart, startedMembers } from '../shared/script.js';
import { naturalCompare } from '../../common/shared/sort.js';

const KINDS = [
  ['crash', 'crash a member'],
  ['stop', 'stop a member gracefully'],
  ['crash_leader', 'crash the leader'],
  ['start_new', 'start new members'],
  ['restart', 'restart a member (same id)'],
  ['rolling', 'rolling restart'],
  ['set_cap', "change a member's lane cap"],
];
/** The inputs each kind of event uses. */
const NEEDS = {
  crash: ['member'], stop: ['member'], crash_leader: [], start_new: ['count', 'cap'], restart: ['member', 'cap'],
  rolling: ['count', 'every', 'downtime', 'cap'], set_cap: ['member', 'cap'],
};

function formError(message) {
  return Object.assign(new Error(message), { code: 'invalid_event' });
}

/** A whole number of 1 … max from an input, else an error naming the input. */
function count(text, what, max = 1000) {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1 || n > max) throw formError(`${what}: a whole number from 1 to ${max}`);
  return n;
}

/** Seconds as integer ms (anything else goes to the core, which says what is wrong). */
function ms(text) {
  return Math.round(Number(String(text).trim() || 0) * 1000);
}

/**
 * The script events a filled form stands for. A restart without a cap keeps the member's own
 * (its presence's max_in_flight, `capOf`), as a restarted process would; new members take the
 * script's default.
 */
export function eventsOf(kind, v, { members, taken, capOf = () => null }) {
  const at = ms(v.at);
  const cap = v.cap === '' ? undefined : Number(v.cap);
  const own = (member) => (cap !== undefined ? { cap } : capOf(member) ? { cap: capOf(member) } : {});
  if (NEEDS[kind].includes('member') && !v.member) throw formError('pick a member');
  switch (kind) {
    case 'crash': case 'stop': return [{ at_ms: at, op: kind, member: v.member }];
    case 'crash_leader': return [{ at_ms: at, op: 'crash_leader' }];
    case 'start_new':
      return freshNames(count(v.count, 'how many'), 'new-', taken).map((member) => ({ at_ms: at, op: 'start', member, ...(cap === undefined ? {} : { cap }) }));
    case 'restart': return [{ at_ms: at, op: 'start', member: v.member, ...own(v.member) }];
    case 'rolling': {
      const n = count(v.count, 'how many', members.length);
      return rollingRestart(members.slice(0, n), at, ms(v.every), ms(v.downtime)).map((e) => (e.op === 'start' ? { ...e, ...own(e.member) } : e));
    }
    case 'set_cap': return [{ at_ms: at, op: 'set_cap', member: v.member, cap: cap ?? 0 }];
    default: throw formError(`unknown kind of event ${kind}`);
  }
}

function addForm(controller) {
  const form = attrs(el('form', undefined, 'tl-add'), { 'data-form': 'timeline-event', 'aria-label': 'Add an event' });
  const kind = select(KINDS, 'kind of event');
  const inputs = {
    at: input('number', { step: 'any', value: '0', 'aria-label': 'at (seconds)' }),
    member: select([], 'member'),
    count: input('number', { step: '1', value: '10', 'aria-label': 'how many' }),
    cap: input('number', { step: '1', placeholder: 'the default', 'aria-label': 'lane cap' }),
    every: input('number', { step: 'any', value: '30', 'aria-label': 'one every (seconds)' }),
    downtime: input('number', { step: 'any', value: '10', 'aria-label': 'down for (seconds)' }),
  };
  const labels = { at: 'at (s)', member: 'member', count: 'how many', cap: 'lane cap', every: 'one every (s)', downtime: 'down for (s)' };
  const fields = Object.fromEntries(Object.entries(inputs).map(([k, c]) => [k, field(labels[k], c)]));
  const error = attrs(el('p', '', 'form-error'), { role: 'alert' });
  const submit = attrs(el('button', 'Add event'), { type: 'submit' });
  const showFields = () => {
    for (const [k, f] of Object.entries(fields)) f.hidden = k !== 'at' && !NEEDS[kind.value].includes(k);
    inputs.cap.placeholder = ['restart', 'rolling'].includes(kind.value) ? 'its own' : 'the default';
  };
  kind.addEventListener('change', showFields);
  const row = el('div', undefined, 'row');
  row.append(field('event', kind), ...Object.values(fields), submit);
  form.append(row, error);
  showFields();
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    error.textContent = '';
    try {
      const s = controller.state;
      const members = s.info.members.map((m) => m.name).sort(naturalCompare);
      const taken = [...members, ...startedMembers(s.timeline.script)];
      const values = Object.fromEntries(Object.entries(inputs).map(([k, c]) => [k, c.value]));
      const caps = new Map(s.info.members.map((m) => [m.name, m.max_in_flight]));
      const events = eventsOf(kind.value, values, { members, taken, capOf: (m) => caps.get(m) ?? null });
      controller.addTimelineEvents(events, `Timeline: added ${events.length === 1 ? describeEvent(events[0]) : `${events.length} events`}.`);
    } catch (err) {
      error.textContent = err.message;
    }
  });
  return {
    node: form,
    /** Offers the snapshot's members and those the script starts. */
    setMembers(names) { setOptions(inputs.member, names.map((n) => [n, n]), { keepGone: true }); },
  };
}

function eventItem(controller, { e, index }, failure) {
  const li = attrs(el('li', undefined, failure ? 'failing' : undefined), { 'data-event': index });
  li.append(el('span', describeEvent(e), 'what'));
  li.append(attrs(button('✕', () => {
    const t = controller.state.timeline;
    const events = t.script.events.filter((_, i) => i !== index);
    controller.setTimeline({ ...t, script: { ...t.script, events } }, `Timeline: removed ${describeEvent(e)}.`);
  }, 'icon', `Remove the event: ${describeEvent(e)}`), { 'data-focus': `event-${index}` }));
  if (failure) li.append(el('span', failure, 'reason'));
  return li;
}

/** The index of the event a script error names (`events[3].member`), or -1. */
export function eventIndexOf(path) {
  const m = /^events\[(\d+)\]/.exec(path || '');
  return m ? Number(m[1]) : -1;
}

export function createTimelineEvents(ctx) {
  const { controller } = ctx;
  const node = attrs(el('div', undefined, 'tl-events'), { role: 'group', 'aria-labelledby': 'tl-events-title' });
  const title = attrs(el('h3', 'Events'), { id: 'tl-events-title' });
  const list = el('ol', undefined, 'tl-event-list');
  const none = el('p', 'No events: the fleet runs undisturbed. Add one below, or pick a member in the fleet chart and crash it.', 'hint');
  const clear = button('Clear events', () => {
    const t = controller.state.timeline;
    controller.setTimeline({ ...t, script: { ...t.script, events: [] } }, 'Timeline: every event removed.');
  });
  const form = addForm(controller);
  node.append(title, none, list, form.node, clear);
  let names = '';
  return {
    node,
    /** error: the current run's failure (one naming an event marks it), or null. */
    update(state, err) {
      const events = orderedEvents(state.timeline.script);
      const bad = err ? eventIndexOf(err.path) : -1;
      replaceKeepingFocus(list, ...events.map((x) => eventItem(controller, x, x.index === bad ? `${err.message} (${err.code})` : null)));
      none.hidden = events.length > 0;
      clear.hidden = events.length === 0;
      const members = [...(state.info?.members.map((m) => m.name) ?? []), ...startedMembers(state.timeline.script)];
      const unique = [...new Set(members)].sort(naturalCompare);
      if (unique.join('\n') !== names) { names = unique.join('\n'); form.setMembers(unique); }
    },
  };
}
