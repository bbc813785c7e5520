// Sweep: the plan's figures across a range of fleet sizes or caps, on top of the plan shown.
// One chart (value on x; max/mean, queued and moves on y), today's fleet marked, and the
// smallest value that meets the targets named; every step in a table. Planned in the worker one
// step at a time (progress shown, a newer sweep wins); planned again when the plan changes.
import { el, attrs, input, select, field, scrollArea } from '../../common/page/dom.js';
import { html, render, nothing } from '../../common/page/lit.js';
import { cells, dataTable } from '../../common/page/table.js';
import { changed } from '../../common/page/store.js';
import { AXES, defaultRange, checkSweep, checkTargets, stepCells, STEP_HEADERS, CRASH_HEADERS, crashCells, removedCell } from '../shared/sweep-model.js';
import { isSuperseded } from '../../common/shared/messages.js';
import { sweepIsCurrent } from './actions.js';
import { thousands } from '../../common/shared/format.js';
import { sweepChart } from './sweep-chart.js';
import { csvButton, csvRow } from '../../common/page/csv.js';

function legend() {
  const l = el('ul', undefined, 'legend sweep-legend');
  for (const [cls, text] of [['ratio', 'max / mean (left axis)'], ['queued', 'queued splits (right axis)'], ['moves', 'moves (right axis)'],
    ['target', 'max/mean target'], ['now', "today's fleet"], ['chosen', 'smallest value meeting the targets']]) {
    const li = el('li');
    li.append(attrs(el('span', undefined, `key k-${cls}`), { 'aria-hidden': 'true' }), el('span', text));
    l.append(li);
  }
  return l;
}

/** onFail(err): a failure that is not the form's; today(axis, cap): the core's value of the axis that is today's fleet (a promise of it, null when none). */
function form(onRun, onFail, today) {
  const f = attrs(el('form', undefined, 'sweep-form'), { 'aria-label': 'sweep' });
  const axis = select(Object.entries(AXES).map(([k, a]) => [k, a.option]), 'what the sweep varies');
  const from = input('number', { min: '0', step: '1', value: String(AXES.add_members.from), 'aria-label': 'sweep from' });
  const to = input('number', { min: '0', step: '1', value: String(AXES.add_members.to), 'aria-label': 'sweep to' });
  const cap = input('number', { min: '1', step: '1', placeholder: 'default', 'aria-label': 'cap of each added member' });
  const capField = field('Cap of each added member', cap);
  const ratio = input('number', { min: '1', step: '0.01', value: '1.05', 'aria-label': 'target max/mean' });
  const queued = input('number', { min: '0', step: '1', value: '0', 'aria-label': 'target queued splits' });
  const crash = input('checkbox', { 'aria-describedby': 'sweep-crash-hint' });
  const crashField = el('label', undefined, 'check');
  crashField.append(crash, el('span', "Also crash each step's heaviest member (simulated with Spate's timing)"));
  const crashHint = attrs(el('p', 'Each step starts from its fleet settled on its plan; the heaviest member crashes at t = 0 with Spate\'s default timing. Recovery: until every split it ran runs again. Slower: up to a second per step on big fleets.', 'hint'), { id: 'sweep-crash-hint' });
  const run = el('button', 'Run sweep');
  run.type = 'submit';
  const error = attrs(el('p', '', 'form-error'), { role: 'alert' });
  const what = el('div', undefined, 'row');
  what.append(field('Vary', axis), field('From', from), field('To', to), capField, run);
  const targets = el('div', undefined, 'row');
  targets.append(field('Target: max/mean at most', ratio), field('Target: queued splits at most', queued));
  f.append(what, targets, crashField, crashHint, error);
  // a sweep that lands while the person edits the form (the first one, say) leaves their edit
  let editing = false;
  for (const i of [axis, from, to, cap, crash]) i.addEventListener('input', () => { editing = true; });
  // a range typed while today's value is asked for is the person's, not replaced by the default
  let rangeTyped = 0;
  for (const i of [from, to]) i.addEventListener('input', () => { rangeTyped++; });
  axis.addEventListener('change', async () => {
    const chosen = axis.value;
    const typed = rangeTyped;
    capField.hidden = !AXES[chosen].adds;
    let now = null;
    try {
      now = await today(chosen, cap.value);
    } catch (err) {
      onFail(err);
    }
    if (axis.value !== chosen || rangeTyped !== typed) return; // another axis chosen, or a range typed, meanwhile
    const range = defaultRange(chosen, now);
    from.value = String(range.from);
    to.value = String(range.to);
  });
  f.addEventListener('submit', (e) => {
    e.preventDefault();
    error.textContent = '';
    editing = false;
    const said = (err) => { if (!isSuperseded(err)) error.textContent = `${err.message} (${err.code})`; };
    try {
      // a refusal of the range (the core's bound on steps, say) is said here, beside the form;
      // any other failure is the page's message
      onRun(checkSweep({ axis: axis.value, from: from.value, to: to.value, cap: cap.value, crash: crash.checked }))
        .catch((err) => (err.code === 'invalid_sweep' ? said(err) : onFail(err)));
    } catch (err) {
      said(err);
    }
  });
  const readTargets = () => {
    try {
      const t = checkTargets({ maxOverMean: ratio.value, maxQueued: queued.value });
      error.textContent = '';
      return t;
    } catch (err) {
      error.textContent = `${err.message} (${err.code})`;
      return null;
    }
  };
  /** The form showing the sweep shown (a link's, say): its axis and range, unless the person is editing it. */
  const show = (p) => {
    if (editing) return;
    axis.value = p.axis;
    from.value = String(p.from);
    to.value = String(p.to);
    cap.value = p.cap ? String(p.cap) : '';
    crash.checked = Boolean(p.crash);
    capField.hidden = !AXES[p.axis].adds;
  };
  return { node: f, ratio, queued, readTargets, show };
}

