// Details: every figure of the plan, baseline and what-if side by side (changed values marked).
import { el, scrollArea } from '../../common/page/dom.js';
import { html, render, nothing } from '../../common/page/lit.js';
import { changed } from '../../common/page/store.js';
import { figureRows } from '../shared/figures.js';

/** A figure's cell: its words, its exact value on hover; `changed`: it differs from the baseline's. */
const cell = ([, v, exact], cls = '') => html`<td class=${cls} title=${exact || nothing}>${v}</td>`;

function figuresTable(view, baseline) {
  const cols = baseline ? ['figure', 'baseline', 'what-if'] : ['figure', 'plan'];
  const now = figureRows(view);
  const base = baseline ? figureRows(baseline) : null;
  return html`<table class="figures-table"><thead><tr>${cols.map((h) => html`<th scope="col">${h}</th>`)}</tr></thead><tbody>${
    now.map((row, i) => html`<tr data-figure=${row[0]}><th scope="row">${row[0]}</th>${base ? cell(base[i]) : nothing}${
      cell(row, base && base[i][1] !== row[1] ? 'changed' : '')}</tr>`)}</tbody></table>`;
}

export function createDetails() {
  const node = el('div', undefined, 'details');
  const host = scrollArea('plan figures');
  node.append(host);
  return {
    node,
    update(state, prev) {
      if (changed(prev, state, 'result') && state.result) render(figuresTable(state.result.view, state.result.baseline), host);
    },
  };
}
