// The sweep's chart: one SVG, the swept value on x; max/mean on the left axis (with the
// target), queued splits and moves on the right axis (log scale when they span orders of
// magnitude); today's fleet (the step the core marks `today`) and the smallest value meeting the
// targets marked. Drawn at the width it is given; colours come from the theme (classes in
// style.css), text is bound as text. The axes' tick labels (class `tick`) are the page's scale,
// not figures of the sweep.
import { html, svg, nothing } from '../../common/page/lit.js';
import { valueScale, ratioScale, countScale } from '../shared/sweep-model.js';
import { thousands } from '../../common/shared/format.js';

const f1 = (v) => v.toFixed(1);

/** A marker shape at (x, y): circle, square or diamond, with its words on hover. */
function marker(shape, x, y, cls, title) {
  if (shape === 'circle') return svg`<circle cx=${f1(x)} cy=${f1(y)} r="3.2" class=${cls}><title>${title}</title></circle>`;
  if (shape === 'square') return svg`<rect x=${f1(x - 3)} y=${f1(y - 3)} width="6" height="6" class=${cls}><title>${title}</title></rect>`;
  return svg`<polygon points=${`${f1(x)},${f1(y - 4)} ${f1(x + 4)},${f1(y)} ${f1(x)},${f1(y + 4)} ${f1(x - 4)},${f1(y)}`} class=${cls}><title>${title}</title></polygon>`;
}

function series(points, cls, shape, withMarkers) {
  return svg`<polyline points=${points.map((p) => `${f1(p.x)},${f1(p.y)}`).join(' ')} class=${`line ${cls}`}></polyline>${
    withMarkers ? points.map((p) => marker(shape, p.x, p.y, `pt ${cls}`, p.title)) : nothing}`;
}

/** A vertical marker with its label above the plot; `anchor` keeps two labels apart. */
function vmark(x, top, bottom, cls, label, anchor) {
  return svg`<line x1=${f1(x)} x2=${f1(x)} y1=${top} y2=${bottom} class=${cls}></line><text x=${f1(x)} y=${top - 10} class=${`lbl ${cls}-lbl`} text-anchor=${anchor}>${label}</text>`;
}

/** The scales of a drawing `W` wide and `H` high, with its margins. */
function frame(steps, W, target) {
  const H = W < 520 ? 230 : 290;
  const [L, R, T, B] = [44, 44, 36, 40];
  const ratios = steps.map((s) => Number(s.max_over_mean));
  const xs = valueScale(steps[0].value, steps[steps.length - 1].value, Math.max(3, Math.floor((W - L - R) / 40)));
  const ys = ratioScale(ratios, target, H < 260 ? 4 : 5);
  const cs = countScale(steps.flatMap((s) => [s.queued, s.moves]));
  return { W, H, L, R, T, B, ratios, xs, ys, cs, px: (v) => L + xs.at(v) * (W - L - R), py: (at) => H - B - at * (H - T - B) };
}

/** The grid, the ticks of the three axes, the x axis and its title. */
function axes(f, axisLabel) {
  const { W, H, L, R, B, xs, ys, cs, px, py } = f;
  return svg`${ys.ticks.map((t) => svg`<line x1=${L} x2=${W - R} y1=${f1(py(t.at))} y2=${f1(py(t.at))} class="grid"></line><text
    x=${L - 6} y=${f1(py(t.at) + 4)} class="lbl lbl-ratio tick" text-anchor="end">${t.label}</text>`)}${
    cs.ticks.map((t) => svg`<text x=${W - R + 6} y=${f1(py(t.at) + 4)} class="lbl lbl-count tick">${t.label}</text>`)}${
    xs.ticks.map((t) => svg`<text x=${f1(px(t.value))} y=${H - B + 16} class="lbl tick" text-anchor="middle">${t.label}</text>`)}<line
    x1=${L} x2=${W - R} y1=${H - B} y2=${H - B} class="axis"></line><text x=${f1(L + (W - L - R) / 2)} y=${H - 6} class="lbl axis-title" text-anchor="middle">${axisLabel}</text>`;
}

/** The target's line, labelled at the right end (away from today's fleet, most often the first value), with a halo over the lines. */
function targetLine(f, target) {
  const yt = f.py(f.ys.at(target));
  return svg`<line x1=${f.L} x2=${f.W - f.R} y1=${f1(yt)} y2=${f1(yt)} class="m-target"></line><text x=${f.W - f.R - 4} y=${f1(yt - 4)}
    class="lbl lbl-ratio lbl-target" text-anchor="end">target ${target}</text>`;
}

/** Today's fleet and the smallest value meeting the targets, marked; two labels close together lean apart, one near an edge leans inwards. */
function marks(f, steps, current, chosen) {
  const { W, H, L, R, T, B, px } = f;
  const [from, to] = [steps[0].value, steps[steps.length - 1].value];
  const both = current !== null && current === chosen;
  const near = current !== null && chosen !== null && !both && Math.abs(px(current) - px(chosen)) < 90;
  const lean = (v) => {
    if (near) return v === Math.min(current, chosen) ? 'end' : 'start';
    return px(v) < L + 70 ? 'start' : px(v) > W - R - 70 ? 'end' : 'middle';
  };
  return svg`${current !== null && current >= from && current <= to ? vmark(px(current), T, H - B, 'm-now', both ? 'now · meets targets' : 'now', lean(current)) : nothing}${
    chosen !== null && !both ? vmark(px(chosen), T, H - B, 'm-chosen', `meets targets: ${thousands(chosen)}`, lean(chosen)) : nothing}`;
}

/**
 * The chart of `steps`: { width, axisLabel, current (value or null), chosen (value or null),
 * target (max/mean) }, as a template (drawn again, the same elements take the new figures).
 */
export function sweepChart(steps, { width, axisLabel, current, chosen, target }) {
  const f = frame(steps, Math.max(280, Math.round(width)), target);
  const { W, H, ratios, cs, py, px } = f;
  const dots = steps.length <= 64;
  const at = (s, y, what) => ({ x: px(s.value), y, title: `${axisLabel} ${s.value}: ${what}` });
  const [first, last] = [steps[0], steps[steps.length - 1]];
  const words = `Sweep of ${axisLabel} from ${first.value} to ${last.value}: max/mean from ${first.max_over_mean} to ${last.max_over_mean}; `
    + `queued from ${thousands(first.queued)} to ${thousands(last.queued)}; splits axis ${cs.log ? 'in log scale' : 'linear'}.`;
  return html`<svg width=${W} height=${H} viewBox=${`0 0 ${W} ${H}`} class="sweep-svg" role="img" aria-label=${words} data-log=${String(cs.log)}><title>${words}</title><g>${
    axes(f, axisLabel)}${targetLine(f, target)}${marks(f, steps, current, chosen)}${
    series(steps.map((s) => at(s, py(cs.at(s.moves)), `${thousands(s.moves)} moves`)), 's-moves', 'diamond', dots)}${
    series(steps.map((s) => at(s, py(cs.at(s.queued)), `${thousands(s.queued)} queued`)), 's-queued', 'square', dots)}${
    series(steps.map((s, i) => at(s, py(f.ys.at(ratios[i])), `max/mean ${s.max_over_mean}`)), 's-ratio', 'circle', dots)}</g></svg>`;
}
