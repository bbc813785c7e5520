// The fleet chart: one row per member, its load now (thin bar) and planned (thick bar), the
// part over the fleet mean in a warm colour, the mean as a dashed line, lanes against the cap
// with a "full" badge, axis ticks. Rows are buttons: hover or focus shows the figures, click
// or Enter filters moves, splits and claims to the member. HTML, so it reflows with the
// element's width; the SVG/PNG export draws the same model (plan/page/chart-svg.js).
import { el, attrs, button, select, section } from '../../common/page/dom.js';
import { changed } from '../../common/page/store.js';
import { memberRows, OVER } from '../../common/shared/summary.js';
import { chartModel, describeMember } from '../shared/chart-model.js';
import { ORDERS } from '../../common/shared/sort.js';
import { humanBytes } from '../../common/shared/format.js';
import { createTooltip } from './tooltip.js';
import { memberActions } from '../../timeline/page/actions.js';

function bar(cls, from, to) {
  const b = el('span', undefined, `bar ${cls}`);
  b.style.left = `${(from * 100).toFixed(3)}%`;
  b.style.width = `${(Math.max(0, to - from) * 100).toFixed(3)}%`;
  return b;
}

/**
 * A bar from 0 to `value`; more than 5% over the mean, it is split at the mean into its normal
 * and its over-the-mean part (as the summary strip counts "over the mean").
 */
function bars(kind, value, model) {
  const end = model.at(value);
  const meanAt = model.at(model.mean);
  if (Number(value) <= model.mean * OVER) return [bar(kind, 0, end)];
  return [bar(kind, 0, meanAt), bar(`${kind} over`, meanAt, end)];
}

function memberRow(r, model, focus) {
  const d = describeMember(r, model.mean);
  const b = el('button', undefined, `member${d.over ? ' is-over' : ''}${d.full ? ' is-full' : ''}`);
  const lanesText = `${r.lanes}/${r.cap}${r.defaultCap ? '*' : ''}`;
  attrs(b, { type: 'button', 'data-member': r.name, 'aria-pressed': String(focus === r.name) });
  const name = el('span', r.name, 'name');
  // the figures are part of the button's name, for those who do not see the bars
  name.append(el('span', `: ${d.short.slice(r.name.length + 2)}; lanes`, 'visually-hidden'));
  const track = el('span', undefined, 'track');
  track.append(...bars('now', r.now, model), ...bars('planned', r.planned, model));
  const lanes = el('span', lanesText, 'lanes');
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
  a.append(el('span'), inner, el('span'));
  return a;
}

function legend() {
  const l = el('ul', undefined, 'legend');
  const item = (cls, text) => {
    const li = el('li');
    li.append(attrs(el('span', undefined, `key ${cls}`), { 'aria-hidden': 'true' }), el('span', text));
    return li;
  };
  l.append(item('now', 'now'), item('planned', 'planned'), item('over', 'over the mean (by more than 5%)'), item('mean', 'fleet mean'),
    item('full', 'full: every lane used'));
  return l;
}

export function createChart(ctx) {
  const { controller } = ctx;
  const node = section('fleet', 'Fleet', 'fleet');
  const order = select(Object.entries(ORDERS).map(([k, o]) => [k, o.label]), 'Order the members by');
  order.addEventListener('change', () => controller.setOrder(order.value));
  const tools = el('div', undefined, 'chart-tools');
  const orderField = el('label', undefined, 'inline-field');
  orderField.append(el('span', 'Order by'), order);
  tools.append(orderField, legend());
  const caption = el('p', '', 'hint chart-caption');
  const body = el('div', undefined, 'chart');
  const more = el('div', undefined, 'fold');
  const tip = createTooltip(node);
  node.append(tools, caption, body, more);
  let all = false;
  let tickCount = 5;

  function draw(state) {
    const view = state.result?.view;
    if (!view) return;
    order.value = state.order;
    tip.hide(); // the rows it belongs to are replaced
    const model = chartModel(memberRows(view), { order: state.order, all, focus: state.focus, tickCount });
    const rows = el('div', undefined, 'rows');
    const mean = attrs(el('span', undefined, 'mean-line'), { 'aria-hidden': 'true' });
    mean.style.setProperty('--at', String(model.at(model.mean)));
    rows.append(mean);
    for (const r of model.rows) {
      const row = memberRow(r, model, state.focus);
      // the picked member's actions (crash, stop) sit under its row: its figures go below them
      tip.attach(row.node, row.title, row.lines, (t) => (t.nextElementSibling?.classList.contains('row-actions') ? t.nextElementSibling : null));
      row.node.addEventListener('click', () => controller.focus(state.focus === r.name ? null : r.name));
      rows.append(row.node);
      if (state.focus === r.name) rows.append(memberActions(controller, r.name));
    }
    body.replaceChildren(axis(model), rows);
    caption.textContent = `${model.total} members; scale 0 – ${humanBytes(BigInt(Math.round(model.end)))}; fleet mean ${humanBytes(model.meanBig)} planned. `
      + 'Hover or focus a member for its figures; click or press Enter to show only its moves, splits and claims, or to crash it in the Timeline.';
    more.replaceChildren();
    if (model.folded) {
      more.append(el('span', `${model.folded} more member${model.folded === 1 ? '' : 's'} folded (${ORDERS[state.order]?.label || 'name'} order). `),
        button(`Show all ${model.total}`, () => { all = true; draw(controller.state); }));
    } else if (all && model.total > 40) {
      more.append(button('Show the top 25 only', () => { all = false; draw(controller.state); }));
    }
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
      if (changed(prev, state, 'result', 'order', 'focus')) draw(state);
    },
    destroy() { resize.disconnect(); },
  };
}
