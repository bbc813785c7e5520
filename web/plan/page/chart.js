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
import { el, attrs, button, select, section } from '../../common/page/dom.js';
import { changed } from '../../common/page/store.js';
import { chartModel, describeMember, FOLD_OVER, TOP_N } from '../shared/chart-model.js';
import { ORDERS } from '../../common/shared/sort.js';
import { humanBytes } from '../../common/shared/format.js';
import { createTooltip } from './tooltip.js';
import { memberSearch } from './chart-search.js';
import { memberActions } from '../../timeline/page/actions.js';

/** Members printed beyond the fold, at most (the report lists every member of any fleet). */
const PRINT_MAX = 2000;

function bar(cls, from, to) {
  const b = el('span', undefined, `bar ${cls}`);
  b.style.left = `${(from * 100).toFixed(3)}%`;
  b.style.width = `${(Math.max(0, to - from) * 100).toFixed(3)}%`;
  return b;
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
  const mark = attrs(el('span', `⚠${r.atRisk}`, `risk-mark${end > 0.8 ? ' before' : ''}`), { 'aria-hidden': 'true' });
  mark.style.setProperty('--at', String(end));
  return mark;
}

/** A member's row: a button on screen; `paper`: a plain row that only the printout shows. */
function memberRow(r, model, state, paper = false) {
  const d = describeMember(r, model.pct);
  const k = r.marks;
  const cls = `member${k.over_now || k.over_planned ? ' is-over' : ''}${d.full ? ' is-full' : ''}${r.atRisk ? ' has-risk' : ''}${r.pinned.length ? ' is-pinned' : ''}${paper ? ' print-only' : ''}`;
  const b = paper ? attrs(el('div', undefined, cls), { 'data-print-member': r.name })
    : attrs(el('button', undefined, cls), { type: 'button', 'data-member': r.name, 'aria-pressed': String(state.focus === r.name), tabindex: '-1' });
  const name = el('span', r.name, 'name');
  for (const p of r.pinned) name.append(el('span', p, 'pin'));
  // the figures are part of the button's name, for those who do not see the bars
  name.append(el('span', `: ${d.short.slice(r.name.length + 2)}; lanes`, 'visually-hidden'));
  const track = el('span', undefined, 'track');
  track.append(...bars('now', r.now, k.over_now, model.means.now.at, model), ...bars('planned', r.planned, k.over_planned, model.means.planned.at, model));
  if (r.atRisk) track.append(riskMark(r, model));
  const lanes = el('span', `${r.lanes}/${r.cap}${r.defaultCap ? '*' : ''}`, 'lanes');
  if (d.full) lanes.append(el('span', ' full', 'badge'));
  b.append(name, track, lanes);
  return { node: b, lines: d.lines, title: r.name };
}

function axis(model) {
  const a = attrs(el('div', undefined, 'axis'), { 'aria-hidden': 'true' });
  const inner = el('div', undefined, 'axis-track');
  for (const t of model.ticks) {
    const tick = el('span', t.label, 'tick');
    tick.style.left = `${(t.at * 100).toFixed(3)}%`;
    inner.append(tick);
  }
  // the columns named: the member, its load (the axis), its lanes against its cap
  a.append(el('span', 'member', 'axis-head'), inner, el('span', 'lanes/cap', 'axis-head'));
  return a;
}

/**
 * The two means as labelled lines: the labels above the rows, one line each, on the side of
 * their line with more room (ending at it in the axis' right half, starting at it in its left).
 */
function meanLines(model) {
  return Object.entries(model.means).map(([key, mean]) => {
    const at = model.at(mean.at);
    const line = attrs(el('span', undefined, `mean-line mean-${key}${at < 0.5 ? ' label-after' : ''}`), { 'aria-hidden': 'true' });
    line.style.setProperty('--at', String(at));
    line.append(el('span', mean.label, 'mean-label'));
    return line;
  });
}

/** The legend: what each mark means; the at-risk mark only when some member holds splits at risk (the core's count). */
function legend(pct, atRisk) {
  const l = el('ul', undefined, 'legend');
  const item = (cls, text) => {
    const li = el('li');
    if (cls) li.append(attrs(el('span', undefined, `key ${cls}`), { 'aria-hidden': 'true' }));
    li.append(el('span', text));
    return li;
  };
  l.append(item('now', 'now'), item('planned', 'planned'), item('over', `over its mean (by more than ${pct}%)`),
    item('mean-now', 'mean now'), item('mean-planned', 'planned mean'), item('full', 'full: every lane used'),
    item(null, "*: the leader's default cap"));
  if (atRisk > 0) l.append(item('risk', 'splits at risk of quarantine'));
  return l;
}

/** The rows beyond the fold, for paper only: every member the screen folds, in the order chosen. */
function paperRows(view, state, model, keep, tickCount) {
  if (!model.folded) return [];
  const shown = new Set(model.rows.map((r) => r.name));
  const all = chartModel(view, { order: state.order, all: true, keep, tickCount });
  const rest = all.rows.filter((r) => !shown.has(r.name));
  const rows = rest.slice(0, PRINT_MAX).map((r) => memberRow(r, model, state, true).node);
  if (rest.length > PRINT_MAX) rows.push(el('p', `… and ${rest.length - PRINT_MAX} more members: the Markdown report lists every one.`, 'print-only'));
  return rows;
}

