// The Timeline's chart as SVG: a run's stack (timeline/shared/series.js) as areas over time, the
// value and time axes, the event marks and the scrubber's cursor. The page styles it with
// classes (themes follow the element); the report's image gets explicit colours (`palette`).
// Every name is an SVG text node or title (textContent), never markup.
import { bandPoints, stepPoints, valueScale, timeTicks } from '../shared/series.js';
import { MARK_GLYPH } from '../shared/marks.js';

const NS = 'http://www.w3.org/2000/svg';
export const MARGIN = { left: 62, right: 12, top: 20, bottom: 22 };

function svgEl(doc, tag, attrs = {}, text) {
  const e = doc.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = String(text);
  return e;
}

/** A layer's class (its colour): tl-rest, tl-idle or tl-m0 … tl-m7. */
export function layerClass(layer) {
  return layer.kind === 'member' ? `tl-m${layer.slot % 8}` : `tl-${layer.kind}`;
}

function fillOf(layer, palette) {
  if (!palette) return null;
  return layer.kind === 'member' ? palette.members[layer.slot % palette.members.length] : palette[layer.kind];
}

/** The value axes of each panel ({ top, h, scale, label }) and the time axis below the last. */
function axes(doc, svg, g, { width, height, range, panels, unitOf, palette }) {
  const { left, right } = MARGIN;
  const w = width - left - right;
  const stroke = palette?.grid;
  const muted = palette?.muted;
  for (const p of panels) {
    for (const t of p.scale.ticks) {
      const y = p.top + p.h - t.at * p.h;
      g.append(svgEl(doc, 'line', { x1: left, x2: left + w, y1: y, y2: y, class: 'tl-grid', stroke }));
      g.append(svgEl(doc, 'text', { x: left - 6, y: y + 4, 'text-anchor': 'end', class: 'tl-label', fill: muted }, unitOf(t)));
    }
    if (p.label) g.append(svgEl(doc, 'text', { x: left + 4, y: p.top + 10, class: 'tl-label tl-panel-label', fill: muted }, p.label));
  }
  const bottom = panels[panels.length - 1].top + panels[panels.length - 1].h;
  for (const t of timeTicks(range[0], range[1], Math.max(2, Math.floor(w / 90)))) {
    const x = left + ((t.t - range[0]) / (range[1] - range[0])) * w;
    g.append(svgEl(doc, 'line', { x1: x, x2: x, y1: bottom, y2: bottom + 4, class: 'tl-grid', stroke }));
    g.append(svgEl(doc, 'text', { x, y: height - 6, 'text-anchor': x > width - 30 ? 'end' : 'middle', class: 'tl-label', fill: muted }, t.label));
  }
  svg.append(g);
}

function marksLayer(doc, marks, x, { top, height, palette, range }) {
  const g = svgEl(doc, 'g', { class: 'tl-marks' });
  for (const m of marks.filter((k) => k.t_ms >= range[0] && k.t_ms <= range[1])) {
    const mx = x(m.t_ms);
    const mark = svgEl(doc, 'g', { class: `tl-mark tl-mark-${m.kind}`, 'data-t': m.t_ms });
    mark.append(svgEl(doc, 'title', {}, m.text));
    mark.append(svgEl(doc, 'line', { x1: mx, x2: mx, y1: top - 2, y2: height - MARGIN.bottom, stroke: palette?.text, 'stroke-dasharray': '3 3' }));
    mark.append(svgEl(doc, 'text', { x: mx, y: top - 6, 'text-anchor': 'middle', class: 'tl-glyph', fill: palette?.text }, MARK_GLYPH[m.kind] ?? '•'));
    g.append(mark);
  }
  return g;
}

function pointsText(pts) {
  return pts.map(([a, b]) => `${a.toFixed(1)},${b.toFixed(1)}`).join(' ');
}

/** A stack (timeline/shared/series.js layers()): each layer an area on the ones below. */
function stackShapes(doc, stack, bx, y, part, palette) {
  const g = svgEl(doc, 'g', { class: 'tl-bands' });
  const buckets = part.n;
  let lower = new Float64Array(buckets);
  for (const layer of stack) {
    const values = part.of(layer.values);
    const band = svgEl(doc, 'polygon', { points: pointsText(bandPoints(lower, values, bx, y)), class: `tl-band ${layerClass(layer)}`, fill: fillOf(layer, palette), stroke: palette?.bg, 'stroke-width': palette ? 0.5 : null, 'data-layer': layer.key });
    band.append(svgEl(doc, 'title', {}, layer.label));
    g.append(band);
    const next = new Float64Array(buckets);
    for (let k = 0; k < buckets; k++) next[k] = lower[k] + values[k];
    lower = next;
  }
  return g;
}

/**
 * Lines (timeline/shared/series.js lines()): the rest's middle band and mean, a line per member
 * (heights by `y`), and the idle work as an area in its own panel below (heights by `yIdle`).
 */
