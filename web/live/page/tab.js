// The Live tab: what happened since the page was opened (members joined and left, caps and the
// leader changed, splits claimed, completed and quarantined, assignments published, the
// connection's news), each row with its time; the plan's figures over time; and the plan as it
// was at the moment picked on the chart (a bounded history of plan views). For a replayed
// recording: the same over the whole recorded time, and the moment shown (which the whole page
// shows: a pick on the chart moves the replay there).
import { el, attrs, scrollArea, table } from '../../common/page/dom.js';
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

function rowNode(r) {
  const li = attrs(el('li', undefined, 'event'), { 'data-kind': r.kind, 'data-row': r.id });
  li.append(attrs(el('time', clock(r.at)), { datetime: new Date(r.at).toISOString() }), el('span', KIND[r.kind] || r.kind, 'kind'), el('span', r.text, 'what'));
  return li;
}

/** The timeline list, keeping the nodes of rows already shown (new rows go on top). */
function createTimeline() {
  const list = el('ul', undefined, 'live-events');
  let top = null;
  return {
    node: list,
    update(rows) {
      const at = top ? rows.indexOf(top) : -1;
      if (at < 0) list.replaceChildren(...rows.map(rowNode));
      else {
        list.prepend(...rows.slice(0, at).map(rowNode));
        while (list.children.length > rows.length) list.lastElementChild.remove();
      }
      top = rows[0] ?? null;
    },
  };
}

function figuresTable(view) {
  const t = el('table', undefined, 'figures-table');
  const body = el('tbody');
  for (const [k, v, exact] of figureRows(view)) {
    const tr = attrs(el('tr'), { 'data-figure': k });
    tr.append(attrs(el('th', k), { scope: 'row' }), attrs(el('td', v), exact ? { title: exact } : {}));
    body.append(tr);
  }
  t.append(body);
  return t;
}

/** The heaviest members of a plan view (load now), with their planned load and lanes. */
function heaviest(view, n = 8) {
  const rows = sortRows(memberRows(view), 'now').slice(0, n)
    .map((r) => [r.name, humanBytes(r.now), humanBytes(r.planned), `${r.lanes}/${r.cap}`]);
  return table(['member', 'load now', 'planned', 'lanes'], rows, 'data', `the ${n} heaviest members then`);
}

/** The plan at the moment picked: when, what happened then, its figures and heaviest members. */
function thenPanel(live) {
  const points = live.points;
  const point = live.selected === null ? points[points.length - 1] : points.find((p) => p.id === live.selected);
  if (!point) return [el('p', 'No plan yet.', 'hint')];
  const view = viewAt(live, point.id);
  const newest = live.selected === null;
  const head = el('h3', `${newest ? 'The newest plan' : 'The plan'} at ${clock(point.at)} UTC, revisions ${point.revisions}`);
  const out = [head, el('p', happenedAt(live, point.id), 'hint')];
  if (view) {
    const area = scrollArea(`the plan's figures at ${clock(point.at)}`);
    area.append(figuresTable(view));
    const members = scrollArea(`the heaviest members at ${clock(point.at)}`);
    members.append(heaviest(view));
    out.push(area, el('h4', 'Heaviest members then'), members);
  } else out.push(el('p', `This moment's plan is no longer kept (the last ${live.history.length} are).`, 'hint'));
  return out;
}

/** A replay's moment: when, what happened since the moment shown before, the plan's figures and heaviest members then. */
function momentPanel(live, view) {
  const r = live.replay;
  const head = el('h3', `The plan at ${instant(live.at)}, revisions ${live.revisions} (moment ${thousands(live.moment + 1)} of ${thousands(r.moments)}, line ${thousands(live.line)})`);
  const since = live.sinceRows.map((x) => x.text);
  const out = [head, el('p', since.length ? `Since the moment shown before: ${since.join('; ')}.` : 'Nothing changed since the moment shown before.', 'hint')];
  if (view) {
    const area = scrollArea(`the plan's figures at ${instant(live.at)}`);
    area.append(figuresTable(view));
    const members = scrollArea(`the heaviest members at ${instant(live.at)}`);
    members.append(heaviest(view));
    out.push(area, el('h4', 'Heaviest members then'), members);
  }
  return out;
}

export function createLive(ctx) {
  const { controller } = ctx;
  const node = el('div', undefined, 'live');
  const intro = el('p', '', 'hint');
  const chart = createLiveChart((id) => controller.live?.select(id));
  const then = el('div', undefined, 'live-then');
  const timeline = createTimeline();
  const area = scrollArea('what happened since the page was opened', 'scroll live-events-scroll');
  area.append(timeline.node);
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
    timeline.update(live.rows);
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
      then.replaceChildren(...momentPanel(live, result ? result.baseline ?? result.view : null));
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
        then.replaceChildren(...thenPanel(live));
        shownThen = live;
      }
    },
  };
}
