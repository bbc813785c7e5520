// The simulation's headline figures: configuration A, and with a comparison B and the difference
// B − A (changed values marked). Each cell keeps the document's exact value in data-value. Drawn
// as lit-html templates: a new run changes the texts in place (an open list of splits stays open).
import { html, nothing, repeat } from '../../common/page/lit.js';
import { figureCells } from '../shared/figures.js';
import { thousands } from '../../common/shared/format.js';

/** Not-recovered splits listed per configuration (the simulation document has them all). */
const LISTED = 100;

const raw = (v) => (v === null || v === undefined ? 'null' : String(v));

/** The configurations of a run: [[which, model]], B only when compared. */
const configs = (run) => [['A', run.a], ...(run.b ? [['B', run.b]] : [])];

function figureRow(r, both) {
  const changed = r.changed ? 'changed' : nothing;
  return html`<tr data-figure=${r.key} title=${r.help}><th scope="row">${r.label}</th><td data-value=${raw(r.rawA)} data-config="A">${r.a}</td>${
    both ? html`<td class=${changed} data-value=${raw(r.rawB)} data-config="B">${r.b}</td><td class=${changed} data-config="diff">${r.diff}</td>` : nothing}</tr>`;
}

/** The table of a run: { a, b } models and `table`, the simulator's rows of their figures. */
export function figuresTable(run) {
  const both = Boolean(run.b);
  const cols = both ? ['figure', 'A', 'B', 'B − A'] : ['figure', 'value'];
  return html`<table class="figures-table tl-figures"><caption class="visually-hidden">${both ? 'Headline figures of configurations A and B' : 'Headline figures'}</caption>
    <thead><tr>${cols.map((h) => html`<th scope="col">${h}</th>`)}</tr></thead>
    <tbody>${repeat(figureCells(run.table), (r) => r.key, (r) => figureRow(r, both))}</tbody></table>`;
}

/** The release each configuration followed, in the core's words (`rules_note`). */
export function rulesLine(run) {
  return html`<div class="tl-rules">${repeat(configs(run), ([which]) => which, ([which, model]) =>
    html`<p data-config=${which} data-rules=${model.rules.rules}>${run.b ? `${which}: ` : ''}timing and decisions of ${model.rules.note}</p>`)}</div>`;
}

/** The splits one configuration's events took and never ran again, each with why. */
function stuckList(which, list) {
  return html`<details class="tl-stuck" data-config=${which}><summary>${which}: the ${thousands(list.length)} split${list.length === 1 ? '' : 's'} not recovered</summary>
    <ul>${list.slice(0, LISTED).map((n) => html`<li data-reason=${n.reason}>${n.split}: ${n.words}</li>`)}${
      list.length > LISTED ? html`<li>… and ${thousands(list.length - LISTED)} more</li>` : nothing}</ul></details>`;
}

/** One configuration's recovery in the simulator's words, and its splits not recovered. */
function recoveryOf(which, model, both) {
  const s = model.recovery;
  const lines = [s.taken, s.stuck, s.others, s.before].filter(Boolean);
  if (!lines.length) return nothing;
  const stuck = model.figures.not_recovered;
  return html`<p class="tl-recovery-text" data-config=${which}>${both ? `${which}: ` : ''}${lines.join(' ')}</p>${
    stuck?.length ? stuckList(which, stuck) : nothing}`;
}

/**
 * What the recovery rests on, per configuration, in the simulator's words (its summary's
 * `recovery`): the splits the events took, which never ran again and why, what else stopped,
 * and what was idle before the first event.
 */
export function recoveryNotes(run) {
  return html`<div class="tl-recovery">${repeat(configs(run), ([which]) => which, ([which, model]) => recoveryOf(which, model, Boolean(run.b)))}</div>`;
}
