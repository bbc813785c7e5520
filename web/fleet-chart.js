// The fleet chart: one row per member, its weight load now and after the plan, the fleet mean,
// and lanes used against its cap. Plain SVG, so it exports as SVG and PNG as drawn. Names are
// SVG text nodes (textContent), never markup.
import { humanBytes } from './format.js';

const NS = 'http://www.w3.org/2000/svg';
const ROW = 16;
const LEFT = 170;
const RIGHT = 190;
const TOP = 28;

function svgEl(tag, attrs = {}, text) {
  const e = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = String(text);
  return e;
}

function clip(name, max = 26) {
  return name.length > max ? `${name.slice(0, max - 1)}…` : name;
}

/**
 * Draws `members` (from the plan view) into a new <svg>. `order`: 'name' (the core's order) or
 * 'load' (planned load, heaviest first). `width` in px.
 */
export function fleetChart(members, { order = 'name', width = 900, title = '' } = {}) {
  const rows = order === 'load'
    ? members.slice().sort((a, b) => b.loadPlannedApprox - a.loadPlannedApprox)
    : members;
  const height = TOP + rows.length * ROW + 30;
  const svg = svgEl('svg', { xmlns: NS, width, height, viewBox: `0 0 ${width} ${height}`, role: 'img', class: 'fleet-chart' });
  svg.append(svgEl('title', {}, title || 'Fleet: weight load per member, now and planned'));
  svg.append(svgEl('rect', { x: 0, y: 0, width, height, fill: '#ffffff' }));
  const max = Math.max(1, ...rows.map((m) => Math.max(m.loadNowApprox, m.loadPlannedApprox)));
  const plotW = width - LEFT - RIGHT;
  const x = (v) => LEFT + (v / max) * plotW;
  const total = rows.reduce((t, m) => t + m.loadPlannedApprox, 0);
  const mean = rows.length ? total / rows.length : 0;

  // legend
  const legend = svgEl('g', { 'font-size': 11, 'font-family': 'system-ui, sans-serif', fill: '#1d2430' });
  legend.append(svgEl('rect', { x: LEFT, y: 8, width: 12, height: 8, fill: '#c9d3e6' }), svgEl('text', { x: LEFT + 16, y: 16 }, 'now'));
  legend.append(svgEl('rect', { x: LEFT + 60, y: 8, width: 12, height: 8, fill: '#3b6fd8' }), svgEl('text', { x: LEFT + 76, y: 16 }, 'planned'));
  legend.append(svgEl('line', { x1: LEFT + 140, x2: LEFT + 152, y1: 12, y2: 12, stroke: '#d8823b', 'stroke-width': 2 }),
    svgEl('text', { x: LEFT + 156, y: 16 }, `fleet mean ${humanBytes(mean)}`));
  legend.append(svgEl('text', { x: width - RIGHT + 8, y: 16 }, 'lanes used / cap'));
  svg.append(legend);

  // Bars are drawn as three paths (now, planned, planned at full lanes): a thousand members
  // stay a light drawing. Each member's labels and tooltip are its own group.
  const bar = (x0, y, w, h) => `M${x0} ${y}h${w.toFixed(1)}v${h}h${(-w).toFixed(1)}z`;
  let now = '';
  let planned = '';
  let full = '';
  const g = svgEl('g', { 'font-size': 11, 'font-family': 'system-ui, sans-serif' });
  rows.forEach((m, i) => {
    const y = TOP + i * ROW;
    const isFull = m.lanes >= m.cap;
    now += bar(LEFT, y + 1, Math.max(0, x(m.loadNowApprox) - LEFT), 6);
    const p = bar(LEFT, y + 7, Math.max(0, x(m.loadPlannedApprox) - LEFT), 7);
    if (isFull) full += p; else planned += p;
    const row = svgEl('g', { 'data-member': m.name });
    row.append(svgEl('title', {}, `${m.name}: now ${humanBytes(m.loadNow)}, planned ${humanBytes(m.loadPlanned)}, lanes ${m.lanes}/${m.cap}${m.defaultCap ? ' (default cap)' : ''}, +${m.gained} −${m.lost}`));
    row.append(svgEl('text', { x: LEFT - 6, y: y + 11, 'text-anchor': 'end', fill: '#1d2430' }, clip(m.name)));
    row.append(svgEl('text', { x: width - RIGHT + 8, y: y + 11, fill: isFull ? '#b5482f' : '#1d2430' },
      `${m.lanes}/${m.cap}${m.defaultCap ? '*' : ''}  ${humanBytes(m.loadPlanned)}`));
    g.append(row);
  });
  svg.append(svgEl('path', { d: now || 'M0 0', fill: '#c9d3e6', class: 'bars-now' }));
  svg.append(svgEl('path', { d: planned || 'M0 0', fill: '#3b6fd8', class: 'bars-planned' }));
  svg.append(svgEl('path', { d: full || 'M0 0', fill: '#b5482f', class: 'bars-full' }));
  svg.append(g);
  if (rows.length) {
    const mx = x(mean);
    svg.append(svgEl('line', { x1: mx, x2: mx, y1: TOP - 4, y2: TOP + rows.length * ROW, stroke: '#d8823b', 'stroke-width': 1.5, 'stroke-dasharray': '4 3' }));
  }
  svg.append(svgEl('text', { x: LEFT, y: height - 10, 'font-size': 10, 'font-family': 'system-ui, sans-serif', fill: '#5a6473' },
    `scale: 0 – ${humanBytes(max)}; red: every lane used; * default cap`));
  return svg;
}

