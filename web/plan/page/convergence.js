// Convergence: the plan applied as the new ownership and planned again, round after round,
// until a round moves nothing; a table and a small chart (moves and max/mean per round).
import { el, attrs, button, table, scrollArea } from '../../common/page/dom.js';
import { changed } from '../../common/page/store.js';
import { humanBytes, ratio, thousands } from '../../common/shared/format.js';
import { errorReporter } from '../../common/page/focus-chip.js';

const NS = 'http://www.w3.org/2000/svg';

function svg(tag, map = {}, text) {
  const e = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(map)) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = String(text);
  return e;
}

/** Moves per round and max/mean per round, two lines on one small chart. */
export function roundsChart(rounds, width = 420, height = 170) {
  const s = svg('svg', { width, height, viewBox: `0 0 ${width} ${height}`, role: 'img', class: 'rounds-chart', 'aria-labelledby': 'rounds-title' });
  s.append(svg('title', { id: 'rounds-title' }, `Convergence: splits moved per round (${rounds.map((r) => r.moves).join(', ')}) and max/mean load`));
  const L = 44; const R = 48; const T = 22; const B = 26;
  const n = Math.max(1, rounds.length - 1);
  const maxMoves = Math.max(1, ...rounds.map((r) => r.moves));
  const maxRatio = Math.max(1.0001, ...rounds.map((r) => r.max_over_mean || 1));
  const px = (i) => L + (i / n) * (width - L - R);
  const pyM = (v) => height - B - (v / maxMoves) * (height - T - B);
  const pyR = (v) => height - B - ((v - 1) / (maxRatio - 1)) * (height - T - B);
  const line = (pts, cls) => svg('polyline', { points: pts.map(([a, b]) => `${a.toFixed(1)},${b.toFixed(1)}`).join(' '), class: cls });
  s.append(svg('line', { x1: L, x2: width - R, y1: height - B, y2: height - B, class: 'axis-line' }));
  s.append(line(rounds.map((r, i) => [px(i), pyM(r.moves)]), 'series-moves'));
  s.append(line(rounds.map((r, i) => [px(i), pyR(r.max_over_mean || 1)]), 'series-ratio'));
  const t = (x, y, text, cls, anchor = 'start') => svg('text', { x, y, class: cls, 'text-anchor': anchor }, text);
  s.append(t(4, T + 4, thousands(maxMoves), 'label-moves'), t(4, height - B, '0', 'label-moves'));
  s.append(t(width - 4, T + 4, maxRatio.toFixed(3), 'label-ratio', 'end'), t(width - 4, height - B, '1.000', 'label-ratio', 'end'));
  s.append(t(L, height - 8, 'round 1', 'label'), t(width - R, height - 8, `round ${rounds.length}`, 'label', 'end'));
  s.append(t(L, T - 8, 'moves', 'label-moves'), t(L + 60, T - 8, 'max/mean load', 'label-ratio'));
  return s;
}

export function createConvergence(ctx) {
  const { controller } = ctx;
  const node = el('div', undefined, 'convergence');
  const out = el('div');
  const report = errorReporter(controller, 'The rounds could not be run');
  const run = button('Run rounds', async () => {
    run.disabled = true;
    try {
      const rounds = await controller.ask('converge', { maxRounds: 30 });
      const rows = rounds.map((r) => [r.round, thousands(r.moves), humanBytes(r.weight_moved), thousands(r.improving_moves), r.bound_hit ? 'yes' : 'no', ratio(r.max_over_mean)]);
      const last = rounds[rounds.length - 1];
      const verdict = last && last.moves === 0 ? `Converged: round ${last.round} moves nothing.` : `Still moving after ${rounds.length} rounds.`;
      const area = scrollArea('convergence rounds');
      area.append(table(['round', 'moves', 'weight moved', 'improving', 'bound hit', 'max/mean'], rows));
      out.replaceChildren(roundsChart(rounds), attrs(el('p', verdict, 'hint verdict'), { role: 'status' }), area);
      out.dataset.rounds = String(rounds.length);
    } catch (e) {
      report(e);
    } finally {
      run.disabled = false;
    }
  });
  node.append(el('p', 'Apply the plan as the new ownership and plan again, round after round, until nothing moves.', 'hint'), run, out);
  return {
    node,
    update(state, prev) {
      if (changed(prev, state, 'result')) { out.replaceChildren(); delete out.dataset.rounds; }
    },
  };
}
