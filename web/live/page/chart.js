// The plan's figures over time, one small panel per figure on a shared time axis (members,
// max/mean load, queued, moves pending, distance from the published assignment), each with its
// value at the moment picked. A click on a panel, or the "moment" slider (keyboard), picks the
// point whose plan is shown below it.
import { el, attrs } from '../../common/page/dom.js';
import { html, svg, render, nothing, repeat } from '../../common/page/lit.js';
import { ratio, thousands } from '../../common/shared/format.js';
import { clock } from '../shared/state.js';

/** The drawing's own units; the SVG stretches to its panel (lines keep their width). */
const W = 600;
const H = 40;

export const SERIES = [
  { key: 'members', label: 'members', text: thousands },
  { key: 'maxOverMean', label: 'max / mean load', text: ratio },
  { key: 'queued', label: 'queued', text: thousands },
  { key: 'moves', label: 'moves pending', text: thousands },
  { key: 'fromPublished', label: 'differs from published', text: (v) => (v === null ? 'nothing published' : thousands(v)) },
];

/** x of each point (time axis) in drawing units. */
export function xScale(points) {
  const t0 = points[0]?.at ?? 0;
  const span = Math.max(1, (points[points.length - 1]?.at ?? 0) - t0);
  return (p) => ((p.at - t0) / span) * W;
}

/** The polyline's points of one series; a null value breaks the line (returns several runs). */
export function runs(points, key, x) {
  const values = points.map((p) => p[key]).filter((v) => v !== null && v !== undefined && Number.isFinite(v));
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  const y = (v) => (hi === lo ? H / 2 : H - 3 - ((v - lo) / (hi - lo)) * (H - 6));
  const out = [];
  let cur = [];
  for (const p of points) {
    const v = p[key];
    if (v === null || v === undefined || !Number.isFinite(v)) {
      if (cur.length) out.push(cur);
      cur = [];
    } else cur.push(`${x(p).toFixed(1)},${y(v).toFixed(1)}`);
  }
  if (cur.length) out.push(cur);
  return { runs: out, lo, hi };
}

/** A run of one point is a dot; a longer one a line. */
function run(r) {
  if (r.length > 1) return svg`<polyline points=${r.join(' ')} class="spark-line"></polyline>`;
  const [cx, cy] = r[0].split(',');
  return svg`<circle cx=${cx} cy=${cy} r="2.5" class="spark-dot"></circle>`;
}

/** One figure's panel, keyed by the figure: a new frame draws it again in place. */
function panel(series, points, x, sel) {
  const selectedX = points.length > 1 && sel ? x(sel) : null;
  const { runs: lines, lo, hi } = runs(points, series.key, x);
  const range = Number.isFinite(lo) ? `${series.text(lo)} – ${series.text(hi)}` : '—';
  return html`<div class="live-series" data-series=${series.key}><div class="series-label"><span class="series-name">${series.label}</span><span
    class="series-value">${sel ? series.text(sel[series.key]) : '—'}</span></div><svg viewBox=${`0 0 ${W} ${H}`} preserveAspectRatio="none" class="spark"
    aria-hidden="true">${lines.map(run)}${selectedX !== null ? svg`<line x1=${selectedX} x2=${selectedX} y1="0" y2=${H} class="spark-cursor"></line>` : nothing}</svg><span
    class="series-range">${range}</span></div>`;
}

/**
 * The chart; `onPick(id)` gets the point picked (null: the newest). Call update(live) with the
 * live state; it redraws only when the points or the selection changed.
 */
export function createLiveChart(onPick) {
  const node = el('div', undefined, 'live-chart');
  const panels = el('div', undefined, 'live-panels');
  const slider = attrs(document.createElement('input'), { type: 'range', min: 0, max: 0, step: 1, 'aria-label': 'moment whose plan is shown' });
  const sliderRow = el('label', undefined, 'live-moment');
  sliderRow.append(el('span', 'Moment'), slider);
  const axis = el('div', undefined, 'live-axis');
  node.append(panels, axis, sliderRow);
  let points = [];
  let shown = null;

  slider.addEventListener('input', () => {
    const i = Number(slider.value);
    onPick(i >= points.length - 1 ? null : points[i].id);
  });
  panels.addEventListener('click', (e) => {
    const r = panels.querySelector('svg')?.getBoundingClientRect();
    if (!r || !points.length || !r.width) return;
    const frac = Math.min(1, Math.max(0, (e.clientX - r.left) / r.width));
    const x = xScale(points);
    let best = points.length - 1;
    points.forEach((p, i) => { if (Math.abs(x(p) / W - frac) < Math.abs(x(points[best]) / W - frac)) best = i; });
    onPick(best === points.length - 1 ? null : points[best].id);
  });

  return {
    node,
    update(live) {
      if (shown && shown.points === live.points && shown.selected === live.selected) return;
      shown = live;
      points = live.points;
      const x = xScale(points);
      const idx = live.selected === null ? points.length - 1 : points.findIndex((p) => p.id === live.selected);
      const sel = points[idx];
      render(repeat(SERIES, (s) => s.key, (s) => panel(s, points, x, sel)), panels);
      const ends = points.length ? [points[0], points[points.length - 1]].map((p) => `${clock(p.at)} UTC`) : ['', ''];
      render(html`<span>${ends[0]}</span><span>${ends[1]}</span>`, axis);
      slider.max = String(Math.max(0, points.length - 1));
      slider.value = String(Math.max(0, idx));
      slider.disabled = points.length < 2;
      slider.setAttribute('aria-valuetext', sel ? `${clock(sel.at)} UTC, revisions ${sel.revisions}${live.selected === null ? ' (the newest)' : ''}` : 'no moment yet');
    },
  };
}
