// Placeholder dashboard: loads the wasm decision core and shows the plan of the built-in demo
// fleet. Everything from the core is rendered with textContent only.
import init, { demoPlan } from './pkg/spate_planner.js';

const DEMO_SPLITS = 2000;
const DEMO_MEMBERS = 40;

/** Bytes (a decimal string, exact u64) in human units. */
export function humanBytes(decimal) {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB'];
  let v = Number(BigInt(decimal)); // display only: rounding is fine here
  let u = 0;
  while (v >= 1024 && u < units.length - 1) { v /= 1024; u++; }
  return `${v.toFixed(u === 0 ? 0 : 1)} ${units[u]}`;
}

function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = String(text);
  if (cls) e.className = cls;
  return e;
}

function render(plan) {
  const figures = document.getElementById('figures');
  const s = plan.summary;
  const items = [
    ['members', s.members], ['splits', s.splits], ['departed', plan.gone.join(', ') || 'none'],
    ['improving moves', s.moves], ['4096-move bound hit', s.boundHit ? 'yes' : 'no'],
    ['max/min load', s.maxMin === null ? '∞' : s.maxMin.toFixed(4)],
  ];
  figures.replaceChildren(...items.map(([k, v]) => { const f = el('div', undefined, 'figure'); f.append(el('b', v), el('span', k)); return f; }));
  figures.hidden = false;

  const max = plan.members.reduce((m, r) => (BigInt(r.loadPlanned) > m ? BigInt(r.loadPlanned) : m), 1n);
  const body = document.querySelector('#fleet tbody');
  body.replaceChildren(...plan.members.map((r) => {
    const tr = el('tr');
    tr.dataset.member = r.name;
    const bar = el('div', undefined, 'bar');
    bar.style.width = `${(Number((BigInt(r.loadPlanned) * 1000n) / max) / 10).toFixed(1)}%`;
    const barCell = el('td'); barCell.append(bar);
    tr.append(el('td', r.name), el('td', humanBytes(r.loadNow)), el('td', humanBytes(r.loadPlanned)), barCell,
      el('td', `${r.lanes}/${r.cap}`), el('td', r.gained), el('td', r.lost));
    return tr;
  }));
  document.getElementById('fleet').hidden = false;
}

async function main() {
  const status = document.getElementById('status');
  try {
    await init();
    const t0 = performance.now();
    const plan = demoPlan(DEMO_SPLITS, DEMO_MEMBERS);
    status.textContent = `Planned ${plan.summary.splits} splits on ${plan.summary.members} members in ${(performance.now() - t0).toFixed(1)} ms.`;
    render(plan);
    document.body.dataset.ready = 'true';
  } catch (e) {
    status.textContent = `The decision core could not run: ${e && e.message ? e.message : e}`;
    status.className = 'error';
    document.body.dataset.ready = 'error';
  }
}

main();
