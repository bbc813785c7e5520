// Upgrade: the plan shown (its snapshot and what-if) planned by Spate 0.1's rules and by 0.3's,
// side by side — the moves, the weight they carry, the splits each plans elsewhere than the last
// publish named, and which splits would stop moving on upgrading (the core's `diff_rules`, the
// document of `spate-planner diff-rules --json`). Planned when the tab is shown, and again when
// the plan shown changes while it is; the review document carries it once it has been looked at.
import { el, attrs } from '../../common/page/dom.js';
import { html, render, nothing } from '../../common/page/lit.js';
import { cells, dataTable, scrollBox } from '../../common/page/table.js';
import { changed } from '../../common/page/store.js';
import { thousands } from '../../common/shared/format.js';
import { rulesDiffIsCurrent } from './actions.js';
import { SIDES, upgradeRows, sideTitle, todayText } from '../shared/upgrade-model.js';

/** Split ids and rows shown of each list (`spate-planner diff-rules --json` has them all). */
const SHOW = 200;

function figuresTable(d) {
  const row = (r) => html`<tr data-figure=${r.key}><th scope="row">${r.label}</th>${r.cells.map((c, i) => html`<td
    class=${c.value !== r.cells[1 - i].value ? 'changed' : nothing} data-side=${SIDES[i]} data-value=${c.value} title=${c.exact ?? nothing}>${c.text}</td>`)}</tr>`;
  return html`<table class="figures-table upgrade-figures"><caption class="visually-hidden">The plan by each release’s rules</caption><thead><tr><th
    scope="col">figure</th>${SIDES.map((k) => html`<th scope="col" data-side=${k}>${sideTitle(d, k)}</th>`)}</tr></thead><tbody>${upgradeRows(d).map(row)}</tbody></table>`;
}

const more = (n) => html`<p class="hint">… and ${thousands(n)} more (spate-planner diff-rules --json lists them all).</p>`;

/** A list of split ids under a heading with its count (the first SHOW of them). */
function idList(key, title, ids) {
  return html`<div class="upgrade-list" data-list=${key} data-count=${ids.length}><h3>${title} (${thousands(ids.length)})</h3>${
    ids.length ? html`<ul class="split-ids" aria-label=${title}>${ids.slice(0, SHOW).map((id) => html`<li>${id}</li>`)}</ul>` : html`<p class="hint">none</p>`}${
    ids.length > SHOW ? more(ids.length - SHOW) : nothing}</div>`;
}

const who = (v) => v ?? '(none)';

function apartTable(d) {
  const apart = d.placed_apart;
  const label = 'splits the two plans place apart';
  const t = () => dataTable({ headers: ['split', 'last published to', 'by 0.1', 'by 0.3'], rows: apart.slice(0, SHOW), key: (p) => p.split,
    row: (p) => html`<tr>${cells([p.split, who(p.published), who(p.by_0_1), who(p.by_0_3)])}</tr>`, cls: 'data upgrade-splits', caption: label });
  return html`<div class="upgrade-apart" data-count=${apart.length}><h3>Splits the two plans place apart (${thousands(apart.length)})</h3>${
    apart.length ? scrollBox(label, t()) : html`<p class="hint">none: both releases plan every split on the same member</p>`}${
    apart.length > SHOW ? more(apart.length - SHOW) : nothing}</div>`;
}

function resultTemplate(d) {
  return html`<div class="upgrade-result"><p class="upgrade-today" data-rules=${d.today.rules} data-source=${d.today.source}>${todayText(d)}</p>${figuresTable(d)}<p
    class="hint">Moves: splits that change hands from their current owner. Reassigned: splits planned on another member than the last publish named, or queued — a split nobody has claimed yet counts, so a batch that 0.1 moves again at each unrelated completion (upstream #820) shows here.</p>${
    idList('kept_only_by_0_3', 'Reassigned by 0.1, kept by 0.3: they stop moving on upgrading', d.kept_only_by_0_3)}${
    idList('kept_only_by_0_1', 'Reassigned by 0.3, kept by 0.1', d.kept_only_by_0_1)}${apartTable(d)}</div>`;
}

export function createUpgrade(ctx) {
  const { controller, review } = ctx;
  const node = attrs(el('div', undefined, 'upgrade'), { 'data-has-result': 'false' });
  const status = attrs(el('p', '', 'hint upgrade-status'), { role: 'status' });
  const result = el('div');
  node.append(
    el('p', 'The plan shown — this snapshot and its what-if — planned by Spate 0.1’s rules (0.1.x and 0.2.x) and by 0.3.0’s, side by side: what upgrading the fleet (or not) changes. Pick which release’s rules the other views follow in the what-if panel.', 'hint'),
    status, result,
  );
  let shown = false;

  function ask(state) {
    if (!shown || !state.result || rulesDiffIsCurrent(state)) return;
    status.textContent = 'Planning by both releases’ rules…';
    // a failure is the page's message; a newer plan asks again
    review.run(review.diffRules(), 'The two releases’ plans could not be made')
      .then(() => { if (!rulesDiffIsCurrent(controller.state)) status.textContent = ''; });
  }

  function draw(state) {
    const current = rulesDiffIsCurrent(state);
    node.dataset.hasResult = String(current);
    render(current ? resultTemplate(state.rulesDiff.doc) : nothing, result);
    result.dataset.ready = String(current);
    if (current) status.textContent = '';
  }

  return {
    node,
    /** Called when the tab is shown: the two plans are made only when someone looks. */
    show() { shown = true; ask(controller.state); },
    hide() { shown = false; },
    update(state, prev) {
      if (changed(prev, state, 'rulesDiff', 'result', 'generation')) draw(state);
      if (changed(prev, state, 'result', 'generation')) ask(state);
    },
  };
}
