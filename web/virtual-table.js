// A virtual table: only the visible rows exist in the DOM, and rows come from an async source
// (the worker sorts and filters), so 100,000 rows scroll as easily as 10. Cells are text only.
import { el } from './format.js';

const ROW_H = 24;

export class VirtualTable {
  /**
   * columns: [{ key, label, render(row) -> string, sortable }]
   * fetch({ sort, desc, filter, offset, limit }) -> Promise<{ total, rows }>
   */
  constructor(host, { columns, fetch, height = 360, initialSort, onSort }) {
    this.columns = columns;
    this.fetch = fetch;
    this.sort = initialSort?.key ?? columns[0].key;
    this.desc = initialSort?.desc ?? false;
    this.filter = '';
    this.total = 0;
    this.rows = [];
    this.offset = 0;
    this.onSort = onSort;
    this.seq = 0;

    this.table = el('div', undefined, 'vtable');
    this.table.setAttribute('role', 'table');
    const head = el('div', undefined, 'vrow vhead');
    head.setAttribute('role', 'row');
    for (const c of columns) {
      const h = el('button', c.label, `vcell vcol-${c.key}`);
      h.type = 'button';
      h.setAttribute('role', 'columnheader');
      h.dataset.key = c.key;
      if (c.sortable !== false) h.addEventListener('click', () => this.setSort(c.key));
      else h.disabled = true;
      head.append(h);
    }
    this.head = head;
    this.viewport = el('div', undefined, 'vviewport');
    this.viewport.style.height = `${height}px`;
    this.spacer = el('div', undefined, 'vspacer');
    this.body = el('div', undefined, 'vbody');
    this.viewport.append(this.spacer, this.body);
    this.viewport.addEventListener('scroll', () => this.schedule());
    this.status = el('div', '', 'vstatus');
    this.table.append(head, this.viewport, this.status);
    host.replaceChildren(this.table);
    this.markSort();
  }

  setSort(key) {
    if (this.sort === key) this.desc = !this.desc;
    else { this.sort = key; this.desc = key === 'weight' || key === 'gain'; }
    this.markSort();
    this.onSort?.(this.sort, this.desc);
    this.refresh(true);
  }

  markSort() {
    for (const h of this.head.children) {
      const on = h.dataset.key === this.sort;
      h.classList.toggle('sorted', on);
      h.setAttribute('aria-sort', on ? (this.desc ? 'descending' : 'ascending') : 'none');
    }
  }

  setFilter(text) {
    this.filter = text;
    this.refresh(true);
  }

  schedule() {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => { this.frame = 0; this.refresh(false); });
  }

  async refresh(reset) {
    if (reset) this.viewport.scrollTop = 0;
    const first = Math.floor(this.viewport.scrollTop / ROW_H);
    const count = Math.ceil(this.viewport.clientHeight / ROW_H) + 10;
    const offset = Math.max(0, first - 5);
    const seq = ++this.seq;
    const page = await this.fetch({ sort: this.sort, desc: this.desc, filter: this.filter, offset, limit: count });
    if (seq !== this.seq) return; // a newer request is under way
    this.total = page.total;
    this.spacer.style.height = `${page.total * ROW_H}px`;
    this.body.style.transform = `translateY(${offset * ROW_H}px)`;
    this.body.replaceChildren(...page.rows.map((r) => {
      const row = el('div', undefined, 'vrow');
      row.setAttribute('role', 'row');
      for (const c of this.columns) {
        const cell = el('div', c.render(r), `vcell vcol-${c.key}`);
        cell.setAttribute('role', 'cell');
        row.append(cell);
      }
      return row;
    }));
    this.status.textContent = page.total === 0 ? 'nothing to show' : `${page.total.toLocaleString('en')} rows`;
  }
}
