// The scrubber and the fleet at its time: a slider over the run (arrow keys step a second), and
// for each configuration who leads, how many splits run, drain or sit idle, each member's state,
// load and lanes, and the idle splits (since when, who held them before).
import { el, attrs, button, input, scrollArea, table } from '../../common/page/dom.js';
import { fleetAt, mostIdleMs } from '../shared/at.js';
import { clock, duration } from '../shared/script.js';
import { humanBytes, thousands, plural } from '../../common/shared/format.js';

const IDLE_SHOWN = 50;

function summaryText(which, f) {
  const c = f.counts;
  const idleWeight = f.idle.reduce((s, x) => s + x.weight, 0);
  return `${which} at ${clock(f.t)}: ${f.leader ? `${f.leader} leads` : 'no leader'}; ${thousands(c.running)} running, ${thousands(c.draining)} draining, `
    + `${thousands(c.idle)} idle (${humanBytes(BigInt(Math.round(idleWeight)))}), ${thousands(c.quarantined)} quarantined, ${thousands(c.completed)} completed.`;
}

function stateText(m) {
  return m.state === 'running' ? (m.leader ? 'running, leads' : 'running') : m.state;
}

function memberCells(byName, name) {
  return [name, ...byName.flatMap((map) => {
    const m = map.get(name);
    if (!m) return ['—', '', ''];
    return [stateText(m), humanBytes(BigInt(Math.round(m.load))), m.draining ? `${m.lanes} (${m.draining} draining)` : String(m.lanes)];
  })];
}

/** The members' table; while the members and configurations stay, scrubbing only rewrites its texts. */
function memberTable(host) {
  let key = '';
  let body = null;
  return (fleets) => {
    const names = [...new Set(fleets.flatMap(({ f }) => f.members.map((m) => m.name)))];
    const byName = fleets.map(({ f }) => new Map(f.members.map((m) => [m.name, m])));
    const rows = names.map((n) => memberCells(byName, n));
    const next = `${fleets.map((x) => x.which).join()}\n${names.join('\n')}`;
    if (next !== key) {
      key = next;
      const heads = ['member', ...fleets.flatMap(({ which }) => [`${which}: state`, `${which}: load`, `${which}: lanes`])];
      const t = table(heads, rows, `data tl-members${fleets.length > 1 ? ' both' : ''}`, 'members at the scrubber time');
      body = t.tBodies[0];
      [...body.rows].forEach((tr, i) => { tr.dataset.member = names[i]; });
      host.replaceChildren(t);
    } else {
      rows.forEach((cells, i) => cells.forEach((text, j) => {
        const td = body.rows[i].cells[j];
        if (td.textContent !== text) td.textContent = text;
      }));
    }
    [...body.rows].forEach((tr, i) => tr.classList.toggle('down', byName.some((map) => map.get(names[i]) && map.get(names[i]).state !== 'running')));
  };
}

function idleBlock(which, f) {
  const d = attrs(el('div', undefined, 'tl-idle-block'), { 'data-config': which });
  d.append(el('h4', `${which}: ${plural(f.idle.length, 'idle split')}`));
  if (!f.idle.length) { d.append(el('p', 'every runnable split is read', 'hint')); return d; }
  const rows = f.idle.slice(0, IDLE_SHOWN).map((x) => [x.id, humanBytes(BigInt(Math.round(x.weight))), `${clock(x.since)} (${duration(f.t - x.since)})`, x.last ?? '—']);
  const area = scrollArea(`${which}: idle splits`, 'scroll tl-idle-scroll');
  area.append(table(['split', 'size', 'idle since', 'held before by'], rows, 'data', `${which}: idle splits`));
  d.append(area);
  if (f.idle.length > IDLE_SHOWN) d.append(el('p', `… and ${thousands(f.idle.length - IDLE_SHOWN)} more`, 'hint'));
  return d;
}

/** onScrub(t): the slider or a button asks for time t (ms). */
export function createTimelineFleet({ onScrub }) {
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
  const drawMembers = memberTable(members);

  return {
    node,
    /** New runs: [{ which, model }]; the jumps offered are the start, each run's most idle moment, the end. */
    show(next) {
      runs = next;
      const end = Math.max(...runs.map((r) => r.model.endMs));
      slider.max = String(Math.floor(end / 1000));
      const most = runs.map((r) => [`${r.which}: most idle`, mostIdleMs(r.model)]);
      jumps.replaceChildren(...[['start', 0], ...most, ['end', end]].map(([label, t]) => button(`${label} (${clock(t)})`, () => onScrub(t))));
    },
    /** Shows the fleet at t (ms). */
    at(t) {
      if (!runs) return;
      slider.value = String(Math.round(t / 1000));
      slider.setAttribute('aria-valuetext', `${clock(t)} (${duration(t)})`);
      time.textContent = `t = ${clock(t)}`;
      const fleets = runs.map((r) => ({ which: r.which, f: fleetAt(r.model, Math.min(t, r.model.endMs)) }));
      summary.replaceChildren(...fleets.map(({ which, f }) => el('p', summaryText(which, f))));
      drawMembers(fleets);
      idle.replaceChildren(...fleets.map(({ which, f }) => idleBlock(which, f)));
      node.dataset.t = String(t);
    },
  };
}