/** Arrow keys, Home, End, Page Up and Page Down among the rows: the row to focus, or null. */
export function rowKeyTarget(key, at, count) {
  switch (key) {
    case 'ArrowDown': return Math.min(count - 1, at + 1);
    case 'ArrowUp': return Math.max(0, at - 1);
    case 'Home': return 0;
    case 'End': return count - 1;
    case 'PageDown': return Math.min(count - 1, at + 10);
    case 'PageUp': return Math.max(0, at - 10);
    default: return null;
  }
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
 * What has the focus in the chart `node` before it is drawn again: the member a tap asked for,
 * a member's row, the fold's button (in `more`), or nothing.
 */
function focusedPart(node, more, tapped) {
  const active = node.getRootNode().activeElement;
  if (tapped) return { member: tapped };
  if (!active || !node.contains(active)) return null;
  if (active.dataset.member) return { member: active.dataset.member };
  return more.contains(active) ? { fold: true } : null;
}

/** Gives the focus back to what had it (focusedPart()), once `body` and `more` are drawn again. */
function restore(part, body, more) {
  if (!part) return;
  const to = part.fold ? more.querySelector('button') : body.querySelector(`button[data-member="${CSS.escape(part.member)}"]`);
  if (!to) return;
  // the row and the actions opened under it in view (a tap near a phone's drawer), then the focus
  const opened = to.nextElementSibling?.classList.contains('row-actions') ? to.nextElementSibling : null;
  (opened ?? to).scrollIntoView({ block: 'nearest' });
  to.focus({ preventScroll: true });
}

/** The fold's line: how many members are folded and Show all, or Show the top 25 only (`unfold(all)`). */
function foldLine(model, order, all, unfold) {
  if (model.folded) {
    return [el('span', `${model.folded} more member${model.folded === 1 ? '' : 's'} folded (the heaviest now and planned first, then ${ORDERS[order]?.label || 'name'} order). `),
      button(`Show all ${model.total}`, () => unfold(true))];
  }
  return all && model.total > FOLD_OVER ? [button(`Show the top ${TOP_N} only`, () => unfold(false))] : [];
}

export function createChart(ctx) {
  const { controller } = ctx;
  const node = section('fleet', 'Fleet', 'fleet');
  const { order, tools, search, key, caption, figures } = chartParts(controller);
  const body = el('div', undefined, 'chart');
  const more = el('div', undefined, 'fold');
  const tip = createTooltip(node);
  node.append(tools, caption, body, more);
  let [all, tickCount] = [false, 5];
  /** The member asked for last (a tile, the search): kept in view while the plan changes. */
  let asked = null;
  /** The row that holds the tab stop (the last focused), and the one a tap asks to keep the focus. */
  let [roving, tapped] = [null, null];

  /** One member's row, its figures on hover, focus, tap and long-press, its filter on click. */
  function rowOf(r, model, state) {
    const row = memberRow(r, model, state);
    if (r.name === asked) row.node.classList.add('is-asked');
    // the picked member's actions (crash, stop) sit under its row: its figures go below them
    tip.attach(row.node, row.title, row.lines, (t) => (t.nextElementSibling?.classList.contains('row-actions') ? t.nextElementSibling : null));
    row.node.addEventListener('click', () => {
      if (tip.longPressed(row.node)) return; // a long-press showed the figures: no filter
      tapped = r.name;
      controller.focus(state.focus === r.name ? null : r.name);
    });
    row.node.addEventListener('focus', () => { roving = r.name; });
    return row.node;
  }

  function draw(state) {
    const view = state.result?.view;
    if (!view) return;
    const part = focusedPart(node, more, tapped);
    tapped = null;
    order.value = state.order;
    tip.hide(); // the rows it belongs to are replaced
    const keep = [state.focus, asked].filter(Boolean);
    const model = chartModel(view, { order: state.order, all, keep, tickCount });
    const rows = rowsGroup();
    rows.append(...meanLines(model));
    for (const r of model.rows) {
      rows.append(rowOf(r, model, state));
      if (state.focus === r.name) rows.append(memberActions(controller, r.name));
    }
    rows.append(...paperRows(view, state, model, keep, tickCount));
    body.replaceChildren(axis(model), rows);
    rove(rows, rows.querySelector(`button[data-member="${CSS.escape(part?.member ?? roving ?? state.focus ?? '')}"]`));
    key.replaceChildren(legend(model.pct, Object.keys(view.at_risk.by_member).length));
    figures.textContent = `${model.total} members; scale 0 – ${humanBytes(BigInt(Math.round(model.end)))}; ${model.means.now.label}, ${model.means.planned.label}. `;
    more.replaceChildren(...foldLine(model, state.order, all, (v) => { all = v; draw(controller.state); }));
    restore(part, body, more);
  }

  /** Shows the member asked for (unfolded if need be), scrolls its row into view and focuses it. */
  function reveal(state) {
    asked = state.reveal.member;
    draw(state);
    const row = body.querySelector(`button[data-member="${CSS.escape(asked)}"]`);
    row?.scrollIntoView({ block: 'center' });
    row?.focus({ preventScroll: true });
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
    destroy() { resize.disconnect(); },
  };
}
