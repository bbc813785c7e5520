// The fleet chart: one row per member, its load now (thin bar) and planned (thick bar), the
// part over each side's mean in a warm colour exactly where the core's summary says the member
// is over it, the mean now (dotted) and the planned mean (dashed) as labelled lines, lanes
// against the cap with a "full" badge, axis ticks. A fleet too large to show whole shows the
// heaviest member now and the heaviest planned first, then the first 25 of the order; on paper
// every member follows them. Rows are buttons in one tab stop (a roving tabindex: the arrow
// keys, Home, End, Page Up and Page Down move between them): hover, focus, a tap or a
// long-press shows the figures; click, tap or Enter filters moves, splits and claims to the
// member, and the row keeps the focus when the chart is drawn again. A member asked for (a
// tile, the search) is shown, scrolled into view and focused.
// HTML, so it reflows with the element's width; the SVG/PNG export is the core's chart.
import { el, attrs, select, section } from '../../common/page/dom.js';
import { html, render, nothing, repeat } from '../../common/page/lit.js';
import { changed } from '../../common/page/store.js';
import { chartModel, describeMember, rowKeyTarget, FOLD_OVER, TOP_N } from '../shared/chart-model.js';
import { ORDERS } from '../../common/shared/sort.js';
import { humanBytes } from '../../common/shared/format.js';
import { createTooltip } from './tooltip.js';
import { memberSearch } from './chart-search.js';
import { memberActions } from '../../timeline/page/actions.js';

/** Members printed beyond the fold, at most (the report lists every member of any fleet). */
const PRINT_MAX = 2000;

// (positions go through the style property, the CSS object model, which the page's
// Content-Security-Policy allows; a style attribute would be refused)
function bar(cls, from, to) {
  return html`<span class=${`bar ${cls}`} .style=${`left: ${(from * 100).toFixed(3)}%; width: ${(Math.max(0, to - from) * 100).toFixed(3)}%`}></span>`;
}

/** A bar from 0 to `value`; over its side's mean (the core's mark), split at that mean. */
function bars(kind, value, over, mean, model) {
  const end = model.at(value);
  if (!over) return [bar(kind, 0, end)];
  const meanAt = Math.min(end, model.at(mean));
  return [bar(kind, 0, meanAt), bar(`${kind} over`, meanAt, end)];
}

/**
 * The mark of a member holding splits at risk of quarantine (the core's count), at the end of its
 * longer bar; before that end when the bar reaches the axis' last fifth.
 */
function riskMark(r, model) {
  const end = Math.max(model.at(r.now), model.at(r.planned));
  return html`<span class=${`risk-mark${end > 0.8 ? ' before' : ''}`} aria-hidden="true" .style=${`--at: ${end}`}>⚠${r.atRisk}</span>`;
}

/** A row's class: its marks (over a mean, full, at risk, pinned). */
function rowClass(r, d, paper) {
  const k = r.marks;
  return `member${k.over_now || k.over_planned ? ' is-over' : ''}${d.full ? ' is-full' : ''}${r.atRisk ? ' has-risk' : ''}${r.pinned.length ? ' is-pinned' : ''}${paper ? ' print-only' : ''}`;
}

/** What a row shows: the name (with its pins, and its figures for those who do not see the bars), the bars, the lanes. */
function rowParts(r, d, model) {
  const k = r.marks;
  return html`<span class="name">${r.name}${r.pinned.map((p) => html`<span class="pin">${p}</span>`)}<span
    class="visually-hidden">: ${d.short.slice(r.name.length + 2)}; lanes</span></span><span class="track">${bars('now', r.now, k.over_now, model.means.now.at, model)}${
    bars('planned', r.planned, k.over_planned, model.means.planned.at, model)}${r.atRisk ? riskMark(r, model) : nothing}</span><span
    class="lanes">${r.lanes}/${r.cap}${r.defaultCap ? '*' : ''}${d.full ? html`<span class="badge"> full</span>` : nothing}</span>`;
}

