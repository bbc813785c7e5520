// What a person must read before the figures: the plan's findings (fatal ones as the headline)
// and the snapshot's warnings grouped by code (one line per code with its count, opening to the
// keys). The page's message is in the sticky strip (message.js).
import { el, attrs } from '../../common/page/dom.js';
import { changed } from '../../common/page/store.js';
import { thousands, plural } from '../../common/shared/format.js';
import { groupWarnings, findingsInOrder } from '../../common/shared/warnings.js';

function findingsList(findings) {
  const list = el('ul', undefined, 'findings');
  for (const f of findingsInOrder(findings)) {
    const li = attrs(el('li', undefined, `finding ${f.level}`), { 'data-code': f.code });
    li.append(el('strong', f.level === 'fatal' ? 'Fatal: ' : f.level === 'warning' ? 'Warning: ' : 'Notice: '), el('span', f.message));
    list.append(li);
  }
  return list;
}

/** Keys listed per code (the CLI's `snapshot --json` has them all); on paper, only the first few. */
const KEYS_SHOWN = 500;
const KEYS_PRINTED = 5;

/** One code's warnings: a line with the code and its count, expanding to the keys. */
function warningGroup(g) {
  const d = attrs(el('details', undefined, 'warning-group'), { 'data-code': g.code, 'data-count': g.count });
  const head = el('summary');
  head.append(el('code', g.code), el('span', ` × ${thousands(g.count)}`, 'count'), el('span', ` — ${g.items[0].message}${g.count > 1 ? ' (first of them)' : ''}`, 'first'));
  const list = attrs(el('ul'), { 'aria-label': `${g.code} warnings` });
  g.items.slice(0, KEYS_SHOWN).forEach((w, i) => list.append(el('li', `bucket ${w.bucket}, key ${w.key}: ${w.message}`, i < KEYS_PRINTED ? undefined : 'screen-only')));
  if (g.count > KEYS_SHOWN) list.append(el('li', `… and ${thousands(g.count - KEYS_SHOWN)} more`, 'screen-only'));
  // on paper a group is its count and its first keys (the page and `snapshot --json` list them all)
  if (g.count > KEYS_PRINTED) list.append(el('li', `… and ${thousands(g.count - KEYS_PRINTED)} more ${g.code} keys (the page and spate-planner snapshot --json list every one)`, 'print-only'));
  d.append(head, list);
  return d;
}

function warningsBox(warnings) {
  const d = el('details', undefined, 'warnings');
  const groups = groupWarnings(warnings);
  d.append(el('summary', `${plural(warnings.length, 'warning')} in the snapshot, of ${plural(groups.length, 'kind')} (the leader survives these)`));
  const body = attrs(el('div', undefined, 'warning-groups'), { tabindex: 0, role: 'region', 'aria-label': 'snapshot warnings by code' });
  body.append(...groups.map(warningGroup));
  d.append(body);
  return d;
}

export function createNotices() {
  const node = el('div', undefined, 'notices');
  const findings = el('div', undefined, 'findings-slot');
  const warnings = el('div', undefined, 'warnings-slot');
  node.append(findings, warnings);
  return {
    node,
    update(state, prev) {
      if (changed(prev, state, 'result')) {
        const f = state.result?.view.findings || [];
        findings.replaceChildren(...(f.length ? [findingsList(f)] : []));
      }
      if (changed(prev, state, 'info')) {
        const w = state.info?.warnings || [];
        warnings.replaceChildren(...(w.length ? [warningsBox(w)] : []));
      }
    },
  };
}
