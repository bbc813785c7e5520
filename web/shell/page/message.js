// The page's message (a refused snapshot, a link with a change that does not apply, a restarted
// module, a failed request), at the top of the sticky strip: where the person is looking
// wherever the page is scrolled, above the figures it is about. Dismissed by its ✕.
import { el } from '../../common/page/dom.js';
import { html, render, nothing } from '../../common/page/lit.js';
import { changed } from '../../common/page/store.js';

/**
 * The message's box, drawn in place: a message that says the same again (each live frame's,
 * say) changes nothing, so its ✕ keeps focus and it is not announced again.
 */
function messageBox(m, controller) {
  return html`<div class=${`message ${m.level}`} role=${m.level === 'info' ? 'status' : 'alert'} data-code=${m.code || ''}><div class="message-body"><strong>${m.title}</strong><div>${m.text}</div>${
    m.where ? html`<div class="where">${m.where}</div>` : nothing}${m.code ? html`<div class="code">code: ${m.code}</div>` : nothing}</div><button
    type="button" class="icon" aria-label="Dismiss this message" title="Dismiss this message" @click=${() => controller.dismissMessage()}>✕</button></div>`;
}

export function createMessage(ctx) {
  const node = el('div', undefined, 'message-slot');
  return {
    node,
    update(state, prev) {
      if (changed(prev, state, 'message')) render(state.message ? messageBox(state.message, ctx.controller) : nothing, node);
    },
  };
}
