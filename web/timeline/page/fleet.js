// The scrubber and the fleet at its time: a slider over the run (arrow keys step a second), and
// for each configuration who leads, how many splits run, drain or sit idle, each member's state,
// load and lanes, and the idle splits (since when, who held them before). The fleet at an
// instant is the simulator's (SimRun.fleetAt on the runs the worker keeps), asked for the newest
// time only: while an answer is on its way, later scrubs collapse into one, and an answer for
// runs no longer shown is dropped.
import { el, attrs, input, scrollArea } from '../../common/page/dom.js';
import { dataTable, cells } from '../../common/page/table.js';
import { html, render, repeat, nothing } from '../../common/page/lit.js';
import { clock, duration } from '../shared/script.js';
import { humanBytes, thousands, plural } from '../../common/shared/format.js';
import { isSuperseded } from '../../common/shared/messages.js';

const IDLE_SHOWN = 50;

function summaryText(which, f) {
  const c = f.counts;
  const n = (k) => thousands(Number(c[k]));
  return `${which} at ${clock(Number(f.t_ms))}: ${f.leader ? `${f.leader} leads` : 'no leader'}; ${n('running')} running, ${n('draining')} draining, `
    + `${n('idle')} idle (${humanBytes(BigInt(f.idle_weight))}), ${n('quarantined')} quarantined, ${n('completed')} completed.`;
}

const STATES = { running: 'running', crashed: 'crashed', stopped: 'stopped', not_started: 'not started' };

function stateText(m) {
  return m.state === 'running' && m.leader ? 'running, leads' : STATES[m.state];
}

function memberCells(byName, name) {
  return [name, ...byName.flatMap((map) => {
    const m = map.get(name);
    if (!m) return ['—', '', ''];
    return [stateText(m), humanBytes(BigInt(m.load)), Number(m.draining) ? `${m.lanes} (${m.draining} draining)` : String(m.lanes)];
  })];
}

/** The members' table at the scrubber's time: rows keyed by member, so scrubbing only rewrites texts. */
function membersView(fleets) {
  const names = [...new Set(fleets.flatMap(({ f }) => f.members.map((m) => m.name)))];
  const byName = fleets.map(({ f }) => new Map(f.members.map((m) => [m.name, m])));
  const down = (name) => byName.some((map) => map.get(name) && map.get(name).state !== 'running');
  const headers = ['member', ...fleets.flatMap(({ which }) => [`${which}: state`, `${which}: load`, `${which}: lanes`])];
  return dataTable({
    headers, rows: names, key: (n) => n, cls: `data tl-members${fleets.length > 1 ? ' both' : ''}`, caption: 'members at the scrubber time',
    row: (n) => html`<tr class=${down(n) ? 'down' : nothing} data-member=${n}>${cells(memberCells(byName, n))}</tr>`,
  });
}

/** The idle splits of one configuration: the first IDLE_SHOWN listed (the worker sends no more), the rest counted. */
function idleBlock(which, f) {
  const count = Number(f.counts.idle);
  const t = Number(f.t_ms);
  const rows = f.idle.map((x) => [x.id, humanBytes(BigInt(x.weight)), `${clock(Number(x.since_ms))} (${duration(t - Number(x.since_ms))})`, x.last ?? '—']);
  const list = html`<div class="scroll tl-idle-scroll" tabindex="0" role="region" aria-label=${`${which}: idle splits`}><table class="data">
    <caption class="visually-hidden">${which}: idle splits</caption>
    <thead><tr>${['split', 'size', 'idle since', 'held before by'].map((h) => html`<th scope="col">${h}</th>`)}</tr></thead>
    <tbody>${repeat(rows, (r) => r[0], (r) => html`<tr>${r.map((c) => html`<td title=${c.length > 20 ? c : nothing}>${c}</td>`)}</tr>`)}</tbody></table></div>`;
  return html`<div class="tl-idle-block" data-config=${which}><h4>${which}: ${plural(count, 'idle split')}</h4>${
    count ? list : html`<p class="hint">every runnable split is read</p>`}${
    count > f.idle.length ? html`<p class="hint">… and ${thousands(count - f.idle.length)} more</p>` : nothing}</div>`;
}

