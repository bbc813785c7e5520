// Runs the Timeline's script in the worker, configuration A then B, and commits the run through
// the controller. A newer request supersedes an older one: the worker finishes the simulation it
// is in (it cannot be interrupted), its result is dropped, and the newest script runs next;
// requests made meanwhile collapse into that one. The figures of A and B and their difference
// come from the simulator too (`figuresTable`): the run keeps them as `table`. Every failure is committed as the run's error.
import { scriptText, withOverrides, hasEvents } from '../shared/script.js';
import { isSuperseded } from '../../common/shared/messages.js';

/** The scripts a state asks for: [{ which, text }], B only when it is compared. */
export function runScripts(timeline) {
  const out = [{ which: 'A', text: scriptText(timeline.script) }];
  if (timeline.b) out.push({ which: 'B', text: scriptText(withOverrides(timeline.script, timeline.b)) });
  return out;
}

/** What a run is of: the snapshot's load generation and the scripts' texts. */
export function runKey(state) {
  return `${state.generation}\n${runScripts(state.timeline).map((s) => s.text).join('\n')}`;
}

export class TimelineRunner {
  /** controller: its state, ask() and setTimelineRun(). */
  constructor(controller) {
    this.controller = controller;
    this.running = null;
    this.again = false;
  }

  /** True when the state's run is the one its timeline asks for, finished or failed. */
  current(state = this.controller.state) {
    const run = state.timelineRun;
    return Boolean(run && run.key === runKey(state) && (run.status === 'done' || run.status === 'error'));
  }

  /**
   * Runs the current timeline unless its run is there or under way; resolves to the committed
   * run of the newest request (never rejects: a failure is the run's `error`), or null when the
   * snapshot was replaced meanwhile.
   */
  request() {
    const state = this.controller.state;
    if (!state.info) return Promise.resolve(null);
    if (this.running) {
      if (this.running.key !== runKey(state)) this.again = true;
      return this.running.done;
    }
    if (this.current(state)) return Promise.resolve(state.timelineRun);
    this.running = { key: runKey(state), done: null };
    this.running.done = this.loop();
    return this.running.done;
  }

  async loop() {
    let run;
    try {
      do {
        this.again = false;
        this.running.key = runKey(this.controller.state);
        run = await this.once(this.controller.state);
      } while (this.again);
    } finally {
      this.running = null;
    }
    return run;
  }

  /** One run of A (and B); returns the committed run, or null when a newer request replaced it. */
  async once(state) {
    const key = runKey(state);
    const generation = state.generation;
    const previous = state.timelineRun?.generation === generation ? state.timelineRun : null;
    const run = { key, generation, timeline: state.timeline, status: 'running', which: null, a: null, b: null, error: null, since: performance.now() };
    for (const { which, text } of runScripts(state.timeline)) {
      this.commit({ ...run, which, previous: previous && { a: previous.a, b: previous.b } });
      const t0 = performance.now();
      try {
        // B draws the members A's charts draw one by one, in the same colours
        const shownAs = which === 'B' && run.a?.charts ? { load: run.a.charts.load.names, lanes: run.a.charts.lanes.names } : null;
        const model = await this.controller.ask('simulate', { script: text, which, shownAs });
        model.timing = { ...model.timing, roundTripMs: performance.now() - t0 };
        run[which === 'A' ? 'a' : 'b'] = model;
      } catch (e) {
        if (this.again || isSuperseded(e) || generation !== this.controller.state.generation) return null;
        return this.commit({ ...run, status: 'error', which, error: { which, message: e.message || String(e), code: e.code || 'internal', path: e.path || '' } });
      }
      if (this.again || generation !== this.controller.state.generation) return null;
    }
    try {
      run.table = await this.controller.ask('figuresTable', { a: run.a.figures, b: run.b?.figures ?? null, hasEvents: hasEvents(state.timeline.script) });
    } catch (e) {
      if (this.again || isSuperseded(e) || generation !== this.controller.state.generation) return null;
      return this.commit({ ...run, status: 'error', which: 'A', error: { which: 'A', message: e.message || String(e), code: e.code || 'internal', path: e.path || '' } });
    }
    if (this.again || generation !== this.controller.state.generation) return null;
    return this.commit({ ...run, status: 'done', which: null, ms: performance.now() - run.since });
  }

  commit(run) {
    this.controller.setTimelineRun(run);
    return run;
  }
}