/** A member's row on screen: a button in the rows' one tab stop (`row.tabStop`), its figures on hover and focus. */
function memberRow(r, model, state, row) {
  const d = describeMember(r, model.pct);
  row.described.set(r.name, d);
  return html`<button type="button" class=${rowClass(r, d, false) + (r.name === row.asked ? ' is-asked' : '')} data-member=${r.name} aria-pressed=${String(state.focus === r.name)}
    tabindex=${row.tabStop === r.name ? 0 : -1} @click=${row.click} @focus=${row.focus}>${rowParts(r, d, model)}</button>`;
}

/** A member's row that only the printout shows. */
function paperRow(r, model) {
  const d = describeMember(r, model.pct);
  return html`<div class=${rowClass(r, d, true)} data-print-member=${r.name}>${rowParts(r, d, model)}</div>`;
}

function axis(model) {
  // the columns named: the member, its load (the axis), its lanes against its cap
  return html`<div class="axis" aria-hidden="true"><span class="axis-head">member</span><div class="axis-track">${
    model.ticks.map((t) => html`<span class="tick" .style=${`left: ${(t.at * 100).toFixed(3)}%`}>${t.label}</span>`)}</div><span class="axis-head">lanes/cap</span></div>`;
}

/**
 * The two means as labelled lines: the labels above the rows, one line each, on the side of
 * their line with more room (ending at it in the axis' right half, starting at it in its left).
 */
function meanLines(model) {
  return Object.entries(model.means).map(([key, mean]) => {
    const at = model.at(mean.at);
    return html`<span class=${`mean-line mean-${key}${at < 0.5 ? ' label-after' : ''}`} aria-hidden="true" .style=${`--at: ${at}`}><span class="mean-label">${mean.label}</span></span>`;
  });
}

/** The legend: what each mark means; the at-risk mark only when some member holds splits at risk (the core's count). */
function legend(pct, atRisk) {
  const item = (cls, text) => html`<li>${cls ? html`<span class=${`key ${cls}`} aria-hidden="true"></span>` : nothing}<span>${text}</span></li>`;
  return html`<ul class="legend">${item('now', 'now')}${item('planned', 'planned')}${item('over', `over its mean (by more than ${pct}%)`)}${
    item('mean-now', 'mean now')}${item('mean-planned', 'planned mean')}${item('full', 'full: every lane used')}${
    item(null, "*: the leader's default cap")}${atRisk > 0 ? item('risk', 'splits at risk of quarantine') : nothing}</ul>`;
}

/** The rows beyond the fold, for paper only: every member the screen folds, in the order chosen. */
function paperRows(view, state, model, keep, tickCount) {
  if (!model.folded) return [];
  const shown = new Set(model.rows.map((r) => r.name));
  const all = chartModel(view, { order: state.order, all: true, keep, tickCount });
  const rest = all.rows.filter((r) => !shown.has(r.name));
  const rows = rest.slice(0, PRINT_MAX).map((r) => paperRow(r, model));
  if (rest.length > PRINT_MAX) rows.push(html`<p class="print-only">… and ${rest.length - PRINT_MAX} more members: the Markdown report lists every one.</p>`);
  return rows;
}

/** The rows' one tab stop: `row` (or the first) takes it, every other row leaves the tab order. */
function rove(rows, row) {
  const all = [...rows.querySelectorAll('button.member')];
  const to = all.includes(row) ? row : all[0];
  for (const b of all) b.tabIndex = b === to ? 0 : -1;
}

function rowsGroup() {
  const rows = attrs(el('div', undefined, 'rows'), { role: 'toolbar', 'aria-orientation': 'vertical', 'aria-label': 'members (the arrow keys move between them)' });
  rows.addEventListener('focusin', (e) => { if (e.target.matches?.('button.member')) rove(rows, e.target); });
  rows.addEventListener('keydown', (e) => {
    if (e.altKey || e.ctrlKey || e.metaKey || !e.target.matches?.('button.member')) return;
    const all = [...rows.querySelectorAll('button.member')];
    const to = rowKeyTarget(e.key, all.indexOf(e.target), all.length);
    if (to === null) return;
    e.preventDefault(); // the page does not scroll for these keys: the focus does
    all[to].focus();
  });
  return rows;
}

