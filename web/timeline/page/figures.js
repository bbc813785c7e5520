// The simulation's headline figures: configuration A, and with a comparison B and the difference
// B − A (changed values marked). Each cell keeps the document's exact value in data-value.
import { el, attrs } from '../../common/page/dom.js';
import { figureCells } from '../shared/figures.js';
import { thousands } from '../../common/shared/format.js';

/** Not-recovered splits listed per configuration (the simulation document has them all). */
const LISTED = 100;

function cell(text, raw, cls) {
  const td = attrs(el('td', text, cls), { 'data-value': raw === null || raw === undefined ? 'null' : String(raw) });
  return td;
}

/** The table of a run: { a, b } models and `table`, the simulator's rows of their figures. */
export function figuresTable(run) {
  const rows = figureCells(run.table);
  const t = el('table', undefined, 'figures-table tl-figures');
  t.append(el('caption', run.b ? 'Headline figures of configurations A and B' : 'Headline figures', 'visually-hidden'));
  const head = el('tr');
  const cols = run.b ? ['figure', 'A', 'B', 'B − A'] : ['figure', 'value'];
  head.append(...cols.map((h) => attrs(el('th', h), { scope: 'col' })));
  const thead = el('thead');
  thead.append(head);
  const body = el('tbody');
  for (const r of rows) {
    const tr = attrs(el('tr'), { 'data-figure': r.key, title: r.help });
    tr.append(attrs(el('th', r.label), { scope: 'row' }));
    tr.append(attrs(cell(r.a, r.rawA), { 'data-config': 'A' }));
    if (run.b) {
      const changed = r.changed ? 'changed' : undefined;
      tr.append(attrs(cell(r.b, r.rawB, changed), { 'data-config': 'B' }), attrs(el('td', r.diff, changed), { 'data-config': 'diff' }));
    }
    body.append(tr);
  }
  t.append(thead, body);
  return t;
}

/** The release each configuration followed, in the core's words (`rules_note`). */
export function rulesLine(run) {
  const node = el('div', undefined, 'tl-rules');
  for (const [which, model] of [['A', run.a], ...(run.b ? [['B', run.b]] : [])]) {
    const p = attrs(el('p', `${run.b ? `${which}: ` : ''}timing and decisions of ${model.rules.note}`), { 'data-config': which, 'data-rules': model.rules.rules });
    node.append(p);
  }
  return node;
}

/** The splits one configuration's events took and never ran again, each with why. */
function stuckList(which, list) {
  const d = attrs(el('details', undefined, 'tl-stuck'), { 'data-config': which });
  d.append(el('summary', `${which}: the ${thousands(list.length)} split${list.length === 1 ? '' : 's'} not recovered`));
  const ul = el('ul');
  for (const n of list.slice(0, LISTED)) ul.append(attrs(el('li', `${n.split}: ${n.words}`), { 'data-reason': n.reason }));
  if (list.length > LISTED) ul.append(el('li', `… and ${thousands(list.length - LISTED)} more`));
  d.append(ul);
  return d;
}

/**
 * What the recovery rests on, per configuration, in the simulator's words (its summary's
 * `recovery`): the splits the events took, which never ran again and why, what else stopped,
 * and what was idle before the first event.
 */
export function recoveryNotes(run) {
  const node = el('div', undefined, 'tl-recovery');
  for (const [which, model] of [['A', run.a], ...(run.b ? [['B', run.b]] : [])]) {
    const s = model.recovery;
    const lines = [s.taken, s.stuck, s.others, s.before].filter(Boolean);
    if (!lines.length) continue;
    const p = attrs(el('p', `${run.b ? `${which}: ` : ''}${lines.join(' ')}`, 'tl-recovery-text'), { 'data-config': which });
    node.append(p);
    if (model.figures.not_recovered?.length) node.append(stuckList(which, model.figures.not_recovered));
  }
  return node;
}