/** The jumps offered: the start, each run's most idle moment, the end; kept by key across runs. */
function jumpsView(runs, onScrub) {
  const end = Math.max(...runs.map((r) => r.model.endMs));
  const list = [['start', 'start', 0], ...runs.map((r) => [`most-${r.which}`, `${r.which}: most idle`, r.model.mostIdleMs]), ['end', 'end', end]];
  return repeat(list, ([key]) => key, ([, label, t]) => html`<button type="button" @click=${() => onScrub(t)}>${label} (${clock(t)})</button>`);
}

/**
 * onScrub(t): the slider or a button asks for time t (ms); ask(runId, t, idleLimit): the
 * worker's answer for the fleet of a kept run at t (a promise).
 */
export function createTimelineFleet({ onScrub, ask }) {
  const node = attrs(el('section', undefined, 'tl-fleet'), { 'aria-labelledby': 'tl-fleet-title' });
  const title = attrs(el('h3', 'The fleet at a moment'), { id: 'tl-fleet-title' });
  const slider = input('range', { min: '0', max: '600', step: '1', value: '0', 'aria-label': 'time of the fleet shown (seconds)' });
  const time = el('output', '', 'tl-time');
  const jumps = el('div', undefined, 'row tl-jumps');
  const scrub = el('div', undefined, 'tl-scrub');
  scrub.append(slider, time);
  const summary = el('div', undefined, 'tl-at');
  const members = scrollArea('members at the scrubber time', 'scroll tl-members-scroll');
  const idle = el('div', undefined, 'tl-idle-list');
  node.append(title, scrub, jumps, summary, members, idle);
  slider.addEventListener('input', () => onScrub(Number(slider.value) * 1000));
  let runs = null;

  /** Asks the fleets of `shown` at t and draws them, unless other runs are shown by then. */
  async function fetchAndDraw(shown, t) {
    let fleets;
    try {
      fleets = await Promise.all(shown.map(async (r) => ({ which: r.which, f: await ask(r.model.runId, Math.min(t, r.model.endMs), IDLE_SHOWN) })));
    } catch (e) {
      if (shown !== runs || isSuperseded(e)) return;
      // said where the fleet was; no fleet of another time is left beside it
      render(html`<p class="form-error" role="alert">The fleet at ${clock(t)} could not be read: ${e.message} (${e.code || 'internal'})</p>`, summary);
      members.hidden = true;
      idle.hidden = true;
      return;
    }
    if (shown !== runs) return;
    members.hidden = false;
    idle.hidden = false;
    render(repeat(fleets, ({ which }) => which, ({ which, f }) => html`<p>${summaryText(which, f)}</p>`), summary);
    render(membersView(fleets), members);
    render(repeat(fleets, ({ which }) => which, ({ which, f }) => idleBlock(which, f)), idle);
    node.dataset.t = String(t);
  }

  // the newest time asked for, with whoever waits for it; one request at a time
  let wanted = null;
  let asking = false;
  async function pump() {
    asking = true;
    while (wanted) {
      const { t, waiting } = wanted;
      wanted = null;
      await fetchAndDraw(runs, t);
      for (const done of waiting) done();
    }
    asking = false;
  }

  return {
    node,
    /** New runs: [{ which, model }]; the jumps offered are the start, each run's most idle moment, the end (the same buttons across runs: focus stays). */
    show(next) {
      runs = next;
      slider.max = String(Math.floor(Math.max(...runs.map((r) => r.model.endMs)) / 1000));
      render(jumpsView(runs, onScrub), jumps);
    },
    /** Shows the fleet at t (ms); resolves once it is drawn (or a later time replaced it). */
    at(t) {
      if (!runs) return Promise.resolve();
      slider.value = String(Math.round(t / 1000));
      slider.setAttribute('aria-valuetext', `${clock(t)} (${duration(t)})`);
      time.textContent = `t = ${clock(t)}`;
      return new Promise((done) => {
        wanted = { t, waiting: [...(wanted?.waiting ?? []), done] };
        if (!asking) pump();
      });
    },
  };
}
