// Shared bits of the detail views: the "showing only worker-07 ✕" chip and the error reporter
// that turns a failed request into the page's message (results for a replaced fleet dropped).
import { el } from './dom.js';
import { html, render, nothing } from './lit.js';

/** "Showing only worker-07 ✕", drawn in place: its ✕ keeps keyboard focus through any update. */
export function focusChip(controller) {
  const node = el('p', undefined, 'focus-chip');
  node.hidden = true;
  return {
    node,
    update(state) {
      node.hidden = !state.focus;
      const f = state.focus;
      render(f ? html`<span>Showing only ${f}. </span><button type="button" class="icon" aria-label=${`Show every member, not only ${f}`}
        title=${`Show every member, not only ${f}`} @click=${() => controller.focus(null)}>✕</button>` : nothing, node);
    },
  };
}

export function errorReporter(controller, title) {
  return (e) => controller.report(e, title);
}
