// Timeline: when things happen. Pick events (crash, graceful stop, start, crash the leader, a
// rolling restart) and the configuration (and a second one to compare), and the timing
// simulator runs them on the snapshot shown, in the worker: the headline figures side by side,
// each member's load over time with the idle work, the events as marks, and a scrubber showing
// the fleet at any second. The script lives in the store (so in the link and the report); the
// run is made by timeline/page/runner.js when this tab is looked at.
import { el, scrollArea } from '../../common/page/dom.js';
import { html, render, nothing } from '../../common/page/lit.js';
import { changed } from '../../common/page/store.js';
import { statusLine } from '../../common/page/announce.js';
import { runKey } from './runner.js';
import { configNames, duration, clock, effective } from '../shared/script.js';
import { thousands } from '../../common/shared/format.js';
import { createTimelineEvents } from './events.js';
import { createTimelineConfig } from './config.js';
import { createScriptBox } from './json.js';
import { figuresTable, recoveryNotes, rulesLine } from './figures.js';
import { createTimelineCharts } from './chart.js';
import { createTimelineFleet } from './fleet.js';

const NAMES = { A: 'configuration A', B: 'configuration B' };

/** A failed run or drawing, said where the results would be, with a button to try again. */
function errorBox(err, retry) {
  return html`<div class="message error tl-error" role="alert" data-code=${err.code}><div class="message-body">
    <strong>${err.which ? `The simulation of ${NAMES[err.which]} failed` : 'The Timeline failed'}</strong><div>${err.message}</div>${
      err.path ? html`<div class="where">at ${err.path}</div>` : nothing}<div class="code">code: ${err.code}</div></div>
    <button type="button" @click=${retry}>${err.which ? 'Run again' : 'Try again'}</button></div>`;
}

function fleetSize(state) {
  return `${thousands(state.info.splits)} splits × ${thousands(state.info.members.length)} members`;
}

function timingText(run, state, paintMs) {
  const one = (m) => `${(m.timing.roundTripMs / 1000).toFixed(2)} s (simulation ${(m.timing.simMs / 1000).toFixed(2)} s)`;
  const parts = [`A ${one(run.a)}`];
  if (run.b) parts.push(`B ${one(run.b)}`);
  return `Simulated ${duration(run.a.endMs)} of ${fleetSize(state)} in the worker: ${parts.join(', ')}; drawn in ${Math.round(paintMs)} ms.`;
}

