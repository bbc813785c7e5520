// Shared bits of the detail views: the "showing only worker-07 ✕" chip and the error reporter
// that turns a failed request into the page's message (results for a replaced fleet dropped).
import { el, button } from './dom.js';

export function focusChip(controller) {
  const node = el('p', undefined, 'focus-chip');
  node.hidden = true;
  let shown = null;
  return {
    node,
    update(state) {
      node.hidden = !state.focus;
      // drawn again only for another member: its ✕ keeps keyboard focus through other updates
      if (!state.focus || state.focus === shown) return;
      shown = state.focus;
      node.replaceChildren(el('span', `Showing only ${state.focus}. `),
        button('✕', () => controller.focus(null), 'icon', `Show every member, not only ${state.focus}`));
    },
  };
}

export function errorReporter(controller, title) {
  return (e) => controller.report(e, title);
}