/** The chart's tools (the order, the member search, the legend's slot) and its caption. */
function chartParts(controller) {
  const order = select(Object.entries(ORDERS).map(([k, o]) => [k, o.label]), 'Order the members by');
  order.addEventListener('change', () => controller.setOrder(order.value));
  const tools = el('div', undefined, 'chart-tools');
  const orderField = el('label', undefined, 'inline-field');
  orderField.append(el('span', 'Order by'), order);
  const search = memberSearch(controller);
  const key = el('div', undefined, 'legend-slot');
  tools.append(orderField, search.node, key);
  const caption = el('p', '', 'hint chart-caption');
  const figures = el('span', '', 'chart-figures');
  // how to use it, on screen only: paper is not touched
  const how = el('span', 'Hover, focus, tap or long-press a member for its figures; click, tap or press Enter to show only its moves, splits and claims, or to crash it in the Timeline. The arrow keys move between members.', 'screen-only');
  caption.append(figures, how);
  return { order, tools, search, key, caption, figures };
}

/**
 * The fold's line: how many members are folded and Show all, or Show the top 25 only (`unfold(all)`).
 * One button either way, so the one that had the focus keeps it.
 */
function foldLine(model, order, all, unfold) {
  if (!model.folded && !(all && model.total > FOLD_OVER)) return nothing;
  const words = model.folded ? `${model.folded} more member${model.folded === 1 ? '' : 's'} folded (the heaviest now and planned first, then ${ORDERS[order]?.label || 'name'} order). ` : '';
  return html`<span>${words}</span><button type="button" @click=${() => unfold(Boolean(model.folded))}>${model.folded ? `Show all ${model.total}` : `Show the top ${TOP_N} only`}</button>`;
}

/**
 * The rows: the mean lines, a row per member keyed by name (a member's row stays the same element
 * however the rows are ordered or refigured, so the row that had the focus keeps it), the picked
 * member's actions under its row, then the rows only the printout shows.
 */
function rowsTemplate(view, state, model, keep, tickCount, row, paper) {
  const actions = row.actions?.member;
  return html`${meanLines(model)}${repeat(model.rows, (r) => r.name, (r) => html`${memberRow(r, model, state, row)}${
    r.name === actions ? row.actions.node : nothing}`)}${paper ? paperRows(view, state, model, keep, tickCount) : nothing}`;
}

/**
 * When the printout's rows are drawn: not with the first render, but once the screen's rows are
 * painted (when the page is idle) or at once before printing, and with every draw after that (so
 * they are then updated in place). `redraw()` draws the chart again.
 */
function paperSchedule(win, redraw) {
  let shown = false;
  let handle = null;
  const idle = win.requestIdleCallback ? (fn) => win.requestIdleCallback(fn, { timeout: 1000 }) : (fn) => win.setTimeout(fn, 50);
  const cancel = win.cancelIdleCallback ? (h) => win.cancelIdleCallback(h) : (h) => win.clearTimeout(h);
  const now = () => {
    if (handle !== null) cancel(handle);
    handle = null;
    if (shown) return;
    shown = true;
    redraw();
  };
  win.addEventListener('beforeprint', now);
  return {
    /** Whether the draw under way includes the printout's rows (if not yet, they are asked for). */
    withRows() {
      if (!shown && handle === null) handle = idle(now);
      return shown;
    },
    destroy() { if (handle !== null) cancel(handle); win.removeEventListener('beforeprint', now); },
  };
}

