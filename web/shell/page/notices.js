// What a person must read before the figures: the page's message (a refused snapshot, a link
// that no longer applies, a restarted module), the plan's findings (fatal ones as the headline)
// and the snapshot's warnings.
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

function findingsList(findings) {
  const list = el('ul', undefined, 'findings');
  for (const f of findings) {
    const li = attrs(el('li', undefined, `finding ${f.level}`), { 'data-code': f.code });
    li.append(el('strong', f.level === 'fatal' ? 'Fatal: ' : f.level === 'warning' ? 'Warning: ' : 'Notice: '), el('span', f.message));
    list.append(li);
  }
  return list;
}

function warningsBox(warnings) {
  const d = el('details', undefined, 'warnings');
  d.append(el('summary', `${warnings.length} warning${warnings.length === 1 ? '' : 's'} in the snapshot (the leader survives these)`));
  const list = attrs(el('ul'), { tabindex: 0, 'aria-label': 'snapshot warnings' });
  for (const w of warnings.slice(0, 500)) {
    const li = el('li');
    li.append(el('code', w.code), el('span', ` bucket ${w.bucket}, key ${w.key}: ${w.message}`));
    list.append(li);
  }
  if (warnings.length > 500) list.append(el('li', `… and ${warnings.length - 500} more`));
  d.append(list);
  return d;
}

export function createNotices(ctx) {
  const node = el('div', undefined, 'notices');
  const message = el('div', undefined, 'message-slot');
  const findings = el('div', undefined, 'findings-slot');
  const warnings = el('div', undefined, 'warnings-slot');
  node.append(message, findings, warnings);
  return {
    node,
    update(state, prev) {
      if (changed(prev, state, 'message')) message.replaceChildren(...(state.message ? [messageBox(state.message, ctx.controller)] : []));
      if (changed(prev, state, 'result')) {
        const f = state.result?.view.findings || [];
        findings.replaceChildren(...(f.length ? [findingsList(f)] : []));
      }
      if (changed(prev, state, 'info')) {
        const w = state.info?.warnings || [];
        warnings.replaceChildren(...(w.length ? [warningsBox(w)] : []));
      }
    },
  };
}
