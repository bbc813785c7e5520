// What a person must read before the figures: the plan's findings (fatal ones as the headline)
// and the snapshot's warnings. The page's message is in the sticky strip (message.js).
import { el, attrs } from '../../common/page/dom.js';
import { changed } from '../../common/page/store.js';

function findingsList(findings) {
  const list = el('ul', undefined, 'findings');
  for (const f of findings) {
    const li = attrs(el('li', undefined, `finding ${f.level}`), { 'data-code': f.code });
    li.append(el('strong', f.level === 'fatal' ? 'Fatal: ' : f.level === 'warning' ? 'Warning: ' : 'Notice: '), el('span', f.message));
    list.append(li);
  }
  return list;
}

function warningsBox(warnings) {
  const d = el('details', undefined, 'warnings');
  d.append(el('summary', `${warnings.length} warning${warnings.length === 1 ? '' : 's'} in the snapshot (the leader survives these)`));
  const list = attrs(el('ul'), { tabindex: 0, 'aria-label': 'snapshot warnings' });
  for (const w of warnings.slice(0, 500)) {
    const li = el('li');
    li.append(el('code', w.code), el('span', ` bucket ${w.bucket}, key ${w.key}: ${w.message}`));
    list.append(li);
  }
  if (warnings.length > 500) list.append(el('li', `… and ${warnings.length - 500} more`));
  d.append(list);
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