export function createChart(ctx) {
  const { controller } = ctx;
  const node = section('fleet', 'Fleet', 'fleet');
  const { order, tools, search, key, caption, figures } = chartParts(controller);
  const body = el('div', undefined, 'chart');
  const rows = rowsGroup();
  const more = el('div', undefined, 'fold');
  const tip = createTooltip(node);
  node.append(tools, caption, body, more);
  let [all, tickCount] = [false, 5];
  // the printout's rows (every folded member) are not drawn with the first render
  const paper = paperSchedule(window, () => draw(controller.state));
  const row = {
    /** The member asked for last (a tile, the search): kept in view while the plan changes. */
    asked: null,
    /** The member whose row holds the tab stop (the last focused). */
    tabStop: null,
    /** Each drawn member's words (describeMember), for its tooltip. */
    described: new Map(),
    /** The picked member's Timeline actions ({ member, node }), kept while it stays picked. */
    actions: null,
    /** Click, tap or Enter: shows only that member (again: everyone); a long-press showed the figures instead. */
    click(e) {
      const b = e.currentTarget;
      if (tip.longPressed(b)) return;
      const name = b.dataset.member;
      controller.focus(controller.state.focus === name ? null : name);
      // a tap keeps the focus on its row, and the actions opened under it in view (a phone's drawer)
      b.focus({ preventScroll: true });
      const opened = b.nextElementSibling?.classList.contains('row-actions') ? b.nextElementSibling : null;
      (opened ?? b).scrollIntoView({ block: 'nearest' });
    },
    focus(e) { row.tabStop = e.currentTarget.dataset.member; },
  };

  /** The picked member's actions: made when another member is picked, dropped when none is. */
  function syncActions(state) {
    if (row.actions?.member === state.focus) return;
    row.actions = state.focus ? { member: state.focus, node: memberActions(controller, state.focus) } : null;
  }

  function draw(state) {
    const view = state.result?.view;
    if (!view) return;
    order.value = state.order;
    const keep = [state.focus, row.asked].filter(Boolean);
    const model = chartModel(view, { order: state.order, all, keep, tickCount });
    syncActions(state);
    if (!model.rows.some((r) => r.name === row.tabStop)) row.tabStop = model.rows.some((r) => r.name === state.focus) ? state.focus : model.rows[0]?.name ?? null;
    row.described.clear();
    render(html`${axis(model)}${rows}`, body);
    render(rowsTemplate(view, state, model, keep, tickCount, row, paper.withRows()), rows);
    // the picked member's actions sit under its row: its figures go below them
    const under = (t) => (t.nextElementSibling?.classList.contains('row-actions') ? t.nextElementSibling : null);
    for (const b of rows.querySelectorAll('button.member')) tip.attach(b, b.dataset.member, row.described.get(b.dataset.member).lines, under);
    tip.refresh();
    render(legend(model.pct, Object.keys(view.at_risk.by_member).length), key);
    figures.textContent = `${model.total} members; scale 0 – ${humanBytes(BigInt(Math.round(model.end)))}; ${model.means.now.label}, ${model.means.planned.label}. `;
    render(foldLine(model, state.order, all, (v) => { all = v; draw(controller.state); }), more);
  }

  /** Shows the member asked for (unfolded if need be), scrolls its row into view and focuses it. */
  function reveal(state) {
    row.asked = state.reveal.member;
    draw(state);
    const r = body.querySelector(`button[data-member="${CSS.escape(row.asked)}"]`);
    r?.scrollIntoView({ block: 'center' });
    r?.focus({ preventScroll: true });
  }

  // redraw when the element's width changes the number of ticks that fit
  const resize = new ResizeObserver(([entry]) => {
    const next = entry.contentRect.width < 520 ? 3 : entry.contentRect.width < 900 ? 4 : 6;
    if (next !== tickCount) { tickCount = next; draw(controller.state); }
  });
  resize.observe(body);

  return {
    node,
    update(state, prev) {
      if (changed(prev, state, 'result')) search.plan(state);
      if (state.reveal && changed(prev, state, 'reveal')) reveal(state);
      else if (changed(prev, state, 'result', 'order', 'focus')) draw(state);
    },
    destroy() { resize.disconnect(); paper.destroy(); },
  };
}
