// What a person must read before the figures: the plan's findings (fatal ones as the headline)
// and the snapshot's warnings grouped by code (one line per code with its count, opening to the
// keys). The page's message is in the sticky strip (message.js).
import { el } from '../../common/page/dom.js';
import { html, render, nothing, repeat } from '../../common/page/lit.js';
import { changed } from '../../common/page/store.js';
import { thousands, plural } from '../../common/shared/format.js';
import { groupWarnings, findingsInOrder } from '../../common/shared/warnings.js';

const LEVEL_WORDS = { fatal: 'Fatal: ', warning: 'Warning: ' };

function findingsList(findings) {
  if (!findings.length) return nothing;
  return html`<ul class="findings">${findingsInOrder(findings).map((f) => html`<li class=${`finding ${f.level}`} data-code=${f.code}><strong>${
    LEVEL_WORDS[f.level] ?? 'Notice: '}</strong><span>${f.message}</span></li>`)}</ul>`;
}

/** Keys listed per code (the CLI's `snapshot --json` has them all); on paper, only the first few. */
const KEYS_SHOWN = 500;
const KEYS_PRINTED = 5;

/** One code's warnings: a line with the code and its count, expanding to the keys. */
function warningGroup(g) {
  const keys = g.items.slice(0, KEYS_SHOWN).map((w, i) => html`<li class=${i < KEYS_PRINTED ? '' : 'screen-only'}>bucket ${w.bucket}, key ${w.key}: ${w.message}</li>`);
  // on paper a group is its count and its first keys (the page and `snapshot --json` list them all)
  return html`<details class="warning-group" data-code=${g.code} data-count=${g.count}><summary><code>${g.code}</code><span class="count"> × ${thousands(g.count)}</span><span
    class="first"> — ${g.items[0].message}${g.count > 1 ? ' (first of them)' : ''}</span></summary><ul aria-label=${`${g.code} warnings`}>${keys}${
    g.count > KEYS_SHOWN ? html`<li class="screen-only">… and ${thousands(g.count - KEYS_SHOWN)} more</li>` : nothing}${
    g.count > KEYS_PRINTED ? html`<li class="print-only">… and ${thousands(g.count - KEYS_PRINTED)} more ${g.code} keys (the page and spate-planner snapshot --json list every one)</li>` : nothing}</ul></details>`;
}

/** The warnings by code, drawn in place: a box or a group opened stays open through later frames. */
function warningsBox(warnings) {
  if (!warnings.length) return nothing;
  const groups = groupWarnings(warnings);
  return html`<details class="warnings"><summary>${plural(warnings.length, 'warning')} in the snapshot, of ${plural(groups.length, 'kind')} (the leader survives these)</summary><div
    class="warning-groups" tabindex="0" role="region" aria-label="snapshot warnings by code">${repeat(groups, (g) => g.code, warningGroup)}</div></details>`;
}

export function createNotices() {
  const node = el('div', undefined, 'notices');
  const findings = el('div', undefined, 'findings-slot');
  const warnings = el('div', undefined, 'warnings-slot');
  node.append(findings, warnings);
  return {
    node,
    update(state, prev) {
      if (changed(prev, state, 'result')) render(findingsList(state.result?.view.findings || []), findings);
      if (changed(prev, state, 'info')) render(warningsBox(state.info?.warnings || []), warnings);
    },
  };
}
