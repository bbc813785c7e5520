// The fleet chart's actions for a picked member: crash it, or stop it gracefully, at t = 0 in the
// Timeline (the event joins the Timeline's script, and the Timeline tab is shown).
import { el, attrs, button } from '../../common/page/dom.js';

export function memberActions(controller, member) {
  const bar = attrs(el('div', undefined, 'row-actions'), { 'data-actions': member });
  const add = (op, words) => controller.addTimelineEvents([{ at_ms: 0, op, member }], `Timeline: ${member} ${words} at t = 0.`);
  bar.append(el('span', `${member} in the Timeline:`, 'hint'),
    button('Crash at t = 0', () => add('crash', 'crashes'), 'tl-crash', `Crash at t = 0: ${member}, in the Timeline`),
    button('Stop gracefully at t = 0', () => add('stop', 'stops gracefully'), undefined, `Stop gracefully at t = 0: ${member}, in the Timeline`));
  return bar;
}
