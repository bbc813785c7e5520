// Tables as lit-html templates: a view renders its table again on every update and only the cells
// whose text changed are touched, so a row keeps its element (and a selection in it, its focus)
// while the figures around it change. Text only: data is never markup.
import { html, nothing, repeat } from './lit.js';

/** A cell's text; a template (a cut text, a bar) is drawn as it is. */
const isText = (c) => c === null || c === undefined || typeof c !== 'object';

/** A data cell: a cut text (over 20 characters) shows its full value on hover; `title` overrides it. */
export function cell(c, { cls = '', title = null } = {}) {
  const text = isText(c) ? String(c ?? '') : c;
  const full = title ?? (isText(c) && text.length > 20 ? text : null);
  return html`<td class=${cls || nothing} title=${full ?? nothing}>${text}</td>`;
}

/** A row's cells (texts or templates), each as cell() draws it. */
export function cells(list) {
  return list.map((c) => cell(c));
}

/** A text that may be cut: the full value on hover (dom.js's cut()). */
export function cut(text, full = text) {
  return html`<span class="cut" title=${String(full)}>${text}</span>`;
}

/**
 * A table with a header row: `rows` keyed by `key(r)` (a row stays the same element while its key
 * stays), each drawn by `row(r, i)` (a `<tr>`) or as plain cells of `cellsOf(r)`.
 */
export function dataTable({ headers, rows, key, row = null, cellsOf = null, cls = 'data', caption = null }) {
  const draw = row ?? ((r) => html`<tr>${cells(cellsOf(r))}</tr>`);
  return html`<table class=${cls}>${caption ? html`<caption class="visually-hidden">${caption}</caption>` : nothing}<thead><tr>${
    headers.map((h) => html`<th scope="col">${h}</th>`)}</tr></thead><tbody>${repeat(rows, key, draw)}</tbody></table>`;
}

/** A scroll area keyboard users can reach and scroll (dom.js's scrollArea), holding `content`. */
export function scrollBox(label, content, cls = 'scroll') {
  return html`<div class=${cls} tabindex="0" role="region" aria-label=${label}>${content}</div>`;
}
