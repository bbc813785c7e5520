// The answer first: a strip of figures for "who is overloaded, and what does the plan do about
// it", each explained in words on hover, by its ? button (a tap or a key shows the words under
// the strip) and to assistive technology, and the status line that says what the last action
// changed. Every figure is the core's summary (the plan view's `summary`: each side against the
// mean it names), shown as it is; the heaviest members' tiles lead to their rows in the chart.
// On a narrow element the strip is one line (max/mean, moves, over the mean) that opens to the
// tiles.
import { el, attrs, button } from '../../common/page/dom.js';
import { changed } from '../../common/page/store.js';
import { statusLine } from '../../common/page/announce.js';
import { humanBytes, exactBytes, thousands, plural } from '../../common/shared/format.js';

function tile(key, label, value, sub, help, onOpen = null) {
  const t = attrs(el(onOpen ? 'button' : 'div', undefined, `tile${onOpen ? ' opens' : ''}`), { 'data-tile': key, title: help });
  if (onOpen) {
    t.type = 'button';
    t.addEventListener('click', onOpen);
  }
  t.append(el('span', label, 'label'), el('span', value, 'value'));
  if (sub) t.append(el('span', sub, 'sub'));
  t.append(el('span', help, 'visually-hidden'));
  t.help = { label, help };
  return t;
}

/**
 * A tile in its cell, with the ? button that shows its words under the strip (touch has no
 * hover): `open(key)` toggles them; the cell says whether they are shown.
 */
function tileCell(t, open, shown) {
  const cell = el('div', undefined, 'tile-cell');
  const key = t.dataset.tile;
  const info = attrs(button('?', () => open(key), 'tile-info', `What “${t.help.label}” means`), { 'aria-expanded': String(shown === key), 'aria-controls': 'tile-help' });
  info.removeAttribute('title');
  cell.append(t, info);
  return cell;
}

/** The one line a narrow strip shows: max/mean, moves and members over the mean, now → planned (the core's). */
function oneLine(v) {
  const s = v.summary;
  return `max/mean ${s.now.max_over_mean}→${s.planned.max_over_mean} · ${thousands(s.moves)} moves · over ${thousands(s.now.over_mean)}→${thousands(s.planned.over_mean)}`;
}

function publishedTile(v) {
  const help = "How far the plan is from the assignment the leader last published (its assign.* records): the splits a worker would see change hands.";
  if (!v.leader_publishes) {
    return tile('published', 'Published', 'nothing', 'the current assignments stand',
      `The leader publishes nothing (${v.no_publish_reason === 'no_members' ? 'no members' : 'no plan record'}): the current assignments stand.`);
  }
  const p = v.published;
  if (!p) return tile('published', 'Published', 'none yet', 'no assign.* records', help);
  return tile('published', 'Differs from published', plural(p.changes, 'split'),
    `${thousands(p.records)} records${p.stale.length ? `, ${p.stale.length} stale` : ''}`, help);
}

/** The core's splits at risk of quarantine: how many, by which max_attempts (and its source), and those the claim race parked. */
function atRiskTile(v) {
  const r = v.at_risk;
  const parked = r.race_parked_count ? `; ${thousands(r.race_parked_count)} parked by the claim race` : '';
  const notes = [r.past_cap_note, r.race_parked_note].filter(Boolean).join(' ');
  return tile('at-risk', 'At risk', thousands(r.count), `of max_attempts ${thousands(r.max_attempts)}${parked}`,
    `Splits one attempt from quarantine: one crash of their holder, or one hand-over that the claim race parks, quarantines them. ${r.headline} max_attempts ${r.max_attempts_note}.${notes ? ` ${notes}` : ''}`);
}

function heaviestTile(key, label, h, which, controller) {
  const help = `${which === 'now' ? "Today's" : 'The plan\'s'} heaviest member, ${h.name}: ${exactBytes(h.load_now)} now, ${exactBytes(h.load_planned)} after the plan; its load now over the mean now, and its planned load over the planned mean. Opens its row in the chart.`;
  return tile(key, label, `${humanBytes(h.load_now)} → ${humanBytes(h.load_planned)}`,
    `${h.name}: ${h.now_over_mean}× → ${h.planned_over_mean}× the mean`, help, () => controller.reveal(h.name));
}

