// The Timeline's charts: per configuration, each member's running load (or lanes) over time —
// the members the script touches and those that change most one by one, the rest folded (its
// range and mean as lines, or one band when stacked) — with the idle work as an area and the
// events as marks; A and B share their scales. Lines once the rest is folded, stacked areas
// while every member fits (the person can switch). Click or drag on a chart to move the
// scrubber. Redrawn when the element's width changes.
import { el, select, field, setOptions } from '../../common/page/dom.js';
import { html, render, repeat, nothing } from '../../common/page/lit.js';
import { chartViews, viewMax, idleMax, defaultMode, legendLayers, eventWindow } from '../shared/series.js';
import { timelineSvg, layerClass } from './svg.js';
import { MARK_GLYPH } from '../shared/marks.js';
import { humanBytes } from '../../common/shared/format.js';
import { clock } from '../shared/script.js';

const METRICS = [['load', 'load (bytes held)'], ['lanes', 'lanes (splits held)']];
const MODES = [['lines', 'lines per member'], ['stack', 'stacked areas']];

function legendOf(view, mode) {
  const item = (layer) => {
    const line = mode === 'lines' && layer.kind !== 'idle' ? ' line' : '';
    return html`<li><span class=${`key tl-key ${layerClass(layer)}${line}`} aria-hidden="true"></span><span>${layer.label}</span></li>`;
  };
  return html`<ul class="legend tl-legend" aria-label="chart legend">${repeat(legendLayers(view), (l) => `${l.kind}:${l.key}`, item)}</ul>`;
}

function marksList(model) {
  const item = (m) => html`<li class=${`tl-mark-${m.kind}`} data-t=${m.t_ms}><span class="tl-glyph" aria-hidden="true">${MARK_GLYPH[m.kind] ?? '•'}</span><span> ${m.text}</span></li>`;
  return html`<ul class="tl-mark-list" aria-label="events on the chart">${model.marks.map(item)}</ul>`;
}

/** A run's chart: its caption, its SVG (a node drawn anew) and its marks, kept by configuration. */
function figureOf(d) {
  return html`<figure class="tl-chart" data-config=${d.which}><figcaption>${d.title}</figcaption>${d.chart.svg}${marksList(d.model)}</figure>`;
}

/** onScrub(t): a click or drag on a chart asks for time t (ms); onError(e): drawing failed. */
export function createTimelineCharts({ onScrub, onError }) {
  const node = el('div', undefined, 'tl-charts');
  const metric = select(METRICS, 'Show on the chart');
  const mode = select(MODES, 'Draw as');
  const span = select([['all', 'the whole run']], 'Time shown');
  const tools = el('div', undefined, 'chart-tools');
  const legend = el('div');
  tools.append(field('Show', metric, 'inline-field'), field('as', mode, 'inline-field'), field('over', span, 'inline-field'), legend);
  const list = el('div', undefined, 'tl-chart-list');
  node.append(tools, list);
  let runs = null;
  let drawn = [];
  let width = 0;
  let cursorAt = null;
  let modeChosen = false;
  let spanChosen = false;
  let around = null;

  function pointer(svg, chart) {
    const at = (ev) => {
      const r = svg.getBoundingClientRect();
      const px = (ev.clientX - r.left) * (Number(svg.getAttribute('width')) / r.width);
      onScrub(chart.t(px));
    };
    svg.addEventListener('pointerdown', (ev) => { svg.setPointerCapture(ev.pointerId); at(ev); });
    svg.addEventListener('pointermove', (ev) => { if (ev.buttons & 1) at(ev); });
  }

  function draw() {
    if (!runs || !width) return;
    try {
      drawRuns();
    } catch (e) {
      render(nothing, list);
      onError(e);
    }
  }

  function drawRuns() {
    const m = metric.value;
    if (!modeChosen) mode.value = defaultMode(runs[0].model);
    const views = chartViews(runs.map((r) => r.model), m, mode.value);
    const endMs = Math.max(...runs.map((r) => r.model.endMs));
    const max = Math.max(1, ...views.map(viewMax));
    const idleTop = Math.max(1, ...views.map(idleMax));
    const height = Math.round(Math.min(340, Math.max(180, width * 0.22)));
    const range = span.value === 'events' && around ? around : [0, endMs];
    const unitOf = m === 'load' ? (t) => humanBytes(BigInt(Math.round(t.value))) : (t) => t.label;
    drawn = runs.map((r, i) => {
      const chart = timelineSvg({ model: r.model, view: views[i], metric: m, width, height, endMs, range, max, idleMax: idleTop, unitOf, title: `${r.title}: ${m === 'load' ? 'load' : 'lanes'} of each member over time, and the idle work` });
      pointer(chart.svg, chart);
      return { which: r.which, title: r.title, model: r.model, chart };
    });
    render(repeat(drawn, (d) => d.which, figureOf), list);
    render(legendOf(views[0], mode.value), legend);
    for (const d of drawn) d.chart.cursor(cursorAt);
  }

  metric.addEventListener('change', draw);
  mode.addEventListener('change', () => { modeChosen = true; draw(); });
  span.addEventListener('change', () => { spanChosen = true; draw(); });
  const resize = new ResizeObserver(([entry]) => {
    const next = Math.floor(entry.contentRect.width);
    if (next > 0 && Math.abs(next - width) >= 8) { width = next; draw(); }
  });
  resize.observe(node);

  return {
    node,
    /** Shows runs: [{ which, title, model }] (A first); offers the stretch where things happen. */
    show(next) {
      runs = next;
      around = eventWindow(runs.map((r) => r.model));
      const options = [['all', 'the whole run'], ...(around ? [['events', `where things happen (${clock(around[0])}–${clock(around[1])})`]] : [])];
      const keep = span.value;
      setOptions(span, options);
      span.value = spanChosen && options.some(([v]) => v === keep) ? keep : around ? 'events' : 'all';
      draw();
    },
    cursor(t) { cursorAt = t; for (const d of drawn) d.chart.cursor(t); },
    redraw() { draw(); },
    destroy() { resize.disconnect(); },
  };
}
