// The Timeline's part of the Markdown report: runs the script if its run is not there yet, draws
// each configuration's chart as a small stand-alone SVG in the colours of the theme shown, and
// asks the simulator to write the section (`timelineSection`).
import { hasTimeline, configNames } from '../shared/script.js';
import { chartViews, viewMax, idleMax, defaultMode, eventWindow } from '../shared/series.js';
import { timelineSvg } from './svg.js';
import { sectionInput } from '../shared/report.js';
import { humanBytes } from '../../common/shared/format.js';

/** The theme's colours for a stand-alone chart. */
export function timelinePalette(host) {
  const cs = getComputedStyle(host);
  const get = (name, fallback) => cs.getPropertyValue(name).trim() || fallback;
  return {
    bg: get('--panel', '#ffffff'), text: get('--text', '#1a2230'), muted: get('--muted', '#4d5868'), grid: get('--grid', '#c3c9d2'),
    rest: get('--tl-rest', '#8a94a3'), idle: get('--tl-idle', '#dc2626'),
    members: [0, 1, 2, 3, 4, 5, 6, 7].map((i) => get(`--tl-${i}`, '#2456c8')),
  };
}

/** SVG texts of the run's charts: [{ which, svg }], A and B on the same scales. */
export function timelineImages(run, timeline, host, width = 720, height = 200) {
  const names = configNames(timeline);
  const runs = [['A', run.a], ...(run.b ? [['B', run.b]] : [])];
  const views = chartViews(runs.map(([, m]) => m), 'load', defaultMode(run.a));
  const endMs = Math.max(...runs.map(([, m]) => m.endMs));
  const range = eventWindow(runs.map(([, m]) => m)) ?? [0, endMs];
  const max = Math.max(1, ...views.map(viewMax));
  const idleTop = Math.max(1, ...views.map(idleMax));
  const palette = timelinePalette(host);
  const unitOf = (t) => humanBytes(BigInt(Math.round(t.value)));
  return runs.map(([which, model], i) => {
    const { svg } = timelineSvg({ model, view: views[i], width, height, endMs, range, max, idleMax: idleTop, palette, unitOf, title: `${names[which]}: load of each member over time, and the idle work` });
    return { which, range, svg: new XMLSerializer().serializeToString(svg) };
  });
}

/** The report's Timeline section and its charts ({ markdown, images: [{ name, svg }] }), or null when the Timeline holds nothing. */
export async function timelineMarkdown(controller, host) {
  const state = controller.state;
  if (!hasTimeline(state.timeline)) return null;
  const run = await controller.timeline.request();
  const now = controller.state;
  const images = run?.status === 'done' ? timelineImages(run, run.timeline, host) : [];
  const input = sectionInput({ timeline: run?.timeline ?? now.timeline, run, images });
  return controller.ask('timelineSection', { input });
}