function lineShapes(doc, view, bx, y, yIdle, part, palette) {
  const g = svgEl(doc, 'g', { class: 'tl-lines' });
  const buckets = part.n;
  const area = (layer, lower, upper, yOf, extra = {}) => {
    const lo = part.of(lower);
    const hi = part.of(upper);
    const height = new Float64Array(buckets);
    for (let k = 0; k < buckets; k++) height[k] = hi[k] - lo[k];
    const shape = svgEl(doc, 'polygon', { points: pointsText(bandPoints(lo, height, bx, yOf)), class: `tl-band ${layerClass(layer)}`, fill: fillOf(layer, palette), 'data-layer': layer.key, ...extra });
    shape.append(svgEl(doc, 'title', {}, layer.label));
    return shape;
  };
  const line = (layer, values, cls, extra = {}) => {
    const shape = svgEl(doc, 'polyline', { points: pointsText(stepPoints(part.of(values), bx, y)), class: `tl-line ${cls}`, fill: 'none', stroke: palette ? (layer.kind === 'member' ? fillOf(layer, palette) : palette.muted) : null, 'data-layer': layer.key, ...extra });
    shape.append(svgEl(doc, 'title', {}, layer.label));
    return shape;
  };
  g.append(area(view.idle, new Float64Array(view.idle.values.length), view.idle.values, yIdle, { 'fill-opacity': palette ? 0.8 : null }));
  if (view.rest) {
    g.append(area(view.rest, view.rest.lo, view.rest.hi, y, { 'fill-opacity': palette ? 0.45 : null }));
    g.append(line(view.rest, view.rest.mean, 'tl-rest-mean', { 'stroke-dasharray': palette ? '4 3' : null }));
  }
  for (const l of view.lines) g.append(line(l, l.values, layerClass(l), { 'stroke-width': palette ? 1.75 : null }));
  return g;
}

/**
 * The chart of one run. { model, view (a stack: layers(), or lines()), metric (load | lanes),
 * width, height, endMs, max and idleMax (shared scales, so two runs compare; idleMax: the idle
 * panel's, with lines), range ([from, to] ms of
 * the run shown; the whole run by default), title (the accessible
 * name), palette (explicit colours, for exports), unitOf(tick) (a value tick's label), doc (the
 * document to create nodes in) }. Returns { svg, x(t), t(px), cursor(t) }.
 */
export function timelineSvg({ model, view, metric = 'load', width, height, endMs = model.endMs, range = [0, endMs], max, idleMax = 0, title, palette = null, unitOf, doc = document }) {
  const { left, right, top, bottom } = MARGIN;
  const w = Math.max(10, width - left - right);
  const h = Math.max(10, height - top - bottom);
  const lined = !Array.isArray(view);
  // lines: the members above, the idle work in its own panel below (its scale is its own)
  const main = { top, h: lined ? Math.round(h * 0.68) : h, scale: valueScale(max, metric) };
  const idle = lined ? { top: top + main.h + 16, h: h - main.h - 16, scale: valueScale(Math.max(1, idleMax), metric, 2), label: 'idle' } : null;
  const svg = svgEl(doc, 'svg', { xmlns: NS, width, height, viewBox: `0 0 ${width} ${height}`, role: 'img', class: 'tl-svg', 'font-family': palette ? 'system-ui, sans-serif' : null, 'font-size': palette ? 11 : null });
  svg.append(svgEl(doc, 'title', {}, title));
  if (palette) svg.append(svgEl(doc, 'rect', { x: 0, y: 0, width, height, fill: palette.bg }));
  const [from, to] = range;
  const x = (t) => left + ((t - from) / (to - from)) * w;
  // the buckets the range shows, each clipped to it
  const k0 = Math.min(model.buckets - 1, Math.floor(from / model.stepMs));
  const k1 = Math.max(k0 + 1, Math.min(model.buckets, Math.ceil(to / model.stepMs)));
  const part = { n: k1 - k0, of: (values) => values.subarray(k0, k1) };
  const bx = (k) => x(Math.max(from, Math.min(to, model.endMs, (k0 + k) * model.stepMs)));
  const heightIn = (p) => (v) => p.top + p.h - (v / p.scale.end) * p.h;
  axes(doc, svg, svgEl(doc, 'g', { class: 'tl-axes', 'aria-hidden': 'true' }), { width, height, range, panels: lined ? [main, idle] : [main], unitOf, palette });
  svg.append(lined ? lineShapes(doc, view, bx, heightIn(main), heightIn(idle), part, palette) : stackShapes(doc, view, bx, heightIn(main), part, palette));
  svg.append(marksLayer(doc, model.marks, x, { top, height, palette, range }));
  const cursor = svgEl(doc, 'line', { class: 'tl-cursor', y1: top - 2, y2: top + h, x1: left, x2: left, visibility: 'hidden' });
  svg.append(cursor);
  return {
    svg,
    x,
    t: (px) => Math.max(from, Math.min(to, from + ((px - left) / w) * (to - from))),
    cursor(t) {
      if (t === null || t < from || t > to) { cursor.setAttribute('visibility', 'hidden'); return; }
      const cx = x(t).toFixed(1);
      cursor.setAttribute('x1', cx);
      cursor.setAttribute('x2', cx);
      cursor.setAttribute('visibility', 'visible');
    },
  };
}
