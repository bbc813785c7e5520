// The fleet chart as a stand-alone SVG document (the SVG and PNG exports): a title, the job,
// the snapshot and the scenario on top, then every member as the page draws it, in the colours
// of the theme shown. Names are SVG text nodes (textContent), never markup.
import { humanBytes } from '../../common/shared/format.js';
import { chartModel, describeMember } from '../shared/chart-model.js';
import { OVER } from '../../common/shared/summary.js';

const NS = 'http://www.w3.org/2000/svg';
const ROW = 20;
const LEFT = 190;
const RIGHT = 200;

function svgEl(tag, attrs = {}, text) {
  const e = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = String(text);
  return e;
}

function clip(name, max = 28) {
  return name.length > max ? `${name.slice(0, max - 1)}…` : name;
}

/** The colours of the theme shown, read from the element's custom properties. */
export function paletteOf(host) {
  const cs = getComputedStyle(host);
  const get = (name, fallback) => cs.getPropertyValue(name).trim() || fallback;
  return {
    bg: get('--panel', '#ffffff'), text: get('--text', '#1a2230'), muted: get('--muted', '#4d5868'),
    now: get('--now', '#5d6b7e'), planned: get('--planned', '#2456c8'), over: get('--over', '#c2410c'),
    mean: get('--mean', '#1a2230'), grid: get('--grid', '#d5dae1'),
  };
}

function bars(g, y, r, model, p, x0, w) {
  const meanAt = model.at(model.mean);
  for (const [key, top, h] of [['now', y + 2, 5], ['planned', y + 8, 9]]) {
    const end = model.at(r[key]);
    const cut = Math.min(end, meanAt);
    const over = Number(r[key]) > model.mean * OVER;
    g.append(svgEl('rect', { x: x0, y: top, width: ((over ? cut : end) * w).toFixed(1), height: h, fill: p[key] }));
    if (over) g.append(svgEl('rect', { x: (x0 + meanAt * w + 1).toFixed(1), y: top, width: Math.max(0, (end - meanAt) * w - 1).toFixed(1), height: h, fill: p.over }));
  }
}

/** An SVG element of the whole fleet: { rows, order, title, lines (job, snapshot, scenario), palette, width }. */
export function chartSvg({ rows, order, title, lines, palette: p, width = 1000 }) {
  const model = chartModel(rows, { order, all: true, tickCount: 6 });
  const head = 28 + lines.length * 16 + 34;
  const height = head + model.rows.length * ROW + 24;
  const w = width - LEFT - RIGHT;
  const svg = svgEl('svg', { xmlns: NS, width, height, viewBox: `0 0 ${width} ${height}`, role: 'img', 'font-family': 'system-ui, sans-serif', 'font-size': 12 });
  svg.append(svgEl('title', {}, `${title}. ${lines.join('. ')}`));
  svg.append(svgEl('rect', { x: 0, y: 0, width, height, fill: p.bg }));
  svg.append(svgEl('text', { x: 12, y: 22, 'font-size': 16, 'font-weight': 600, fill: p.text }, title));
  lines.forEach((l, i) => svg.append(svgEl('text', { x: 12, y: 42 + i * 16, fill: p.muted }, l)));
  const axisY = head - 10;
  for (const t of model.ticks) {
    const x = LEFT + t.at * w;
    svg.append(svgEl('line', { x1: x, x2: x, y1: axisY + 4, y2: height - 20, stroke: p.grid }));
    svg.append(svgEl('text', { x, y: axisY, 'text-anchor': 'middle', fill: p.muted }, t.label));
  }
  const g = svgEl('g');
  model.rows.forEach((r, i) => {
    const y = head + i * ROW;
    const d = describeMember(r, model.mean);
    const row = svgEl('g', { 'data-member': r.name });
    row.append(svgEl('title', {}, d.short));
    row.append(svgEl('text', { x: LEFT - 8, y: y + 14, 'text-anchor': 'end', fill: p.text }, clip(r.name)));
    bars(row, y, r, model, p, LEFT, w);
    row.append(svgEl('text', { x: width - RIGHT + 10, y: y + 14, fill: p.text, 'font-weight': d.full ? 700 : 400 },
      `${r.lanes}/${r.cap}${r.defaultCap ? '*' : ''}${d.full ? ' full' : ''}  ${humanBytes(r.planned)}`));
    g.append(row);
  });
  svg.append(g);
  const mx = LEFT + model.at(model.mean) * w;
  svg.append(svgEl('line', { x1: mx, x2: mx, y1: head - 4, y2: height - 20, stroke: p.mean, 'stroke-width': 1.5, 'stroke-dasharray': '5 3' }));
  svg.append(svgEl('text', { x: LEFT, y: height - 6, fill: p.muted },
    `thin bar: now; thick bar: planned; past the dashed line (fleet mean ${humanBytes(model.meanBig)}): more than 5% over the mean; full: every lane used; * default cap`));
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
    return await new Promise((resolve, reject) => canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('the browser could not encode the PNG'))), 'image/png'));
  } finally {
    URL.revokeObjectURL(url);
  }
}
