// The sweep's chart: one SVG, the swept value on x; max/mean on the left axis (with the
// target), queued splits and moves on the right axis (log scale when they span orders of
// magnitude); today's fleet (the step the core marks `today`) and the smallest value meeting the
// targets marked. Drawn at the width it is given; colours come from the theme (classes in
// style.css), text is textContent. The axes' tick labels (class `tick`) are the page's scale,
// not figures of the sweep.
import { valueScale, ratioScale, countScale } from '../shared/sweep-model.js';
import { thousands } from '../../common/shared/format.js';

const NS = 'http://www.w3.org/2000/svg';

function svg(tag, map = {}, text) {
  const e = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(map)) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = String(text);
  return e;
}

const f1 = (v) => v.toFixed(1);

/** A marker shape at (x, y): circle, square or diamond, with its words on hover. */
function marker(shape, x, y, cls, title) {
  const m = shape === 'circle' ? svg('circle', { cx: f1(x), cy: f1(y), r: 3.2, class: cls })
    : shape === 'square' ? svg('rect', { x: f1(x - 3), y: f1(y - 3), width: 6, height: 6, class: cls })
      : svg('polygon', { points: `${f1(x)},${f1(y - 4)} ${f1(x + 4)},${f1(y)} ${f1(x)},${f1(y + 4)} ${f1(x - 4)},${f1(y)}`, class: cls });
  m.append(svg('title', {}, title));
  return m;
}

function series(g, points, cls, shape, withMarkers) {
  g.append(svg('polyline', { points: points.map((p) => `${f1(p.x)},${f1(p.y)}`).join(' '), class: `line ${cls}` }));
  if (withMarkers) for (const p of points) g.append(marker(shape, p.x, p.y, `pt ${cls}`, p.title));
}

/** A vertical marker with its label above the plot; `anchor` keeps two labels apart. */
function vmark(g, x, top, bottom, cls, label, anchor) {
  g.append(svg('line', { x1: f1(x), x2: f1(x), y1: top, y2: bottom, class: cls }));
  g.append(svg('text', { x: f1(x), y: top - 10, class: `lbl ${cls}-lbl`, 'text-anchor': anchor }, label));
}

/**
 * The chart of `steps`: { width, axisLabel, current (value or null), chosen (value or null),
 * target (max/mean) }.
 */
export function sweepChart(steps, { width, axisLabel, current, chosen, target }) {
  const W = Math.max(280, Math.round(width));
  const H = W < 520 ? 230 : 290;
  const L = 44; const R = 44; const T = 36; const B = 40;
  const ratios = steps.map((s) => Number(s.max_over_mean));
  const counts = steps.flatMap((s) => [s.queued, s.moves]);
  const from = steps[0].value;
  const to = steps[steps.length - 1].value;
  const xs = valueScale(from, to, Math.max(3, Math.floor((W - L - R) / 40)));
  const ys = ratioScale(ratios, target, H < 260 ? 4 : 5);
  const cs = countScale(counts);
  const px = (v) => L + xs.at(v) * (W - L - R);
  const py = (at) => H - B - at * (H - T - B);
  const root = svg('svg', { width: W, height: H, viewBox: `0 0 ${W} ${H}`, class: 'sweep-svg', role: 'img' });
  const g = svg('g');
  root.append(g);
  for (const t of ys.ticks) {
    g.append(svg('line', { x1: L, x2: W - R, y1: f1(py(t.at)), y2: f1(py(t.at)), class: 'grid' }));
    g.append(svg('text', { x: L - 6, y: f1(py(t.at) + 4), class: 'lbl lbl-ratio tick', 'text-anchor': 'end' }, t.label));
  }
  for (const t of cs.ticks) g.append(svg('text', { x: W - R + 6, y: f1(py(t.at) + 4), class: 'lbl lbl-count tick' }, t.label));
  for (const t of xs.ticks) g.append(svg('text', { x: f1(px(t.value)), y: H - B + 16, class: 'lbl tick', 'text-anchor': 'middle' }, t.label));
  g.append(svg('line', { x1: L, x2: W - R, y1: H - B, y2: H - B, class: 'axis' }));
  g.append(svg('text', { x: f1(L + (W - L - R) / 2), y: H - 6, class: 'lbl axis-title', 'text-anchor': 'middle' }, axisLabel));
  const yt = py(ys.at(target));
  g.append(svg('line', { x1: L, x2: W - R, y1: f1(yt), y2: f1(yt), class: 'm-target' }));
  // at the right end, away from today's fleet (most often the first value), with a halo over the lines
  g.append(svg('text', { x: W - R - 4, y: f1(yt - 4), class: 'lbl lbl-ratio lbl-target', 'text-anchor': 'end' }, `target ${target}`));
  const both = current !== null && current === chosen;
  const near = current !== null && chosen !== null && !both && Math.abs(px(current) - px(chosen)) < 90;
  // two labels close together lean apart; a label near an edge leans inwards
  const left = (v) => {
    if (near) return v === Math.min(current, chosen) ? 'end' : 'start';
    return px(v) < L + 70 ? 'start' : px(v) > W - R - 70 ? 'end' : 'middle';
  };
  if (current !== null && current >= from && current <= to) vmark(g, px(current), T, H - B, 'm-now', both ? 'now · meets targets' : 'now', left(current));
  if (chosen !== null && !both) vmark(g, px(chosen), T, H - B, 'm-chosen', `meets targets: ${thousands(chosen)}`, left(chosen));
  const dots = steps.length <= 64;
  const at = (s, y, what) => ({ x: px(s.value), y, title: `${axisLabel} ${s.value}: ${what}` });
  series(g, steps.map((s) => at(s, py(cs.at(s.moves)), `${thousands(s.moves)} moves`)), 's-moves', 'diamond', dots);
  series(g, steps.map((s) => at(s, py(cs.at(s.queued)), `${thousands(s.queued)} queued`)), 's-queued', 'square', dots);
  series(g, steps.map((s, i) => at(s, py(ys.at(ratios[i])), `max/mean ${s.max_over_mean}`)), 's-ratio', 'circle', dots);
  const words = `Sweep of ${axisLabel} from ${from} to ${to}: max/mean from ${steps[0].max_over_mean} to ${steps[steps.length - 1].max_over_mean}; `
    + `queued from ${thousands(steps[0].queued)} to ${thousands(steps[steps.length - 1].queued)}; splits axis ${cs.log ? 'in log scale' : 'linear'}.`;
  root.setAttribute('aria-label', words);
  root.prepend(svg('title', {}, words));
  root.dataset.log = String(cs.log);
  return root;
}
