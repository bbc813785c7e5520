// Convergence: the plan applied as the new ownership and planned again, round after round,
// until a round moves nothing; a table and a small chart (moves and max/mean per round). The
// rounds and the verdict are the core's (`spate-planner converge --json`'s document).
import { el, button } from '../../common/page/dom.js';
import { html, svg, render, nothing } from '../../common/page/lit.js';
import { dataTable, scrollBox } from '../../common/page/table.js';
import { changed } from '../../common/page/store.js';
import { humanBytes, thousands } from '../../common/shared/format.js';
import { errorReporter } from '../../common/page/focus-chip.js';

/** Most rounds run (`spate-planner converge`'s default). */
export const MAX_ROUNDS = 30;

/** The span of `values` as [low, high] (the same value twice when they are all one). */
function span(values) {
  return [Math.min(...values), Math.max(...values)];
}

/** The chart's labels: each axis' two ends (the core's values), the rounds and the series' names. */
function labels(rounds, ratios, { width, height, L, R, T, B }) {
  const [lowMoves, highMoves] = span(rounds.map((r) => r.moves));
  const [lowRatio, highRatio] = span(ratios);
  const ratioText = (v) => rounds[ratios.indexOf(v)].max_over_mean;
  const t = (x, y, text, cls, anchor = 'start') => svg`<text x=${x} y=${y} class=${cls} text-anchor=${anchor}>${text}</text>`;
  return svg`${t(4, T + 4, thousands(highMoves), 'label-moves')}${t(4, height - B, thousands(lowMoves), 'label-moves')}${
    t(width - 4, T + 4, ratioText(highRatio), 'label-ratio', 'end')}${t(width - 4, height - B, ratioText(lowRatio), 'label-ratio', 'end')}${
    t(L, height - 8, 'round 1', 'label')}${t(width - R, height - 8, `round ${rounds[rounds.length - 1].round}`, 'label', 'end')}${
    t(L, T - 8, 'moves', 'label-moves')}${t(L + 60, T - 8, 'max/mean load', 'label-ratio')}`;
}

/**
 * Moves per round and max/mean per round, two lines on one small chart. Each axis runs from the
 * lowest to the highest value the rounds have (a round that assigns nothing has max/mean 0,
 * drawn at 0), and its labels are those two values as the core's document writes them.
 */
export function roundsChart(rounds, width = 420, height = 170) {
  const box = { width, height, L: 44, R: 48, T: 22, B: 26 };
  const { L, R, T, B } = box;
  const n = Math.max(1, rounds.length - 1);
  const [lowMoves, highMoves] = span(rounds.map((r) => r.moves));
  const ratios = rounds.map((r) => Number(r.max_over_mean));
  const [lowRatio, highRatio] = span(ratios);
  // a flat series sits in the middle of its axis
  const at = (v, lo, hi) => (hi > lo ? (v - lo) / (hi - lo) : 0.5);
  const px = (i) => L + (i / n) * (width - L - R);
  const py = (f) => height - B - f * (height - T - B);
  const line = (pts, cls) => svg`<polyline points=${pts.map(([a, b]) => `${a.toFixed(1)},${b.toFixed(1)}`).join(' ')} class=${cls}></polyline>`;
  return html`<svg width=${width} height=${height} viewBox=${`0 0 ${width} ${height}`} role="img" class="rounds-chart" aria-labelledby="rounds-title"><title
    id="rounds-title">Convergence: splits moved per round (${rounds.map((r) => thousands(r.moves)).join(', ')}) and max/mean load</title><line
    x1=${L} x2=${width - R} y1=${height - B} y2=${height - B} class="axis-line"></line>${
    line(rounds.map((r, i) => [px(i), py(at(r.moves, lowMoves, highMoves))]), 'series-moves')}${
    line(ratios.map((v, i) => [px(i), py(at(v, lowRatio, highRatio))]), 'series-ratio')}${labels(rounds, ratios, box)}</svg>`;
}

/** The rounds run: the chart, the core's verdict and a row per round. */
function roundsTemplate(doc) {
  const cellsOf = (r) => [thousands(r.round), thousands(r.moves), humanBytes(r.weight_moved), thousands(r.improving_moves), r.bound_hit ? 'yes' : 'no', r.max_over_mean];
  return html`${roundsChart(doc.rounds)}<p class="hint verdict" role="status">${doc.verdict}</p>${
    scrollBox('convergence rounds', dataTable({ headers: ['round', 'moves', 'weight moved', 'improving', 'bound hit', 'max/mean'], rows: doc.rounds, key: (r) => r.round, cellsOf }))}`;
}

export function createConvergence(ctx) {
  const { controller } = ctx;
  const node = el('div', undefined, 'convergence');
  const out = el('div');
  const report = errorReporter(controller, 'The rounds could not be run');
  // while the rounds run the button refuses a second press but keeps keyboard focus (a disabled
  // button would drop it to the page's body)
  const run = button('Run rounds', async () => {
    if (run.getAttribute('aria-disabled') === 'true') return;
    run.setAttribute('aria-disabled', 'true');
    const planned = controller.state.result;
    try {
      const doc = await controller.ask('converge', { maxRounds: MAX_ROUNDS });
      // the plan changed meanwhile (a what-if, a live frame): these rounds are of another one
      if (controller.state.result !== planned) {
        const live = controller.state.live && !controller.state.live.replay;
        throw Object.assign(new Error(`the plan changed while they ran (${live ? 'a live frame or ' : ''}a what-if), so they were of the plan before it and are not shown: ${live ? 'pause the live job and ' : ''}run them again`), { code: 'plan_changed' });
      }
      render(roundsTemplate(doc), out);
      out.dataset.rounds = String(doc.rounds.length);
    } catch (e) {
      report(e);
    } finally {
      run.removeAttribute('aria-disabled');
    }
  });
  node.append(el('p', 'Apply the plan as the new ownership and plan again, round after round, until nothing moves.', 'hint'), run, out);
  return {
    node,
    update(state, prev) {
      if (changed(prev, state, 'result')) { render(nothing, out); delete out.dataset.rounds; }
    },
  };
}