/** The steps, a row each keyed by its value (drawn again, a row keeps its element while its value stays in the range). */
function stepsTable(steps, axisLabel, verdict, chosen) {
  const crashed = steps.some((s) => s.crash);
  const removes = steps.some((s) => s.removed?.length);
  const row = (s, i) => {
    const [first, ...rest] = [...stepCells(s), ...(crashed ? crashCells(s) : []), ...(removes ? [removedCell(s)] : []), verdict.meets[i] ? 'meets' : '—'];
    const cls = [s.today && 'is-now', s.value === chosen && 'is-chosen'].filter(Boolean).join(' ');
    return html`<tr data-value=${String(s.value)} class=${cls || nothing}>${cells([s.today ? `${first} (now)` : first, ...rest])}</tr>`;
  };
  return dataTable({ headers: [axisLabel, ...STEP_HEADERS, ...(crashed ? CRASH_HEADERS : []), ...(removes ? ['members removed'] : []), 'targets'],
    rows: steps, key: (s) => s.value, row, cls: 'data sweep-table', caption: `the sweep's steps, by ${axisLabel}` });
}

/** Today's fleet in words: the core's note, and its step's figures when the sweep has it. */
function nowText(steps, today) {
  const s = steps.find((x) => x.today);
  if (!s) return `Today's fleet: ${today.note}${today.value === null ? '' : '; outside this range'}.`;
  return `Today's fleet (${today.note}): max/mean ${s.max_over_mean}, ${thousands(s.queued)} queued.`;
}