/** A small line chart of convergence rounds: moves per round and max/mean load. */
export function roundsChart(rounds, { width = 420, height = 160 } = {}) {
  const svg = svgEl('svg', { xmlns: NS, width, height, viewBox: `0 0 ${width} ${height}`, role: 'img', class: 'rounds-chart' });
  svg.append(svgEl('title', {}, 'Convergence: splits moved per round, and max/mean load'));
  svg.append(svgEl('rect', { x: 0, y: 0, width, height, fill: '#ffffff' }));
  const L = 40; const R = 40; const T = 16; const B = 24;
  const n = Math.max(1, rounds.length - 1);
  const maxMoves = Math.max(1, ...rounds.map((r) => r.moves));
  const maxRatio = Math.max(1.0001, ...rounds.map((r) => r.maxOverMean || 1));
  const px = (i) => L + (i / n) * (width - L - R);
  const pyM = (v) => height - B - (v / maxMoves) * (height - T - B);
  const pyR = (v) => height - B - ((v - 1) / (maxRatio - 1)) * (height - T - B);
  const line = (pts, color) => svgEl('polyline', { points: pts.map(([a, b]) => `${a.toFixed(1)},${b.toFixed(1)}`).join(' '), fill: 'none', stroke: color, 'stroke-width': 2 });
  svg.append(line(rounds.map((r, i) => [px(i), pyM(r.moves)]), '#3b6fd8'));
  svg.append(line(rounds.map((r, i) => [px(i), pyR(r.maxOverMean || 1)]), '#d8823b'));
  const t = (x, y, s, color = '#1d2430', anchor = 'start') => svgEl('text', { x, y, fill: color, 'font-size': 10, 'font-family': 'system-ui, sans-serif', 'text-anchor': anchor }, s);
  svg.append(t(4, T + 4, `${maxMoves}`, '#3b6fd8'), t(4, height - B, '0', '#3b6fd8'));
  svg.append(t(width - 4, T + 4, maxRatio.toFixed(3), '#d8823b', 'end'), t(width - 4, height - B, '1.000', '#d8823b', 'end'));
  svg.append(t(L, height - 6, 'round 1'), t(width - R, height - 6, `round ${rounds.length}`, '#1d2430', 'end'));
  svg.append(t(L + 60, T - 4, 'moves', '#3b6fd8'), t(L + 110, T - 4, 'max/mean load', '#d8823b'));
  return svg;
}

/** SVG text of a chart (for download). */
export function svgText(svg) {
  return new XMLSerializer().serializeToString(svg);
}

/** PNG bytes of a chart, drawn through a canvas at `scale`. */
export async function svgToPng(svg, scale = 2) {
  const w = Number(svg.getAttribute('width'));
  const h = Number(svg.getAttribute('height'));
  const url = URL.createObjectURL(new Blob([svgText(svg)], { type: 'image/svg+xml' }));
  try {
    const img = new Image();
    img.src = url;
    await img.decode();
    const canvas = document.createElement('canvas');
    canvas.width = w * scale;
    canvas.height = h * scale;
    const ctx = canvas.getContext('2d');
    ctx.scale(scale, scale);
    ctx.drawImage(img, 0, 0);
    return await new Promise((resolve) => canvas.toBlob(resolve, 'image/png'));
  } finally {
    URL.revokeObjectURL(url);
  }
}
