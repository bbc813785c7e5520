// A table sortable by its columns: each header a button (the sort's state in `aria-sort`), a
// second press reverses it. The rows are sorted for display only, by each column's comparator,
// and keyed: drawn again (sorted anew, or with new figures), a row keeps its element.
import { html, nothing, repeat } from './lit.js';

/** The state of a sortable table's sort, kept by its view across redraws: { index, desc }. */
export function sortState(index = 0, desc = false) {
  return { index, desc };
}

function ariaSort(c, i, sort) {
  if (!c.cmp) return nothing;
  if (i !== sort.index) return 'none';
  return sort.desc ? 'descending' : 'ascending';
}

/**
 * columns: [{ label, cmp(a, b) (absent: not sortable), desc (its first press sorts descending) }];
 * rows: the data rows, keyed by `key(row)`; row(r): its `<tr>`. `sort`: the view's sortState(),
 * changed by a press, after which `onSort()` draws the table again. Returns the table's template.
 */
export function sortableTable({ columns, rows, key, row, sort, onSort, cls = 'data', caption = null }) {
  const col = columns[sort.index];
  const sorted = col?.cmp ? rows.slice().sort((a, b) => (sort.desc ? -1 : 1) * col.cmp(a, b)) : rows;
  const press = (i) => {
    Object.assign(sort, sort.index === i ? { desc: !sort.desc } : { index: i, desc: Boolean(columns[i].desc) });
    onSort();
  };
  return html`<table class=${cls}>${caption ? html`<caption class="visually-hidden">${caption}</caption>` : nothing}<thead><tr>${
    columns.map((c, i) => html`<th scope="col" aria-sort=${ariaSort(c, i, sort)}>${
      c.cmp ? html`<button type="button" class="sort" @click=${() => press(i)}>${c.label}</button>` : c.label}</th>`)}</tr></thead><tbody>${
    repeat(sorted, key, row)}</tbody></table>`;
}