export function createSweep(ctx) {
  const { controller, review } = ctx;
  const node = attrs(el('div', undefined, 'sweep'), { 'aria-busy': 'false', 'data-has-result': 'false' });
  const today = async (axis, cap) => {
    if (!controller.state.result) return null;
    return (await controller.ask('sweepToday', { axis, cap: Number(cap) || 0 })).value;
  };
  const f = form((params) => review.sweep(params), (err) => controller.report(err, 'The sweep could not be run'), today);
  const progress = attrs(el('div', undefined, 'progress'), { role: 'progressbar', 'aria-label': 'planning the sweep', 'aria-valuemin': 0, 'aria-valuemax': 100 });
  const fill = el('div', undefined, 'progress-bar');
  const progressText = el('span');
  progress.append(fill, progressText);
  progress.hidden = true;
  const status = attrs(el('p', '', 'hint sweep-status'), { role: 'status' });
  const verdict = el('p', '', 'verdict sweep-verdict');
  const now = el('p', '', 'hint sweep-now');
  const chart = el('div', undefined, 'sweep-chart');
  const area = scrollArea('sweep steps');
  const result = el('div', undefined, 'sweep-result');
  // the steps shown: the core's table (`spate-planner sweep --csv`)
  const csv = csvRow(csvButton(controller, 'sweep', () => controller.ask('sweepCsv', { steps: controller.state.sweep.steps }), 'sweep steps'));
  result.append(verdict, now, chart, legend(), area, csv);
  result.hidden = true;
  node.append(el('p', 'Plan the scenario shown across a range of fleet sizes or caps: each step is the what-if of that value, planned exactly as the leader would. A fleet smaller than today\'s loses members in the order chosen; each stops gracefully.', 'hint'),
    f.node, progress, status, result);
  let width = 0;
  let started = false;

  let drawn = 0;
  /** Draws the sweep shown with the core's verdict on the targets of the form. */
  async function draw(state) {
    const s = state.sweep;
    result.hidden = !s;
    node.dataset.hasResult = String(Boolean(s));
    if (!s || !state.result) return;
    const targets = f.readTargets();
    if (!targets) return;
    const mine = ++drawn;
    let v;
    let day;
    try {
      v = await controller.ask('sweepVerdict', { steps: s.steps, axis: s.params.axis, cap: s.params.cap, maxOverMean: targets.maxOverMean, maxQueued: targets.maxQueued });
      day = await controller.ask('sweepToday', { text: s.text, axis: s.params.axis, cap: s.params.cap });
      // the targets the verdict shown measures against, for the review document (committed
      // after the views' update, never inside it)
      review.setTargets(targets);
    } catch (e) {
      controller.report(e, 'The sweep could not be checked against the targets');
      return;
    }
    if (mine !== drawn) return;
    const label = AXES[s.params.axis].label;
    const best = v.smallest === null ? null : s.steps.find((x) => x.value === v.smallest);
    // the core's words (`verdict`), as `sweep` prints them and the review document writes them
    verdict.textContent = v.text;
    verdict.dataset.value = best ? String(best.value) : '';
    now.textContent = nowText(s.steps, day);
    render(stepsTable(s.steps, label, v, best?.value ?? null), area);
    const current = sweepIsCurrent(state);
    result.classList.toggle('stale', !current);
    const nowValue = s.steps.find((x) => x.today)?.value ?? null;
    if (width > 0) render(sweepChart(s.steps, { width, axisLabel: label, current: nowValue, chosen: best?.value ?? null, target: targets.maxOverMean }), chart);
    node.dataset.ms = String(Math.round(s.ms));
    if (current) status.textContent = `The sweep of ${label} from ${thousands(s.steps[0].value)} to ${thousands(s.steps[s.steps.length - 1].value)} is planned, on top of the plan shown.`;
  }

  function busy(state) {
    const r = state.sweepRun;
    progress.hidden = !r;
    node.setAttribute('aria-busy', String(Boolean(r)));
    if (!r) {
      // done: draw() says what was planned; a sweep that failed or was replaced leaves the older one
      if (!sweepIsCurrent(state)) status.textContent = state.sweep ? 'The sweep shown was planned for an earlier plan or snapshot: Run sweep to plan it again.' : '';
      return;
    }
    const pct = Math.round((r.done / r.total) * 100);
    fill.style.width = `${pct}%`;
    progress.setAttribute('aria-valuenow', String(pct));
    progressText.textContent = `planning step ${thousands(Math.min(r.total, r.done + 1))} of ${thousands(r.total)}…`;
    status.textContent = state.sweep && !sweepIsCurrent(state) ? 'The plan changed: planning the sweep again…' : 'Planning the sweep…';
  }

  const resize = new ResizeObserver(([entry]) => {
    const w = Math.round(entry.contentRect.width / 10) * 10;
    if (w && w !== width) { width = w; draw(controller.state); }
  });
  resize.observe(chart);
  for (const i of [f.ratio, f.queued]) i.addEventListener('input', () => draw(controller.state));

  return {
    node,
    update(state, prev) {
      if (changed(prev, state, 'sweepRun')) busy(state);
      if (changed(prev, state, 'sweep', 'result')) draw(state);
      if (state.sweep && changed(prev, state, 'sweep')) f.show(state.sweep.params);
    },
    /** The first time the tab is shown, a sweep of the default range runs. */
    show() {
      const s = controller.state;
      if (started || !s.result || s.sweep || s.sweepRun) return;
      started = true;
      const a = AXES.add_members;
      review.run(review.sweep({ axis: 'add_members', from: a.from, to: a.to, cap: 0, crash: false }), 'The sweep could not be run');
    },
    destroy() { resize.disconnect(); },
  };
}
