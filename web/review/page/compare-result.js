// A comparison drawn: the two snapshots and their figures side by side, whether the later
// published assignment is what the planner decided from the earlier snapshot, members that
// joined and left, caps that changed, each member's load before and after (bars and figures),
// the splits that changed owner and where the published assignment differs from the plan.
// lit-html templates: drawn again (a live frame, a new plan), the sort chosen, the button that
// had the focus and the rows stay the same elements.
import { html, nothing } from '../../common/page/lit.js';
import { sortableTable } from '../../common/page/sortable.js';
import { cell, dataTable, scrollBox } from '../../common/page/table.js';
import { humanBytes, exactBytes, thousands, signedBytes } from '../../common/shared/format.js';
import { sideBySide, decisionVerdict, memberLoads, maxLoad, capText, names, MEMBER_COLUMNS } from '../shared/compare-model.js';

/** Rows shown of the long lists (the review document and `spate-planner diff` have them all). */
const SHOW = 200;

function sideTable(d) {
  const row = ([label, b, a, eb, ea]) => html`<tr data-figure=${label}><th scope="row">${label}</th>${
    cell(b, { title: eb ?? nothing })}${cell(a, { cls: b !== a ? 'changed' : '', title: ea ?? nothing })}</tr>`;
  return html`<table class="figures-table compare-figures"><thead><tr>${['figure', 'before', 'after'].map((h) => html`<th scope="col">${h}</th>`)}</tr></thead><tbody>${
    sideBySide(d).map(row)}</tbody></table>`;
}

// (widths go through the style property, the CSS object model, which the page's
// Content-Security-Policy allows; a style attribute would be refused)
function loadBars(r, max) {
  const scale = (v) => `width: ${max > 0n ? (Number(v ?? 0n) / Number(max)) * 100 : 0}%`;
  return html`<span class="cmp-track" aria-hidden="true"><span class="bar before" .style=${scale(r.before)}></span><span class="bar after" .style=${scale(r.after)}></span></span>`;
}

/** The members table, sorted as `sort` says (the view's, kept across redraws); `onSort` draws again. */
function membersTable(d, sort, onSort) {
  const rows = memberLoads(d);
  const max = maxLoad(rows);
  const columns = [...MEMBER_COLUMNS.map(([label, cmp, desc]) => ({ label, cmp, desc })), { label: 'load' }];
  const row = (r) => html`<tr data-member=${r.name}>${cell(r.name)}${
    cell(r.before === null ? '—' : humanBytes(r.before), { title: r.before === null ? null : exactBytes(r.before) })}${
    cell(r.after === null ? '—' : humanBytes(r.after), { title: r.after === null ? null : exactBytes(r.after) })}${
    cell(signedBytes(r.change))}${cell(capText(r), { cls: r.capBefore !== r.capAfter ? 'changed' : '' })}${cell(loadBars(r, max))}</tr>`;
  const t = sortableTable({ columns, rows, key: (r) => r.name, row, sort, onSort, cls: 'data compare-members sortable', caption: 'each member’s load before and after (sortable by each column)' });
  return scrollBox('members before and after', t);
}

/** The first rows of a long list; `total`: the core's count of it. */
function ownerTable(list, total, headers, label, key, cellsOf) {
  const t = dataTable({ headers, rows: list.slice(0, SHOW), key, cellsOf, cls: 'data compare-splits', caption: label });
  return html`<div>${scrollBox(label, t)}${
    list.length > SHOW ? html`<p class="hint">… the first ones of the ${thousands(total)} (spate-planner diff --json lists them all).</p>` : nothing}</div>`;
}

const who = (v) => v ?? '(nobody)';

/** The core's warnings, in its words (the review document has the same): "before" not earlier than "after" (with when each was taken) first, then two different jobs. */
function warnings(d) {
  return d.warnings.map((w, i) => html`<p class=${`message warning compare-warning${i === 0 && d.chronology_warning ? ' compare-order' : ''}`} role="note">${w}</p>`);
}

function facts(d) {
  const caps = d.cap_changes;
  return html`<ul class="compare-facts"><li data-fact="joined">Joined: ${names(d.joined)}.</li><li data-fact="left">Left: ${names(d.left)}.</li><li
    data-fact="caps">Caps that changed: ${caps.length ? caps.map((c) => `${c.name} ${c.before} → ${c.after}`).join('; ') : 'none'}.</li></ul>`;
}

function legend() {
  return html`<ul class="legend">${[['now', 'before'], ['planned', 'after']].map(([cls, text]) => html`<li><span class=${`key ${cls}`} aria-hidden="true"></span><span>${text}</span></li>`)}</ul>`;
}

/** The splits that changed owner, and where the later published assignment differs from the plan. */
function owners(d) {
  const diffs = Object.entries(d.decision.differences);
  return html`<h3 data-count=${d.owner_changed}>Splits that changed owner (${thousands(d.owner_changed)})</h3>${
    d.owner_changes.length ? ownerTable(d.owner_changes, d.owner_changed, ['split', 'owner before', 'owner after'], 'splits that changed owner', (c) => c.split, (c) => [c.split, who(c.before), who(c.after)]) : nothing}${
    d.decision.published && diffs.length ? html`<h3>Where the later published assignment differs from the plan (${thousands(d.decision.differing)})</h3>${
      ownerTable(diffs, d.decision.differing, ['split', 'planned from the earlier snapshot', 'published later'], 'where the published assignment differs', ([id]) => id, ([id, [p, q]]) => [id, who(p), who(q)])}` : nothing}`;
}

/**
 * The whole comparison; `labels`: { before, after } (where each snapshot came from); `sort`: the
 * members table's sortState(), `onSort`: draws the comparison again.
 */
export function comparisonTemplate(d, labels, sort, onSort) {
  const v = decisionVerdict(d);
  return html`<div class="comparison"><h3>${labels.before} (before) and ${labels.after} (after)</h3>${warnings(d)}${sideTable(d)}<h3>The leader's decision</h3><p
    class=${`verdict compare-verdict ${v.level}`} data-level=${v.level}>${v.text}</p><h3>Members</h3>${facts(d)}<p
    class="hint">Load: what each member holds of the assignable splits, as each store shows it.</p>${legend()}${membersTable(d, sort, onSort)}${owners(d)}</div>`;
}
