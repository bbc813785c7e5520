// The Live tab: what happened since the page was opened (members joined and left, caps and the
// leader changed, splits claimed, completed and quarantined, assignments published, the
// connection's news), each row with its time; the plan's figures over time; and the plan as it
// was at the moment picked on the chart (a bounded history of plan views). For a replayed
// recording: the same over the whole recorded time, and the moment shown (which the whole page
// shows: a pick on the chart moves the replay there).
import { el, scrollArea } from '../../common/page/dom.js';
import { html, render, nothing, repeat } from '../../common/page/lit.js';
import { changed } from '../../common/page/store.js';
import { clock, viewAt, instant, happenedAt } from '../shared/state.js';
import { figureRows } from '../../plan/shared/figures.js';
import { memberRows } from '../../plan/shared/chart-model.js';
import { sortRows } from '../../common/shared/sort.js';
import { humanBytes, thousands, plural } from '../../common/shared/format.js';
import { createLiveChart } from './chart.js';

const KIND = {
  joined: 'joined', left: 'left', cap: 'cap', leader: 'leader', plan: 'plan', claimed: 'claimed',
  completed: 'completed', quarantined: 'quarantined', published: 'published', resync: 'resync', status: 'connection',
};

/** The timeline's rows, newest on top, each kept by its id (a row shown stays the same element). */
function eventRows(rows) {
  return repeat(rows, (r) => r.id, (r) => html`<li class="event" data-kind=${r.kind} data-row=${r.id}><time datetime=${new Date(r.at).toISOString()}>${clock(r.at)}</time><span
    class="kind">${KIND[r.kind] || r.kind}</span><span class="what">${r.text}</span></li>`);
}

function figuresTable(view) {
  return html`<table class="figures-table"><tbody>${figureRows(view).map(([k, v, exact]) => html`<tr data-figure=${k}><th scope="row">${k}</th><td
    title=${exact || nothing}>${v}</td></tr>`)}</tbody></table>`;
}

/** The heaviest members of a plan view (load now), with their planned load and lanes. */
function heaviest(view, n = 8) {
  const rows = sortRows(memberRows(view), 'now').slice(0, n);
  return html`<table class="data"><caption class="visually-hidden">the ${n} heaviest members then</caption><thead><tr>${
    ['member', 'load now', 'planned', 'lanes'].map((h) => html`<th scope="col">${h}</th>`)}</tr></thead><tbody>${
    rows.map((r) => html`<tr><td title=${r.name.length > 20 ? r.name : nothing}>${r.name}</td><td>${humanBytes(r.now)}</td><td>${humanBytes(r.planned)}</td><td>${r.lanes}/${r.cap}</td></tr>`)}</tbody></table>`;
}

/** A plan's figures and heaviest members, in scroll areas a keyboard reaches (kept while frames come). */
function planTables(view, when) {
  return html`<div class="scroll" tabindex="0" role="region" aria-label=${`the plan's figures at ${when}`}>${figuresTable(view)}</div><h4>Heaviest members then</h4><div
    class="scroll" tabindex="0" role="region" aria-label=${`the heaviest members at ${when}`}>${heaviest(view)}</div>`;
}

/** The plan at the moment picked: when, what happened then, its figures and heaviest members. */
function thenPanel(live) {
  const points = live.points;
  const point = live.selected === null ? points[points.length - 1] : points.find((p) => p.id === live.selected);
  if (!point) return html`<p class="hint">No plan yet.</p>`;
  const view = viewAt(live, point.id);
  const newest = live.selected === null;
  return html`<h3>${newest ? 'The newest plan' : 'The plan'} at ${clock(point.at)} UTC, revisions ${point.revisions}</h3><p class="hint">${happenedAt(live, point.id)}</p>${
    view ? planTables(view, clock(point.at)) : html`<p class="hint">This moment's plan is no longer kept (the last ${live.history.length} are).</p>`}`;
}

/** A replay's moment: when, what happened since the moment shown before, the plan's figures and heaviest members then. */
function momentPanel(live, view) {
  const r = live.replay;
  const since = live.sinceRows.map((x) => x.text);
  return html`<h3>The plan at ${instant(live.at)}, revisions ${live.revisions} (moment ${thousands(live.moment + 1)} of ${thousands(r.moments)}, line ${thousands(live.line)})</h3><p
    class="hint">${since.length ? `Since the moment shown before: ${since.join('; ')}.` : 'Nothing changed since the moment shown before.'}</p>${view ? planTables(view, instant(live.at)) : nothing}`;
}

export function createLive(ctx) {
  const { controller } = ctx;
  const node = el('div', undefined, 'live');
  const intro = el('p', '', 'hint');
  const chart = createLiveChart((id) => controller.live?.select(id));
  const then = el('div', undefined, 'live-then');
  const list = el('ul', undefined, 'live-events');
  const area = scrollArea('what happened since the page was opened', 'scroll live-events-scroll');
  area.append(list);
  const heads = { figures: el('h3', "The plan's figures since the page was opened"), events: el('h3', 'What happened') };
  const charts = el('div', undefined, 'live-figures');
  charts.append(heads.figures, chart.node, then);
  const events = el('div', undefined, 'live-events');
  const dropped = el('p', '', 'hint live-dropped');
  events.append(heads.events, area, dropped);
  node.append(intro, charts, events);
  let shownThen = null;

  /** The timeline's rows, and how many older ones are no longer kept. */
  function showRows(live) {
    render(eventRows(live.rows), list);
    dropped.hidden = !live.rowsDropped;
    dropped.textContent = live.rowsDropped ? `${thousands(live.rowsDropped)} older events are no longer kept: the newest ${thousands(live.rows.length)} are shown.` : '';
  }

  /** A replayed recording: the chart and timeline of the whole recorded time, and the moment shown. */
  function replayUpdate(state, prev) {
    const live = state.live;
    const r = live.replay;
    heads.figures.textContent = "The plan's figures over the recorded time";
    heads.events.textContent = 'What happened in the recording';
    const from = r.server ? ` from ${r.server}` : '';
    intro.textContent = `Job ${live.job}, replayed from the recording ${r.name}${from}: ${plural(r.moments, 'moment')} (${plural(r.steps.length, 'change')} worth stepping to; lease renewals folded), ${instant(r.startMs)} to ${instant(r.endMs)}. Pick a moment on the chart, or a change with the slider above, to see the job as it was then; the whole page shows it.`;
    if (!prev?.live || prev.live.rows !== live.rows) showRows(live);
    chart.update(live);
    if (prev?.live !== live || prev?.result !== state.result) {
      const result = state.result;
      render(momentPanel(live, result ? result.baseline ?? result.view : null), then);
      shownThen = null;
    }
  }

  return {
    node,
    visible: (state) => Boolean(state.live && !state.live.jobs),
    update(state, prev) {
      if (!state.live || (!changed(prev, state, 'live') && !(state.live.replay && changed(prev, state, 'result')))) return;
      const live = state.live;
      if (live.replay) {
        replayUpdate(state, prev);
        return;
      }
      heads.figures.textContent = "The plan's figures since the page was opened";
      heads.events.textContent = 'What happened';
      intro.textContent = `Job ${live.job}, followed live since the page was opened. Pick a moment on the chart to see the plan as it was then.`;
      if (!prev?.live || prev.live.rows !== live.rows) showRows(live);
      chart.update(live);
      if (!shownThen || shownThen.selected !== live.selected || (live.selected === null && shownThen.points !== live.points)) {
        render(thenPanel(live), then);
        shownThen = live;
      }
    },
  };
}
