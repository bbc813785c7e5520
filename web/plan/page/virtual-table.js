// A virtual table: a real <table> in a keyboard-reachable scroll area, with only the visible
// rows in the DOM (spacer rows above and below), fed by an async source (the worker sorts and
// filters), so 100,000 rows scroll as easily as 10. Cells are text; cut cells show the full
// value on hover.
import { el, attrs } from '../../common/page/dom.js';

const ROW_H = 26;

export class VirtualTable {
  /**
   * columns: [{ key, label, render(row) -> string | { text, title }, help }]
   * fetch({ sort, desc, offset, limit }) -> Promise<{ total, rows }>; onError(e).
   */
  constructor({ label, columns, fetch, onError, height = 360, initialSort }) {
    Object.assign(this, { columns, fetch, onError, height });
    this.sort = initialSort?.key ?? columns[0].key;
    this.desc = initialSort?.desc ?? false;
    this.seq = 0;
    this.viewport = attrs(el('div', undefined, 'vviewport'), { tabindex: 0, role: 'region', 'aria-label': label });
    this.viewport.style.maxHeight = `${height}px`;
    this.table = el('table', undefined, 'data vtable');
    this.head = el('tr');
    for (const c of columns) this.head.append(this.headerCell(c));
    const thead = el('thead');
    thead.append(this.head);
    this.body = el('tbody');
    this.table.append(thead, this.body);
    this.viewport.append(this.table);
    this.scrolled = 0;
    this.viewport.addEventListener('scroll', () => { this.scrolled = this.viewport.scrollTop; this.schedule(); });
    this.status = el('p', '', 'vstatus hint');
    this.node = el('div', undefined, 'vwrap');
    this.node.append(this.viewport, this.status);
    this.markSort();
  }

  headerCell(c) {
    const th = attrs(el('th'), { scope: 'col', 'data-key': c.key });
    const b = el('button', c.label, 'sort');
    b.type = 'button';
    if (c.help) b.title = c.help;
    b.addEventListener('click', () => this.setSort(c.key));
    // a sticky header cell is not scrolled into view sideways with the focus: bring it in
    b.addEventListener('focus', () => this.revealColumn(th));
    th.append(b);
    return th;
  }

  /** Scrolls the table sideways so that the header cell `th` is inside the scroll area. */
  revealColumn(th) {
    const v = this.viewport.getBoundingClientRect();
    const t = th.getBoundingClientRect();
    if (t.right > v.right) this.viewport.scrollLeft += t.right - v.right + 8;
    else if (t.left < v.left) this.viewport.scrollLeft -= v.left - t.left + 8;
  }

  setSort(key) {
    if (this.sort === key) this.desc = !this.desc;
    else { this.sort = key; this.desc = key === 'weight' || key === 'relief'; }
    this.markSort();
    this.refresh(true);
  }

  markSort() {
    for (const th of this.head.children) {
      const on = th.dataset.key === this.sort;
      th.setAttribute('aria-sort', on ? (this.desc ? 'descending' : 'ascending') : 'none');
      th.classList.toggle('sorted', on);
    }
  }

  schedule() {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => { this.frame = 0; this.refresh(false); });
  }

  spacer(h) {
    const tr = attrs(el('tr', undefined, 'spacer'), { 'aria-hidden': 'true' });
    const td = attrs(el('td'), { colspan: this.columns.length });
    td.style.height = `${h}px`;
    tr.append(td);
    return tr;
  }

  cell(c, r) {
    const v = c.render(r);
    const td = el('td', typeof v === 'object' && v !== null ? v.text : v);
    if (typeof v === 'object' && v?.title) td.title = v.title;
    else if (typeof v === 'string' && v.length > 24) td.title = v;
    return td;
  }

  /** Fetches the visible slice; `reset` scrolls back to the top. Failures go to onError. */
  async refresh(reset) {
    // a reset reads no layout (the page is being redrawn): the top rows, as many as fit the height
    if (reset && this.scrolled) { this.viewport.scrollTop = 0; this.scrolled = 0; }
    const first = reset ? 0 : Math.floor(this.viewport.scrollTop / ROW_H);
    const count = Math.ceil((reset ? this.height : this.viewport.clientHeight || this.height) / ROW_H) + 10;
    const offset = Math.max(0, first - 5);
    const seq = ++this.seq;
    let page;
    try {
      page = await this.fetch({ sort: this.sort, desc: this.desc, offset, limit: count });
    } catch (e) {
      if (seq === this.seq) this.onError?.(e);
      return;
    }
    if (seq !== this.seq) return; // a newer request is under way
    const rows = page.rows.map((r) => {
      const tr = el('tr');
      for (const c of this.columns) tr.append(this.cell(c, r));
      return tr;
    });
    const below = Math.max(0, page.total - offset - page.rows.length) * ROW_H;
    this.body.replaceChildren(this.spacer(offset * ROW_H), ...rows, this.spacer(below));
    this.status.textContent = page.total === 0 ? 'nothing to show' : `${page.total.toLocaleString('en')} rows`;
  }
}
