// The simulation's headline figures: configuration A, and with a comparison B and the difference
// B − A (changed values marked). Each cell keeps the document's exact value in data-value.
import { el, attrs } from '../../common/page/dom.js';
import { figureRows } from '../shared/figures.js';

function cell(text, raw, cls) {
  const td = attrs(el('td', text, cls), { 'data-value': raw === null || raw === undefined ? 'null' : String(raw) });
  return td;
}

/** The table of a run: { a, b } models; hasEvents: whether the script has any (recovery needs one). */
export function figuresTable(run, hasEvents) {
  const rows = figureRows(run.a.figures, run.b?.figures ?? null, { hasEvents });
  const t = el('table', undefined, 'figures-table tl-figures');
  t.append(el('caption', run.b ? 'Headline figures of configurations A and B' : 'Headline figures', 'visually-hidden'));
  const head = el('tr');
  const cols = run.b ? ['figure', 'A', 'B', 'B − A'] : ['figure', 'value'];
  head.append(...cols.map((h) => attrs(el('th', h), { scope: 'col' })));
  const thead = el('thead');
  thead.append(head);
  const body = el('tbody');
  for (const r of rows) {
    const tr = attrs(el('tr'), { 'data-figure': r.key, title: r.help });
    tr.append(attrs(el('th', r.label), { scope: 'row' }));
    tr.append(attrs(cell(r.a, r.rawA), { 'data-config': 'A' }));
    if (run.b) {
      const changed = r.diff !== 'same' && r.diff !== '—' ? 'changed' : undefined;
      tr.append(attrs(cell(r.b, r.rawB, changed), { 'data-config': 'B' }), attrs(el('td', r.diff, changed), { 'data-config': 'diff' }));
    }
    body.append(tr);
  }
  t.append(thead, body);
  return t;
}
