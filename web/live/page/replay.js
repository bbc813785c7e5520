// The page's half of a replayed recording (`spate-planner replay`, or a recording file opened
// like a snapshot): the controller makes one when a load turns out to be a recording. The
// person picks a moment (the replay bar's slider and buttons, the Live tab's chart); the worker
// moves the core's Replay there and plans it, and the moment's fleet, plan and place in the
// recording are committed in one update, as a live frame is. Moments asked for while one is
// being planned wait, and only the last one asked for is planned.
import { withMoment, instant, stepFrom } from '../shared/state.js';
import { errorMessage, planSentence } from '../../common/shared/messages.js';
import { download } from '../../common/page/dom.js';
import { thousands } from '../../common/shared/format.js';
import { frameOfScenario } from './frame.js';

export class ReplaySession {
  /** controller: the page's; commit(patch): the controller's update of the store, the session's only way to it. */
  constructor(controller, commit) {
    this.c = controller;
    this.toStore = commit;
    this.inflight = null;
    this.wanted = null;
    /** The moment being planned now, or null. */
    this.planning = null;
    this.closed = false;
    /** While a load runs: moments asked for wait. */
    this.held = false;
  }

  /** A recording is replayed (not followed). */
  get replaying() { return true; }

  get live() { return this.c.state.live; }

  /** The moment the person last asked for while it is not shown yet (null: the one shown is it). */
  get target() { return this.wanted ?? this.planning; }

  commit(patch) {
    if (!this.closed) this.toStore(patch);
  }

  /** Shows moment `m` (clamped to the recording), once the one being planned is shown. */
  seek(m) {
    const live = this.live;
    if (!live?.replay) return Promise.resolve();
    this.wanted = Math.max(0, Math.min(live.replay.moments - 1, Math.round(m)));
    if (!this.inflight && !this.held) this.inflight = this.drain().finally(() => { this.inflight = null; });
    return this.inflight ?? Promise.resolve();
  }

  async drain() {
    while (this.wanted !== null && !this.closed && !this.held) {
      const m = this.wanted;
      this.wanted = null;
      if (m === this.live.moment && this.c.state.ready) continue;
      this.planning = m;
      try {
        await this.frame(m);
      } catch (e) {
        this.planning = null; // the thumb goes back to the moment shown
        this.commit({ message: { ...errorMessage(e, `The moment ${m + 1} could not be planned; the plan shown is of moment ${this.live.moment + 1}`), fromLive: true } });
      } finally {
        this.planning = null;
      }
    }
  }

  async frame(m) {
    const got = await frameOfScenario(this, 'replaySeek', { moment: m });
    if (!got) return;
    const { generation, r, scenario, result } = got;
    const s = this.c.state;
    const live = withMoment(s.live, r.replay);
    const news = r.replay.rows.map((row) => row.text).join('; ');
    this.commit({
      generation, info: r.info, result, simDefaults: r.simDefaults, live, loading: null, ready: true, scenario,
      incidents: r.incidents,
      focus: r.info.members.some((x) => x.name === s.focus) ? s.focus : null,
      message: s.message?.fromLive ? null : s.message,
      status: `Moment ${thousands(m + 1)} of ${thousands(live.replay.moments)}, ${instant(live.at)}, revisions ${live.revisions}. ${news ? `${news}. ` : ''}${planSentence(result.view)}.`,
    });
    this.c.dispatchEvent(new CustomEvent('plan'));
  }

  /** The chart's pick (a point's moment; null: the last point). */
  select(id) {
    const points = this.live?.points ?? [];
    return this.seek(id ?? points[points.length - 1]?.id ?? 0);
  }

  /** To the moment that is news before (`by` < 0) or after (`by` > 0) the one shown or asked for. */
  step(by) {
    return this.seek(stepFrom(this.live.replay.steps, this.wanted ?? this.live.moment, by));
  }

  /** Planned again (after a restart of the worker, which read the recording again). */
  pull() {
    const m = this.live?.moment ?? 0;
    return this.frame(m).catch((e) => this.c.report(e, 'The recording could not be planned'));
  }

  /** Resolves once no moment is being planned (requests then name the generation shown). */
  settled() {
    return this.inflight || Promise.resolve();
  }

  /** A recording does not run: nothing to pause. */
  pause() {}

  /** Downloads the job at the moment shown as a snapshot file taken then. */
  async save() {
    await this.settled();
    const text = await this.c.ask('replaySave');
    const live = this.live;
    const name = `${live.job}-${live.revisions}.json`.replace(/[^\w.-]+/g, '_');
    download(name, 'application/json', text);
    this.commit({ status: `Saved the job at ${instant(live.at)} (revisions ${live.revisions}) as ${name}.` });
    return text;
  }

  /** A load runs: moments asked for wait until it fails (or this ends when it lands). */
  hold() {
    this.held = true;
  }

  /** The load failed: the moment asked for meanwhile, if any, is shown. */
  resume() {
    this.held = false;
    if (this.wanted !== null) this.seek(this.wanted);
  }

  close() {
    this.closed = true;
    this.wanted = null;
  }
}