function tiles(v, base, controller) {
  const s = v.summary;
  const out = [];
  if (s.heaviest_now) out.push(heaviestTile('worst', 'Heaviest now', s.heaviest_now, 'now', controller));
  if (s.heaviest_planned) out.push(heaviestTile('worst-planned', 'Heaviest planned', s.heaviest_planned, 'planned', controller));
  out.push(tile('over-mean', 'Over the mean', `${thousands(s.now.over_mean)} → ${thousands(s.planned.over_mean)}`,
    `of ${thousands(s.members)} members, by more than ${s.over_mean_percent}%`,
    `Members whose load is more than ${s.over_mean_percent}% above the mean: now against the mean of the work owned now, after the plan against the planned mean. The chart marks exactly these.`));
  out.push(tile('at-cap', 'At lane cap', `${thousands(s.now.at_cap)} → ${thousands(s.planned.at_cap)}`, 'members with every lane used',
    'Members that use every lane their cap allows (max_in_flight), now and after the plan: they take no more splits.'));
  out.push(tile('moves', 'Moves', thousands(s.moves), `${humanBytes(s.weight_moved)} moved${base ? `; baseline ${thousands(base.summary.moves)}` : ''}`,
    `Splits that change hands in the plan, and their weight (${exactBytes(s.weight_moved)}).`));
  out.push(tile('balance', 'Max / mean', `${s.now.max_over_mean} → ${s.planned.max_over_mean}`,
    base ? `baseline plan ${base.summary.planned.max_over_mean}` : 'the heaviest member\'s load over the mean',
    'The heaviest member\'s load over the mean, now (against the mean now) and after the plan (against the planned mean): 1.000 means every member carries the same; 0 when nothing is owned.'));
  out.push(atRiskTile(v));
  out.push(publishedTile(v));
  return out;
}

export function createSummary(ctx) {
  const node = attrs(el('section', undefined, 'summary'), { 'aria-labelledby': 'summary-title' });
  const title = attrs(el('h2', 'Summary', 'visually-hidden'), { id: 'summary-title' });
  // a narrow element's strip: one line that opens to the tiles (style.css shows it below 600 px)
  const line = attrs(button('', () => setOpen(!open), 'strip-line'), { 'aria-expanded': 'false', 'aria-controls': 'summary-strip' });
  const lineText = el('span', '', 'strip-line-text');
  line.append(lineText, attrs(el('span', '▾', 'chevron'), { 'aria-hidden': 'true' }));
  const strip = attrs(el('div', undefined, 'strip'), { id: 'summary-strip' });
  const help = attrs(el('p', '', 'tile-help'), { id: 'tile-help', 'aria-live': 'polite' });
  help.hidden = true;
  const status = statusLine('status');
  node.append(title, line, strip, help, status.node, status.region);
  let open = false;
  let shown = null;
  let byKey = new Map();

  function setOpen(v) {
    open = v;
    node.classList.toggle('open', v);
    line.setAttribute('aria-expanded', String(v));
  }

  /** Shows the words of the tile `key` under the strip, or hides them when they are shown. */
  function explain(key) {
    shown = shown === key ? null : key;
    for (const b of strip.querySelectorAll('.tile-info')) b.setAttribute('aria-expanded', String(b.closest('.tile-cell').firstChild.dataset.tile === shown));
    const t = byKey.get(shown);
    help.hidden = !t;
    help.replaceChildren(...(t ? [el('strong', `${t.help.label}: `), el('span', t.help.help)] : []));
  }

  function render(state) {
    const ts = state.result ? tiles(state.result.view, state.result.baseline, ctx.controller) : [];
    byKey = new Map(ts.map((t) => [t.dataset.tile, t]));
    strip.replaceChildren(...ts.map((t) => tileCell(t, explain, shown)));
    lineText.textContent = state.result ? oneLine(state.result.view) : '';
    if (shown) { const key = shown; shown = null; explain(key); }
  }

  return {
    node,
    update(state, prev) {
      if (changed(prev, state, 'result')) render(state);
      if (changed(prev, state, 'status')) status.set(state.status);
      // nothing planned and nothing to say: no empty strip under the message
      node.hidden = !state.result && !state.status && !state.loading;
    },
  };
}
