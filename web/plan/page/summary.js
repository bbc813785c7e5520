// The answer first: a strip of figures for "who is overloaded, and what does the plan do about
// it", each explained in words on hover, by its ? button (a tap or a key shows the words under
// the strip) and to assistive technology, and the status line that says what the last action
// changed. Every figure is the core's summary (the plan view's `summary`: each side against the
// mean it names), shown as it is; the heaviest members' tiles lead to their rows in the chart.
// On a narrow element the strip is one line (max/mean, moves, over the mean) that opens to the
// tiles.
import { el, attrs, button } from '../../common/page/dom.js';
import { html, render, nothing, repeat } from '../../common/page/lit.js';
import { changed } from '../../common/page/store.js';
import { statusLine } from '../../common/page/announce.js';
import { humanBytes, exactBytes, thousands, plural } from '../../common/shared/format.js';

/** A tile's figures and words; `onOpen`: what clicking it does (a button then), or null. */
function tile(key, label, value, sub, help, onOpen = null) {
  return { key, label, value, sub, help, onOpen };
}

/**
 * A tile in its cell, with the ? button that shows its words under the strip (touch has no
 * hover): `open(key)` toggles them; the cell says whether they are shown.
 */
function tileCell(t, open, shown) {
  const inner = html`<span class="label">${t.label}</span><span class="value">${valueParts(t.value)}</span>${
    t.sub ? html`<span class="sub">${t.sub}</span>` : nothing}<span class="visually-hidden">${t.help}</span>`;
  const face = t.onOpen
    ? html`<button type="button" class="tile opens" data-tile=${t.key} title=${t.help} @click=${t.onOpen}>${inner}</button>`
    : html`<div class="tile" data-tile=${t.key} title=${t.help}>${inner}</div>`;
  return html`<div class="tile-cell">${face}<button type="button" class="tile-info" aria-label=${`What “${t.label}” means`}
    aria-expanded=${String(shown === t.key)} aria-controls="tile-help" @click=${() => open(t.key)}>?</button></div>`;
}

/**
 * A tile's value, each figure of "now → planned" whole on its line: a narrow tile breaks the line
 * only after the arrow, never inside "20.6 GiB" (style.css).
 */
function valueParts(value) {
  return String(value).split(' → ').map((part, i) => html`${i ? ' → ' : ''}<span class="part">${part}</span>`);
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
  /** The tile whose words are shown under the strip, and the tiles drawn. */
  let shown = null;
  let drawn = [];

  function setOpen(v) {
    open = v;
    node.classList.toggle('open', v);
    line.setAttribute('aria-expanded', String(v));
  }

  /** Shows the words of the tile `key` under the strip, or hides them when they are shown. */
  function explain(key) {
    shown = shown === key ? null : key;
    draw();
  }

  /** The tiles, each kept by its key (its buttons keep focus through every plan), and the words shown. */
  function draw() {
    render(repeat(drawn, (t) => t.key, (t) => tileCell(t, explain, shown)), strip);
    const t = drawn.find((x) => x.key === shown);
    help.hidden = !t;
    render(t ? html`<strong>${t.label}: </strong><span>${t.help}</span>` : nothing, help);
  }

  function update(state) {
    drawn = state.result ? tiles(state.result.view, state.result.baseline, ctx.controller) : [];
    lineText.textContent = state.result ? oneLine(state.result.view) : '';
    draw();
  }

  return {
    node,
    update(state, prev) {
      if (changed(prev, state, 'result')) update(state);
      if (changed(prev, state, 'status')) status.set(state.status);
      // nothing planned and nothing to say: no empty strip under the message
      node.hidden = !state.result && !state.status && !state.loading;
    },
  };
}
