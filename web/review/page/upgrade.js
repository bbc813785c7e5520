// Upgrade: the plan shown (its snapshot and what-if) planned by Spate 0.1's rules and by 0.3's,
// side by side — the moves, the weight they carry, the splits each plans elsewhere than the last
// publish named, and which splits would stop moving on upgrading (the core's `diff_rules`, the
// document of `spate-planner diff-rules --json`). Planned when the tab is shown, and again when
// the plan shown changes while it is; the review document carries it once it has been looked at.
import { el, attrs, table, scrollArea } from '../../common/page/dom.js';
import { changed } from '../../common/page/store.js';
import { thousands } from '../../common/shared/format.js';
import { rulesDiffIsCurrent } from './actions.js';
import { SIDES, upgradeRows, sideTitle, todayText } from '../shared/upgrade-model.js';

/** Split ids and rows shown of each list (`spate-planner diff-rules --json` has them all). */
const SHOW = 200;

function figuresTable(d) {
  const t = el('table', undefined, 'figures-table upgrade-figures');
  t.append(el('caption', 'The plan by each release’s rules', 'visually-hidden'));
  const head = el('tr');
  head.append(attrs(el('th', 'figure'), { scope: 'col' }), ...SIDES.map((k) => attrs(el('th', sideTitle(d, k)), { scope: 'col', 'data-side': k })));
  const thead = el('thead');
  thead.append(head);
  const body = el('tbody');
  for (const r of upgradeRows(d)) {
    const tr = attrs(el('tr'), { 'data-figure': r.key });
    tr.append(attrs(el('th', r.label), { scope: 'row' }));
    r.cells.forEach((c, i) => {
      const differs = c.value !== r.cells[1 - i].value;
      tr.append(attrs(el('td', c.text, differs ? 'changed' : ''), { 'data-side': SIDES[i], 'data-value': c.value, title: c.exact }));
    });
    body.append(tr);
  }
  t.append(thead, body);
  return t;
}

/** A list of split ids under a heading with its count (the first SHOW of them). */
function idList(key, title, ids) {
  const box = attrs(el('div', undefined, 'upgrade-list'), { 'data-list': key, 'data-count': ids.length });
  box.append(el('h3', `${title} (${thousands(ids.length)})`));
  if (!ids.length) {
    box.append(el('p', 'none', 'hint'));
    return box;
  }
  const list = attrs(el('ul', undefined, 'split-ids'), { 'aria-label': title });
  list.append(...ids.slice(0, SHOW).map((id) => el('li', id)));
  box.append(list);
  if (ids.length > SHOW) box.append(el('p', `… and ${thousands(ids.length - SHOW)} more (spate-planner diff-rules --json lists them all).`, 'hint'));
  return box;
}

const who = (v) => v ?? '(none)';

function apartTable(d) {
  const box = attrs(el('div', undefined, 'upgrade-apart'), { 'data-count': d.placed_apart.length });
  box.append(el('h3', `Splits the two plans place apart (${thousands(d.placed_apart.length)})`));
  if (!d.placed_apart.length) {
    box.append(el('p', 'none: both releases plan every split on the same member', 'hint'));
    return box;
  }
  const rows = d.placed_apart.slice(0, SHOW).map((p) => [p.split, who(p.published), who(p.by_0_1), who(p.by_0_3)]);
  const area = scrollArea('splits the two plans place apart');
  area.append(table(['split', 'last published to', 'by 0.1', 'by 0.3'], rows, 'data upgrade-splits', 'splits the two plans place apart'));
  box.append(area);
  if (d.placed_apart.length > SHOW) box.append(el('p', `… and ${thousands(d.placed_apart.length - SHOW)} more (spate-planner diff-rules --json lists them all).`, 'hint'));
  return box;
}

function resultNode(d) {
  const node = el('div', undefined, 'upgrade-result');
  node.append(attrs(el('p', todayText(d), 'upgrade-today'), { 'data-rules': d.today.rules, 'data-source': d.today.source }));
  node.append(figuresTable(d));
  node.append(el('p', 'Moves: splits that change hands from their current owner. Reassigned: splits planned on another member than the last publish named, or queued — a split nobody has claimed yet counts, so a batch that 0.1 moves again at each unrelated completion (upstream #820) shows here.', 'hint'));
  node.append(
    idList('kept_only_by_0_3', 'Reassigned by 0.1, kept by 0.3: they stop moving on upgrading', d.kept_only_by_0_3),
    idList('kept_only_by_0_1', 'Reassigned by 0.3, kept by 0.1', d.kept_only_by_0_1),
    apartTable(d),
  );
  return node;
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

  function render(state) {
    const current = rulesDiffIsCurrent(state);
    node.dataset.hasResult = String(current);
    result.replaceChildren(...(current ? [resultNode(state.rulesDiff.doc)] : []));
    result.dataset.ready = String(current);
    if (current) status.textContent = '';
  }

  return {
    node,
    /** Called when the tab is shown: the two plans are made only when someone looks. */
    show() { shown = true; ask(controller.state); },
    hide() { shown = false; },
    update(state, prev) {
      if (changed(prev, state, 'rulesDiff', 'result', 'generation')) render(state);
      if (changed(prev, state, 'result', 'generation')) ask(state);
    },
  };
}
