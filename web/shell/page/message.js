// The page's message (a refused snapshot, a link with a change that does not apply, a restarted
// module, a failed request), at the top of the sticky strip: where the person is looking
// wherever the page is scrolled, above the figures it is about. Dismissed by its ✕.
import { el, attrs, button } from '../../common/page/dom.js';
import { changed } from '../../common/page/store.js';

function messageBox(m, controller) {
  const box = attrs(el('div', undefined, `message ${m.level}`), { role: m.level === 'info' ? 'status' : 'alert', 'data-code': m.code || '' });
  const body = el('div', undefined, 'message-body');
  body.append(el('strong', m.title), el('div', m.text));
  if (m.where) body.append(el('div', m.where, 'where'));
  if (m.code) body.append(el('div', `code: ${m.code}`, 'code'));
  box.append(body, button('✕', () => controller.dismissMessage(), 'icon', 'Dismiss this message'));
  return box;
}

/** What a message says: one that says the same again (each live frame's, say) is not drawn again. */
const said = (m) => (m ? JSON.stringify([m.level, m.title, m.text, m.where, m.code]) : '');

export function createMessage(ctx) {
  const node = el('div', undefined, 'message-slot');
  let shown = '';
  return {
    node,
    update(state, prev) {
      if (!changed(prev, state, 'message') || said(state.message) === shown) return;
      // a new alert only for new words: its ✕ keeps focus, and it is not announced again
      shown = said(state.message);
      node.replaceChildren(...(state.message ? [messageBox(state.message, ctx.controller)] : []));
    },
  };
}
