// A table sortable by its columns: each header a button (the sort's state in `aria-sort`), a
// second press reverses it. The rows are sorted for display only, by each column's comparator.
import { el, attrs, table, row } from './dom.js';

/**
 * columns: [{ label, cmp(a, b) (absent: not sortable), desc (its first press sorts descending) }];
 * rows: the data rows; cells(row): its cells (text or nodes); decorate(tr, row): marks a row.
 * `sort`: { index, desc } shown first. Returns the table element.
 */
export function sortableTable({ columns, rows, cells, decorate = () => {}, cls = 'data', caption = null, sort = { index: 0, desc: false } }) {
  const t = table(columns.map(() => ''), [], cls, caption);
  const heads = [...t.tHead.rows[0].cells];
  let current = { ...sort };
  const render = () => {
    const col = columns[current.index];
    const sorted = rows.slice().sort((a, b) => (current.desc ? -1 : 1) * col.cmp(a, b));
    const body = el('tbody');
    for (const r of sorted) {
      const tr = row(cells(r));
      decorate(tr, r);
      body.append(tr);
    }
    t.tBodies[0].replaceWith(body);
    heads.forEach((th, i) => {
      if (columns[i].cmp) th.setAttribute('aria-sort', i === current.index ? (current.desc ? 'descending' : 'ascending') : 'none');
    });
  };
  columns.forEach((c, i) => {
    const th = heads[i];
    if (!c.cmp) { th.textContent = c.label; return; }
    const b = attrs(el('button', c.label, 'sort'), { type: 'button' });
    b.addEventListener('click', () => {
      current = current.index === i ? { index: i, desc: !current.desc } : { index: i, desc: Boolean(c.desc) };
      render();
    });
    th.append(b);
  });
  render();
  return t;
}
