// The what-if panel: the leader's default cap, the list of changes (a change that no longer
// applies is marked with its reason), the scenario as a file and the command that plans it,
// the recently departed instances whose splits the leader withholds, and the forms. Beside the chart when the element is wide; a drawer at the bottom
// of the viewport when it is narrow (the summary strip stays in view above).
import { el, attrs, button, input, select, download } from '../../common/page/dom.js';
import { html, render, nothing, repeat, live } from '../../common/page/lit.js';
import { changed } from '../../common/page/store.js';
import { describe, scenarioText } from '../../common/shared/scenario.js';
import { command, snapshotArg, stemOf } from '../../common/shared/cli.js';
import { copyText } from '../../common/page/copy.js';
import { createForms } from './forms.js';

/**
 * Removes change i. The list's items are drawn in place by position, so the ✕ that had focus
 * keeps it (it now removes the change that followed); the last one's goes to the ✕ before it.
 */
async function removeAt(event, i, controller) {
  const b = event.currentTarget;
  const list = b.closest('ol');
  await controller.removeChange(i);
  if (!b.isConnected && list.contains(document.activeElement) === false) list.querySelector('li:last-child button')?.focus();
}

function changeItem(c, i, failure, controller) {
  const label = `Remove change ${i + 1}: ${describe(c, failure)}`;
  return html`<li class=${failure ? 'failing' : ''} data-change=${i}><span class="what">${describe(c, failure)}</span>${
    failure ? html`<span class="reason">not applied: ${failure.message} (${failure.code})</span>` : nothing
  }<button type="button" class="icon" aria-label=${label} title=${label} @click=${(e) => removeAt(e, i, controller)}>✕</button></li>`;
}

function changeItems(state, controller) {
  const failures = new Map((state.result?.failures || []).map((f) => [f.index, f]));
  const items = state.scenario.changes.map((c, i) => changeItem(c, i, failures.get(i), controller));
  return items.length ? items : html`<li class="hint">none yet: the plan shown is the baseline</li>`;
}

const STATE_WORDS = {
  withheld: (d) => (d.withheld ? `${d.withheld} split${d.withheld === 1 ? '' : 's'} withheld` : 'nothing withheld'),
  released: () => 'released: its splits move now',
  returned: () => 'back in the fleet',
  no_delay: () => 'no rebalance delay: nothing withheld',
};

const DEPARTURES = { crash: 'crashed', graceful: 'stopped gracefully', crash_after_delay: 'crashed longer than the delay ago' };

/** Why an instance is listed: the what-if removed it (and how), the store shows it gone, or it still owns splits. */
function whyListed(d, fromStore) {
  if (d?.origin === 'scenario') {
    const released = d.departure === 'graceful' ? `, releasing the ${d.released} split${d.released === 1 ? '' : 's'} it held` : '';
    return `removed by the what-if: ${DEPARTURES[d.departure] ?? d.departure}${released}`;
  }
  return fromStore ? 'departed recently (its assign record lingers)' : 'owns splits but is no longer a member';
}

function departedItem(name, i, d, fromStore, controller) {
  const words = d ? STATE_WORDS[d.state](d) : 'its splits move now';
  const toggle = (e) => controller.setWithheld(name, e.currentTarget.checked);
  return html`<li data-departed=${name} data-origin=${d?.origin ?? 'owner'}><label class="check"><input type="checkbox" aria-describedby=${`departed-note-${i}`}
    .checked=${live(d?.state === 'withheld')} ?disabled=${d?.state === 'returned' || d?.state === 'no_delay'} @change=${toggle}><span class="who"> ${name}</span></label><span
    class="hint" id=${`departed-note-${i}`}> — ${whyListed(d, fromStore)}; ${words}</span></li>`;
}

/** The departed instances, by name: each keeps its checkbox (and its focus) while others come and go. */
function departedList(state, controller) {
  const info = state.info;
  const view = state.result.view;
  const members = new Set(info.members.map((m) => m.name));
  const byName = new Map(view.departed.map((d) => [d.instance, d]));
  // the plan's departures (the store's and the what-if's, members of the snapshot included), and
  // owners of splits that are no longer members
  const names = [...new Set([...info.recent_departures, ...info.departed_owners, ...byName.keys()])].filter((n) => byName.has(n) || !members.has(n));
  if (!names.length) return nothing;
  return html`<h3>Departed</h3><p class="hint">Departed instances. Checked: the leader withholds the splits they still own until the rebalance delay ends; uncheck to plan as if the delay were over.</p><ul
    class="departed">${repeat(names, (n) => n, (n, i) => departedItem(n, i, byName.get(n), info.recent_departures.includes(n), controller))}</ul>`;
}

function capSetting(controller) {
  const cap = input('number', { min: '0', max: '4294967295', step: '1', 'aria-label': 'leader default cap' });
  cap.addEventListener('change', () => {
    const v = cap.value.trim();
    controller.setSettings({ defaultCap: v === '' ? null : Math.max(0, Math.min(4294967295, Math.floor(Number(v)))) });
  });
  const l = el('label', undefined, 'field');
  l.append(el('span', 'Leader default cap (empty: its own)'), cap);
  return { node: l, cap };
}

