// A comparison drawn: the two snapshots and their figures side by side, whether the later
// published assignment is what the planner decided from the earlier snapshot, members that
// joined and left, caps that changed, each member's load before and after (bars and figures),
// the splits that changed owner and where the published assignment differs from the plan.
import { el, attrs, table, scrollArea } from '../../common/page/dom.js';
import { sortableTable } from '../../common/page/sortable.js';
import { humanBytes, exactBytes, thousands, signedBytes } from '../../common/shared/format.js';
import { sideBySide, decisionVerdict, memberLoads, maxLoad, capText, names, MEMBER_COLUMNS } from '../shared/compare-model.js';

/** Rows shown of the long lists (the review document and `spate-planner diff` have them all). */
const SHOW = 200;

function sideTable(d) {
  const t = el('table', undefined, 'figures-table compare-figures');
  const head = el('tr');
  head.append(...['figure', 'before', 'after'].map((h) => attrs(el('th', h), { scope: 'col' })));
  const thead = el('thead');
  thead.append(head);
  const body = el('tbody');
  for (const [label, b, a, eb, ea] of sideBySide(d)) {
    const tr = attrs(el('tr'), { 'data-figure': label });
    const cb = attrs(el('td', b), eb ? { title: eb } : {});
    const ca = attrs(el('td', a, b !== a ? 'changed' : ''), ea ? { title: ea } : {});
    tr.append(attrs(el('th', label), { scope: 'row' }), cb, ca);
    body.append(tr);
  }
  t.append(thead, body);
  return t;
}

function loadBars(r, max) {
  const track = attrs(el('span', undefined, 'cmp-track'), { 'aria-hidden': 'true' });
  const scale = (v) => `${max > 0n ? (Number(v ?? 0n) / Number(max)) * 100 : 0}%`;
  const b = el('span', undefined, 'bar before');
  const a = el('span', undefined, 'bar after');
  b.style.width = scale(r.before);
  a.style.width = scale(r.after);
  track.append(b, a);
  return track;
}

function membersTable(d) {
  const rows = memberLoads(d);
  const max = maxLoad(rows);
  const columns = [...MEMBER_COLUMNS.map(([label, cmp, desc]) => ({ label, cmp, desc })), { label: 'load' }];
  const cells = (r) => [r.name, r.before === null ? '—' : humanBytes(r.before), r.after === null ? '—' : humanBytes(r.after),
    signedBytes(r.change), capText(r), loadBars(r, max)];
  const decorate = (tr, r) => {
    tr.dataset.member = r.name;
    if (r.before !== null) tr.cells[1].title = exactBytes(r.before);
    if (r.after !== null) tr.cells[2].title = exactBytes(r.after);
    if (r.capBefore !== r.capAfter) tr.cells[4].classList.add('changed');
  };
  const t = sortableTable({ columns, rows, cells, decorate, cls: 'data compare-members sortable', caption: 'each member’s load before and after (sortable by each column)' });
  const area = scrollArea('members before and after');
  area.append(t);
  return area;
}

/** The first rows of a long list; `total`: the core's count of it. */
function ownerTable(list, total, headers, label, cellsOf) {
  const frag = el('div');
  const t = table(headers, list.slice(0, SHOW).map(cellsOf), 'data compare-splits', label);
  const area = scrollArea(label);
  area.append(t);
  frag.append(area);
  if (list.length > SHOW) frag.append(el('p', `… the first ones of the ${thousands(total)} (spate-planner diff --json lists them all).`, 'hint'));
  return frag;
}

const who = (v) => v ?? '(nobody)';

/** The whole comparison; `labels`: { before, after } (where each snapshot came from). */
export function comparisonNode(d, labels) {
  const node = el('div', undefined, 'comparison');
  const v = decisionVerdict(d);
  const verdict = attrs(el('p', v.text, `verdict compare-verdict ${v.level}`), { 'data-level': v.level });
  node.append(el('h3', `${labels.before} (before) and ${labels.after} (after)`));
  // the core's warnings, in its words (the review document has the same): "before" not earlier
  // than "after" (with when each was taken) first, then two different jobs
  d.warnings.forEach((w, i) => {
    const order = i === 0 && d.chronology_warning ? ' compare-order' : '';
    node.append(attrs(el('p', w, `message warning compare-warning${order}`), { role: 'note' }));
  });
  node.append(sideTable(d), el('h3', "The leader's decision"), verdict);
  const caps = d.cap_changes;
  const facts = el('ul', undefined, 'compare-facts');
  facts.append(attrs(el('li', `Joined: ${names(d.joined)}.`), { 'data-fact': 'joined' }), attrs(el('li', `Left: ${names(d.left)}.`), { 'data-fact': 'left' }),
    attrs(el('li', `Caps that changed: ${caps.length ? caps.map((c) => `${c.name} ${c.before} → ${c.after}`).join('; ') : 'none'}.`), { 'data-fact': 'caps' }));
  const key = el('ul', undefined, 'legend');
  for (const [cls, text] of [['now', 'before'], ['planned', 'after']]) {
    const li = el('li');
    li.append(attrs(el('span', undefined, `key ${cls}`), { 'aria-hidden': 'true' }), el('span', text));
    key.append(li);
  }
  const what = el('p', 'Load: what each member holds of the assignable splits, as each store shows it.', 'hint');
  node.append(el('h3', 'Members'), facts, what, key, membersTable(d));
  node.append(attrs(el('h3', `Splits that changed owner (${thousands(d.owner_changed)})`), { 'data-count': d.owner_changed }));
  if (d.owner_changes.length) node.append(ownerTable(d.owner_changes, d.owner_changed, ['split', 'owner before', 'owner after'], 'splits that changed owner', (c) => [c.split, who(c.before), who(c.after)]));
  const diffs = Object.entries(d.decision.differences);
  if (d.decision.published && diffs.length) {
    node.append(el('h3', `Where the later published assignment differs from the plan (${thousands(d.decision.differing)})`),
      ownerTable(diffs, d.decision.differing, ['split', 'planned from the earlier snapshot', 'published later'], 'where the published assignment differs', ([id, [p, q]]) => [id, who(p), who(q)]));
  }
  return node;
}
