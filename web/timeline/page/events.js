// The Timeline's events: the script's events in time order (✕ removes one; an event the core
// refuses is marked with the reason), and a form that adds one: crash, graceful stop, crash the
// leader, start N new members, restart, a rolling restart, a lane cap change.
import { el, attrs, button, input, select, field, setOptions } from '../../common/page/dom.js';
import { html, render, nothing } from '../../common/page/lit.js';
import { describeEvent, orderedEvents, startedMembers } from '../shared/script.js';
import { KINDS, NEEDS, eventsOf, eventIndexOf } from '../shared/event-form.js';
import { naturalCompare } from '../../common/shared/sort.js';

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

/**
 * Removes the script's event `index`. The list is drawn in place by position, so the ✕ that had
 * focus keeps it (it now removes the event that followed); the last one's goes to the ✕ before.
 */
function removeEvent(event, controller, { e, index }) {
  const b = event.currentTarget;
  const list = b.closest('ol');
  const t = controller.state.timeline;
  const events = t.script.events.filter((_, i) => i !== index);
  controller.setTimeline({ ...t, script: { ...t.script, events } }, `Timeline: removed ${describeEvent(e)}.`);
  if (!b.isConnected) list.querySelector('li:last-child button')?.focus();
}

function eventItem(controller, x, failure) {
  const label = `Remove the event: ${describeEvent(x.e)}`;
  return html`<li class=${failure ? 'failing' : ''} data-event=${x.index}><span class="what">${describeEvent(x.e)}</span><button type="button"
    class="icon" aria-label=${label} title=${label} @click=${(ev) => removeEvent(ev, controller, x)}>✕</button>${failure ? html`<span class="reason">${failure}</span>` : nothing}</li>`;
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
      render(events.map((x) => eventItem(controller, x, x.index === bad ? `${err.message} (${err.code})` : null)), list);
      none.hidden = events.length > 0;
      clear.hidden = events.length === 0;
      const members = [...(state.info?.members.map((m) => m.name) ?? []), ...startedMembers(state.timeline.script)];
      const unique = [...new Set(members)].sort(naturalCompare);
      if (unique.join('\n') !== names) { names = unique.join('\n'); form.setMembers(unique); }
    },
  };
}
