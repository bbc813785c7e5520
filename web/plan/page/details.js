// Details: every figure of the plan, baseline and what-if side by side (changed values marked).
import { el, attrs, scrollArea } from '../../common/page/dom.js';
import { changed } from '../../common/page/store.js';
import { figureRows } from '../shared/figures.js';

function figuresTable(view, baseline) {
  const t = el('table', undefined, 'figures-table');
  const head = el('tr');
  const cols = baseline ? ['figure', 'baseline', 'what-if'] : ['figure', 'plan'];
  head.append(...cols.map((h) => attrs(el('th', h), { scope: 'col' })));
  const thead = el('thead');
  thead.append(head);
  const body = el('tbody');
  const now = figureRows(view);
  const base = baseline ? figureRows(baseline) : null;
  now.forEach(([k, v, exact], i) => {
    const tr = attrs(el('tr'), { 'data-figure': k });
    tr.append(attrs(el('th', k), { scope: 'row' }));
    if (base) tr.append(attrs(el('td', base[i][1]), base[i][2] ? { title: base[i][2] } : {}));
    const td = attrs(el('td', v), exact ? { title: exact } : {});
    if (base && base[i][1] !== v) td.className = 'changed';
    tr.append(td);
    body.append(tr);
  });
  t.append(thead, body);
  return t;
}

export function createDetails() {
  const node = el('div', undefined, 'details');
  const host = scrollArea('plan figures');
  node.append(host);
  return {
    node,
    update(state, prev) {
      if (changed(prev, state, 'result') && state.result) host.replaceChildren(figuresTable(state.result.view, state.result.baseline));
    },
  };
}