/** Which release's rules plan the store: the store's (detected) or one picked. */
function rulesSetting(controller) {
  const rules = select([['', 'as the store names them'], ['0.1', 'Spate 0.1 / 0.2'], ['0.3', 'Spate 0.3']], 'decision rules');
  rules.addEventListener('change', () => controller.setSettings({ rules: rules.value === '' ? null : rules.value }));
  const l = el('label', undefined, 'field');
  l.append(el('span', 'Decision rules (what upgrading changes)'), rules);
  // the two releases' plans of this what-if, side by side (the Upgrade tab)
  const both = button('Compare 0.1 and 0.3 side by side', () => controller.showTab('upgrade', true));
  const box = el('div', undefined, 'rules-setting');
  box.append(l, both);
  return { node: box, rules };
}

/** The scenario's file name, and the command that plans the snapshot shown with it. */
function scenarioFile(state) {
  const name = `${stemOf(state.info?.job)}-scenario.json`;
  return { name, command: command('plan', snapshotArg(state.source), '--what-if', name) };
}

/** Scenario JSON (the file `plan --what-if` reads) and the command that plans it. */
function scenarioTools(controller) {
  const row = el('div', undefined, 'row scenario-tools');
  row.append(
    button('Scenario JSON', () => download(scenarioFile(controller.state).name, 'application/json', `${scenarioText(controller.state.scenario)}\n`)),
    button('Copy the command', () => {
      const c = scenarioFile(controller.state).command;
      copyText(controller, c, `Command copied: ${c}`);
    }, undefined, 'Copy the command that plans this scenario on the command line'),
  );
  return row;
}

export function createWhatIf(ctx) {
  const { controller } = ctx;
  const node = attrs(el('section', undefined, 'whatif'), { 'aria-labelledby': 'whatif-title', id: 'whatif' });
  const toggle = attrs(button('', () => setOpen(!open), 'drawer-toggle'), { 'aria-expanded': 'false', 'aria-controls': 'whatif-body' });
  const heading = attrs(el('h2', 'What-if'), { id: 'whatif-title' });
  const body = attrs(el('div', undefined, 'whatif-body'), { id: 'whatif-body', tabindex: '-1' });
  const settings = capSetting(controller);
  const rulesField = rulesSetting(controller);
  const list = attrs(el('ol', undefined, 'changes'), { 'aria-label': 'changes' });
  const tools = el('div', undefined, 'row');
  const undo = button('Undo last change', () => controller.undo());
  const clear = button('Clear all', () => controller.clear());
  tools.append(undo, clear);
  const departed = el('div', undefined, 'departed-slot');
  const forms = createForms(ctx);
  const files = scenarioTools(controller);
  body.append(settings.node, rulesField.node, el('h3', 'Changes'), list, tools, files, departed, forms.node);
  node.append(heading, toggle, body);
  let open = false;

  function setOpen(v) {
    open = v;
    node.classList.toggle('open', v);
    toggle.setAttribute('aria-expanded', String(v));
    toggleText(controller.state);
    // the drawer covers the lower part of the viewport: bring the summary strip to the top
    if (v) ctx.root.querySelector('.top')?.scrollIntoView({ block: 'start' });
  }

  function toggleText(state) {
    const n = state.scenario.changes.length;
    toggle.textContent = `${open ? 'Hide' : 'Show'} what-if (${n} change${n === 1 ? '' : 's'})`;
  }

  function renderChanges(state) {
    render(changeItems(state, controller), list);
    undo.disabled = clear.disabled = state.scenario.changes.length === 0;
    // on paper, a scenario without changes is no section of its own (style.css)
    node.dataset.changes = String(state.scenario.changes.length);
    toggleText(state);
  }

  return {
    node,
    update(state, prev) {
      if (changed(prev, state, 'scenario', 'result')) renderChanges(state);
      // only the newest change's "Applied" line: the form that made it writes it after this
      if (prev && changed(prev, state, 'scenario')) forms.clearDone();
      if (changed(prev, state, 'result') && state.result) {
        const v = state.result.view;
        forms.setMembers(v.report.members);
        settings.cap.placeholder = String(v.default_cap);
        render(departedList(state, controller), departed);
      }
      if (changed(prev, state, 'scenario')) {
        // a field being typed in (saved when it is left) keeps what is typed
        if (!settings.cap.matches(':focus')) settings.cap.value = state.scenario.defaultCap ?? '';
        rulesField.rules.value = state.scenario.rules ?? '';
      }
      // the focused member (a chart click, a link's) picked in the forms; a later plan keeps what the person picked
      if (state.focus && (changed(prev, state, 'focus') || (state.result && !prev?.result))) forms.prefill(state.focus);
    },
  };
}
