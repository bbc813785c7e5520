// Claims: each live member's next reconcile, from the core's claims(): its claims and
// quarantines in the order it takes them (with their kind), and what it drains. Acting on the
// published records or on the plan's assignment. Members with nothing to do are folded into one
// line (opening to a table of them); "skipped" is said in words.
import { el, attrs, input, select, field, scrollArea } from '../../common/page/dom.js';
import { html, render as draw, nothing, repeat } from '../../common/page/lit.js';
import { changed } from '../../common/page/store.js';
import { naturalCompare } from '../../common/shared/sort.js';
import { thousands } from '../../common/shared/format.js';
import { focusChip, errorReporter } from '../../common/page/focus-chip.js';
import { csvButton, csvRow } from '../../common/page/csv.js';
import { workerFacts, claimsSummary, fencedText } from '../shared/claims-text.js';

const SHOW = 200;
const MEMBERS_SHOWN = 100;

/** A table's head and caption (its cells are the callers'). */
const head = (caption, cols) => html`<caption class="visually-hidden">${caption}</caption><thead><tr>${cols.map((h) => html`<th scope="col">${h}</th>`)}</tr></thead>`;

function actionsTable(name, actions) {
  return html`<table class="data claims-table">${head(`${name}'s next actions`, ['#', 'split', 'kind', 'action'])}<tbody>${
    actions.slice(0, SHOW).map((a) => html`<tr class=${a.action === 'quarantine' ? 'quarantine' : ''}><td>${thousands(a.order)}</td><td
      title=${a.split.length > 20 ? a.split : nothing}>${a.split}</td><td>${a.kind}</td><td>${a.action}</td></tr>`)}</tbody></table>`;
}

function workerBlock(name, actions, drains, fenced, w) {
  return html`<div class="worker" data-worker=${name}><h3>${name}</h3><p class="hint">${workerFacts(w)}</p>${
    actions.length ? actionsTable(name, actions) : html`<p class="hint">nothing to claim</p>`}${
    actions.length > SHOW ? html`<p class="hint">… the first ones of its ${thousands(w.actions)} actions (spate-planner claims --json lists them all).</p>` : nothing}${
    drains.length ? html`<p class="drains">drains: ${drains.join(', ')}</p>` : nothing}${fenced.length ? html`<p class="fenced">${fencedText(fenced)}</p>` : nothing}</div>`;
}

/** The members with nothing to do: one line with their count, opening to a row each (kept open through later plans). */
function idleFold(names, doc) {
  const idle = doc.totals.idle;
  return html`<details class="idle-workers" data-count=${names.length}><summary>${thousands(idle)} member${idle === 1 ? '' : 's'} with nothing to claim, quarantine, drain or drop</summary><table
    class="data idle-table">${head('members with nothing to do', ['member', 'lanes, assignment, skipped'])}<tbody>${
    names.map((x) => html`<tr data-worker=${x}><td title=${x.length > 20 ? x : nothing}>${x}</td><td>${workerFacts(doc.workers[x])}</td></tr>`)}</tbody></table></details>`;
}

/**
 * The claims of the mode picked, unless the person has not picked and it gives no action while
 * the other mode's do: the tab then shows the other's and says why (`opened`); with no action
 * under either, it says so. `ask(state, afterPlan)` asks the worker.
 */
async function claimsOfMode(state, ask, { source, opened, picked }) {
  let doc = await ask(state, source.value === 'plan');
  opened.hidden = true;
  if (picked || state.focus || doc.totals.actions > 0) return doc;
  const other = await ask(state, source.value !== 'plan');
  if (other.totals.actions === 0) {
    opened.textContent = 'No member has anything to claim, quarantine, drain or drop, whether the workers act on the published records or on the plan.';
  } else {
    source.value = source.value === 'plan' ? 'published' : 'plan';
    opened.textContent = source.value === 'plan'
      ? `The published records give no member anything to do (the workers already hold what they name): shown are the ${thousands(other.totals.actions)} actions once the leader publishes the plan.`
      : `The plan gives no member anything to do: shown are the ${thousands(other.totals.actions)} actions on the published records.`;
    doc = other;
  }
  opened.hidden = false;
  return doc;
}

export function createClaims(ctx) {
  const { controller } = ctx;
  const node = el('div', undefined, 'claims');
  const source = select([['published', 'the published records'], ['plan', 'the plan (after the leader publishes it)']], 'assignment the workers act on');
  const max = input('number', { min: '0', value: '4', 'aria-label': 'max attempts' });
  const form = el('div', undefined, 'row');
  form.append(field('Workers act on', source), field('max_attempts (starts at Spate\'s default)', max));
  const chip = focusChip(controller);
  const host = scrollArea('claims per member');
  const summary = el('p', '', 'hint claims-summary');
  const rules = el('p', '', 'hint claims-rules');
  // why the tab opened on the plan, or why there is nothing to do under either
  const opened = attrs(el('p', '', 'hint claims-opened'), { hidden: '' });
  const words = el('p', 'Skipped: the candidates a worker passes over — claims of splits its assignment does not name, or claims beyond its cap (its lanes are full). Quarantines are never skipped.', 'hint');
  const report = errorReporter(controller, 'The claims could not be listed');
  const maxAttempts = () => Math.max(0, Math.floor(Number(max.value || 4)));
  // every member's actions as the form says (`spate-planner claims [--after-plan] --csv`)
  const csv = csvRow(csvButton(controller, 'claims', () => controller.ask('claimsCsv', { afterPlan: source.value === 'plan', maxAttempts: maxAttempts() }), "every member's actions"));
  node.append(form, chip.node, opened, summary, rules, words, host, csv);
  let seq = 0;
  /** Whether the person picked what the workers act on (the tab then never switches it). */
  let picked = false;

  function show(doc, focus) {
    const names = Object.keys(doc.workers).sort(naturalCompare);
    // a focused member is shown whatever it does; the others with nothing to do are folded
    const busy = focus ? names : names.filter((x) => doc.workers[x].acts);
    const idle = focus ? [] : names.filter((x) => !doc.workers[x].acts);
    summary.textContent = claimsSummary(doc, Boolean(focus));
    rules.textContent = doc.rules_note;
    const blocks = repeat(busy.slice(0, MEMBERS_SHOWN), (x) => x, (x) => workerBlock(x, doc.claims[x] || [], doc.drains[x] || [], doc.fenced?.[x] || [], doc.workers[x]));
    draw(html`${blocks}${busy.length > MEMBERS_SHOWN ? html`<p class="hint">… the first ones of the ${thousands(doc.totals.acting)} members that act: click one in the chart to see it</p>` : nothing}${
      idle.length ? idleFold(idle, doc) : nothing}`, host);
  }

  const ask = (state, afterPlan) => controller.ask('claims', { instance: state.focus, afterPlan, maxAttempts: maxAttempts() });
  const claimsToShow = (state) => claimsOfMode(state, ask, { source, opened, picked });

  async function render(state) {
    if (!state.result) return;
    const mine = ++seq;
    const t0 = performance.now();
    try {
      const doc = await claimsToShow(state);
      if (mine !== seq) return;
      show(doc, state.focus);
      host.dataset.ready = 'true';
      host.dataset.ms = (performance.now() - t0).toFixed(1);
    } catch (e) {
      if (mine === seq) report(e);
    }
  }

  source.addEventListener('change', () => { picked = true; render(controller.state); });
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
