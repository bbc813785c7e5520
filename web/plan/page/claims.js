// Claims: each live member's next reconcile, from the core's claims(): its claims and
// quarantines in the order it takes them (with their kind), and what it drains. Acting on the
// published records or on the plan's assignment.
import { el, attrs, input, select, field, table, scrollArea } from '../../common/page/dom.js';
import { changed } from '../../common/page/store.js';
import { naturalCompare } from '../../common/shared/sort.js';
import { focusChip, errorReporter } from '../../common/page/focus-chip.js';

const SHOW = 200;

function workerBlock(name, actions, drains, w) {
  const d = attrs(el('div', undefined, 'worker'), { 'data-worker': name });
  const heading = el('h3', name);
  const facts = `holds ${w.held} of ${w.cap} lanes; ${w.has_assignment ? 'has an assignment' : 'no assignment record'}${w.skipped ? `; ${w.skipped} skipped` : ''}`;
  d.append(heading, el('p', facts, 'hint'));
  if (actions.length) {
    const rows = actions.slice(0, SHOW).map((a, i) => [i + 1, a.split, a.kind, a.action]);
    const t = table(['#', 'split', 'kind', 'action'], rows, 'data claims-table', `${name}'s next actions`);
    [...t.tBodies[0].rows].forEach((tr, i) => { if (actions[i].action === 'quarantine') tr.className = 'quarantine'; });
    d.append(t);
    if (actions.length > SHOW) d.append(el('p', `… and ${actions.length - SHOW} more`, 'hint'));
  } else {
    d.append(el('p', 'nothing to claim', 'hint'));
  }
  if (drains.length) d.append(el('p', `drains: ${drains.join(', ')}`, 'drains'));
  return d;
}

export function createClaims(ctx) {
  const { controller } = ctx;
  const node = el('div', undefined, 'claims');
  const source = select([['published', 'the published records'], ['plan', 'the plan (after the leader publishes it)']], 'assignment the workers act on');
  const max = input('number', { min: '0', value: '4', 'aria-label': 'max attempts' });
  const form = el('div', undefined, 'row');
  form.append(field('Workers act on', source), field('max_attempts (Spate\'s default 4)', max));
  const chip = focusChip(controller);
  const host = scrollArea('claims per member');
  const summary = el('p', '', 'hint claims-summary');
  const report = errorReporter(controller, 'The claims could not be listed');
  node.append(form, chip.node, summary, host);
  let seq = 0;

  async function render(state) {
    if (!state.result) return;
    const mine = ++seq;
    try {
      const doc = await controller.ask('claims', {
        instance: state.focus, afterPlan: source.value === 'plan', maxAttempts: Math.max(0, Math.floor(Number(max.value || 4))),
      });
      if (mine !== seq) return;
      const names = Object.keys(doc.workers).sort(naturalCompare);
      const total = names.reduce((n, x) => n + (doc.claims[x]?.length || 0), 0);
      summary.textContent = `${names.length} live member${names.length === 1 ? '' : 's'}, ${total} action${total === 1 ? '' : 's'} (acting on ${doc.assignment_source === 'plan' ? 'the plan' : 'the published records'}; max_attempts ${doc.max_attempts}).`;
      host.replaceChildren(...names.slice(0, 100).map((x) => workerBlock(x, doc.claims[x] || [], doc.drains[x] || [], doc.workers[x])));
      if (names.length > 100) host.append(el('p', `… ${names.length - 100} more members: click one in the chart to see it`, 'hint'));
      host.dataset.ready = 'true';
    } catch (e) {
      if (mine === seq) report(e);
    }
  }

  source.addEventListener('change', () => render(controller.state));
  max.addEventListener('change', () => render(controller.state));
  let shown = false;
  return {
    node,
    /** Called when the tab is shown: claims are listed only when someone looks. */
    show() { shown = true; render(controller.state); },
    hide() { shown = false; },
    update(state, prev) {
      chip.update(state);
      if (shown && changed(prev, state, 'result', 'focus')) render(state);
    },
  };
}