export function createTimeline(ctx) {
  const { controller } = ctx;
  const node = el('div', undefined, 'timeline');
  const intro = el('p', 'When things happen: the timing simulator replays heartbeats, lease expiry, the rebalance delay, elections, claims and drains on this snapshot, event by event, for the events and configuration below.', 'hint');
  const events = createTimelineEvents(ctx);
  const config = createTimelineConfig(ctx);
  const json = createScriptBox(controller);
  const setup = el('div', undefined, 'tl-setup');
  const left = el('div', undefined, 'tl-column');
  left.append(events.node, json.node);
  setup.append(left, config.node);
  const status = statusLine('hint tl-status');
  const problem = el('div', undefined, 'tl-problem');
  const results = el('div', undefined, 'tl-results');
  const figures = scrollArea('headline figures', 'scroll tl-figures-slot');
  let t = 0;
  let moved = false;
  let frame = 0;
  const apply = () => { frame = 0; charts.cursor(t); return fleet.at(t); };
  // the fleet is asked for at once (it keeps one request in flight, the newest time next); the
  // chart's cursor moves on the next frame
  const scrub = (next) => {
    t = Math.round(next / 1000) * 1000;
    moved = true;
    fleet.at(t);
    if (!frame) frame = requestAnimationFrame(() => { frame = 0; charts.cursor(t); });
  };
  const charts = createTimelineCharts({ onScrub: scrub, onError: (e) => render(errorBox({ which: null, message: `the chart could not be drawn: ${e.message}`, code: e.code || 'internal', path: '' }, () => charts.redraw()), problem) });
  const fleet = createTimelineFleet({ onScrub: scrub, ask: (runId, at, idleLimit) => controller.ask('fleetAt', { runId, t: at, idleLimit }) });
  results.append(figures, charts.node, fleet.node);
  results.hidden = true;
  node.append(intro, setup, status.node, status.region, problem, results);
  let shown = false;
  let reveal = false;
  let drawnRun = null;
  let ticker = 0;

  function busy(run, state) {
    const since = run.since;
    const until = (run.which === 'B' && run.timeline.b?.until_ms) || effective(run.timeline.script, 'until_ms', state.simDefaults);
    const text = () => `Simulating ${NAMES[run.which]}: ${duration(until)} of ${fleetSize(state)}… ${((performance.now() - since) / 1000).toFixed(1)} s`;
    status.set(text());
    clearInterval(ticker);
    ticker = setInterval(() => status.set(text()), 250);
    results.setAttribute('aria-busy', 'true');
    node.dataset.busy = 'true';
  }

  function idle() {
    clearInterval(ticker);
    results.removeAttribute('aria-busy');
    delete node.dataset.busy;
  }

  function draw(run, state) {
    const t0 = performance.now();
    const names = configNames(run.timeline);
    const runs = [{ which: 'A', title: names.A, model: run.a }, ...(run.b ? [{ which: 'B', title: names.B, model: run.b }] : [])];
    render(html`${rulesLine(run)}${figuresTable(run)}${recoveryNotes(run)}`, figures);
    charts.show(runs);
    fleet.show(runs);
    const end = Math.max(...runs.map((r) => r.model.endMs));
    if (!moved || t > end) t = run.a.mostIdleMs;
    const fleetDrawn = apply();
    results.hidden = false;
    if (reveal) {
      // asked for by the fleet chart's "crash at t = 0": the headline result, not the settings
      reveal = false;
      figures.scrollIntoView({ block: 'start' });
      figures.focus({ preventScroll: true });
    }
    const drawMs = performance.now() - t0;
    // after the next frame is painted with the fleet at the scrubber's time (the worker's
    // answer): the time from the run's arrival to pixels
    requestAnimationFrame(() => setTimeout(async () => {
      await fleetDrawn;
      const paintMs = performance.now() - t0;
      status.set(timingText(run, state, paintMs));
      node.dataset.paintMs = paintMs.toFixed(1);
      node.dataset.workerMs = ((run.a.timing.roundTripMs) + (run.b?.timing.roundTripMs ?? 0)).toFixed(1);
      node.dataset.run = String(Number(node.dataset.run || 0) + 1);
      node.dataset.drawMs = drawMs.toFixed(1);
      node.dataset.at = clock(t);
    }, 0));
  }

  function drawState(state) {
    const run = state.timelineRun;
    const current = run && run.generation === state.generation;
    if (!current) { idle(); results.hidden = true; render(nothing, problem); status.set(''); drawnRun = null; return; }
    if (run.status === 'running') { busy(run, state); render(nothing, problem); return; }
    idle();
    if (run.status === 'error') {
      results.hidden = true;
      drawnRun = null;
      status.set('');
      render(errorBox(run.error, () => { controller.setTimelineRun(null); controller.timeline.request(); }), problem);
      return;
    }
    render(nothing, problem);
    if (run !== drawnRun) { drawnRun = run; draw(run, state); }
  }

  return {
    node,
    show() { shown = true; controller.timeline.request(); },
    hide() { shown = false; },
    update(state, prev) {
      if (state.tab?.reveal && state.tab.id === 'timeline' && changed(prev, state, 'tab')) reveal = true;
      if (changed(prev, state, 'timeline', 'timelineRun', 'info')) {
        const run = state.timelineRun;
        const err = run?.status === 'error' && run.key === runKey(state) ? run.error : null;
        events.update(state, err);
        config.update(state, err);
        json.update(state.timeline);
      }
      if (changed(prev, state, 'timelineRun', 'generation')) drawState(state);
      if (shown && changed(prev, state, 'timeline', 'generation')) controller.timeline.request();
    },
    destroy() { idle(); charts.destroy(); },
  };
}
