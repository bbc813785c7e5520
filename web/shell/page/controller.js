// The controller: the only code that updates the store. A load or a scenario change asks the
// worker, and the answer is committed in one update (snapshot, scenario and plan together), so
// the page never shows one fleet's header above another's figures. Every failure becomes a
// message; results for a replaced load or scenario are dropped. The parts it makes, the live
// session and the review actions, commit through the function it hands them; views and the
// element call its actions (report, say, ...), never the store.
import { PlannerClient } from './client.js';
import { Store } from '../../common/page/store.js';
import { describe, snapshotId, emptyScenario } from '../../common/shared/scenario.js';
import { humanBytes, plural } from '../../common/shared/format.js';
import { errorMessage, isSuperseded, planSentence, failuresMessage, otherSnapshotMessage } from '../../common/shared/messages.js';
import { LiveSession, listJobs } from '../../live/page/session.js';
import { ReplaySession } from '../../live/page/replay.js';
import { initialLive, replayLive, instant, skippedText } from '../../live/shared/state.js';
import { TimelineRunner } from '../../timeline/page/runner.js';
import { ReviewActions } from '../../review/page/actions.js';

export const DEMO = { splits: 2000, members: 24, seed: 1 };

/**
 * What the page says first of a recording: the stretches of moments that cannot be planned
 * (skipped), then a last line cut short; null when it says nothing.
 */
function replayMessage(replay) {
  const { skipped } = replay;
  const early = replay.info.warnings.join(' ');
  if (skipped.length) {
    const n = skipped.length;
    const title = n === 1 ? 'A stretch of the recording could not be planned; its moments are skipped'
      : `${n} stretches of the recording could not be planned; their moments are skipped`;
    const first = skipped[0];
    const where = [first.bucket && `bucket ${first.bucket}`, first.key && `key ${first.key}`].filter(Boolean).join(', ');
    return { level: 'warning', title, text: `${skippedText(skipped)}. ${first.message}${early ? ` ${early}` : ''}`, code: first.code, where };
  }
  return early ? { level: 'warning', title: 'The recording ends early', text: early, code: 'truncated', where: '' } : null;
}

export class Controller extends EventTarget {
  /** The store's update, handed to the parts this makes (the live session, the review actions). */
  #commit = (patch) => this.store.update(patch);

  constructor(store = new Store()) {
    super();
    this.store = store;
    this.loadSeq = 0;
    /** The load under way (a promise), or null: scenario edits wait for it. */
    this.loadingNow = null;
    /** The scenario edits, one after another in the order asked: the last one's promise. */
    this.edits = Promise.resolve();
    /** The live job followed (live/page/session.js), or null. */
    this.live = null;
    this.client = new PlannerClient({ onRestart: (cause) => this.restarted(cause), onLive: (m) => this.live?.onWorker(m) });
    this.timeline = new TimelineRunner(this);
    /** The design review's actions (review/page/actions.js), given to views as `ctx.review`. */
    this.review = new ReviewActions(this, this.#commit);
  }

  get state() { return this.store.state; }

  /** Runs an action; a failure becomes the page's message (titled `title`). */
  run(promise, title) {
    return Promise.resolve(promise).catch((e) => this.report(e, title));
  }

  /** A failure (an error, or { message, code, path }) as the page's message, unless a newer load or scenario replaced it. */
  report(e, title, level = 'error') {
    if (!isSuperseded(e)) this.store.update({ message: errorMessage(e, title, level) });
  }

  /** A status sentence ("what changed") for assistive technology and the eye. */
  say(status) {
    this.store.update({ status });
  }

  // ------------------------------------------------------------------ before the first load

  /**
   * A permalink's scenario, order, Timeline, tab (the Timeline's when the link has a timeline and
   * names no tab) and focused member, before the first load plans them. The link's sweep and
   * earlier snapshot are the review's to restore once the plan is shown (`fromLinkReview`).
   */
  fromLink(link) {
    const tab = link.tab ?? (link.timeline ? 'timeline' : null);
    this.store.update({
      scenario: link.scenario, order: link.order, focus: link.member ?? null,
      ...(link.timeline ? { timeline: link.timeline } : {}), ...(tab ? { tab: { id: tab } } : {}),
    });
  }

  /** After the first load: the link's sweep planned again and its earlier snapshot read again (or asked for). */
  fromLinkReview(link) {
    if (link.sweepError) this.report(link.sweepError, "The link's sweep could not be read; no sweep is shown", 'warning');
    if (link.sweep) this.run(this.review.sweep(link.sweep), "The link's sweep could not be planned");
    if (link.before) this.review.fromLink(link.before);
  }

  /** The element's default cap (its `default-cap` attribute), unless the scenario names one already. */
  presetDefaultCap(cap) {
    if (this.state.scenario.defaultCap === null) this.store.update({ scenario: { ...this.state.scenario, defaultCap: cap } });
  }

  // ------------------------------------------------------------------ loading

  /**
   * Loads a snapshot source and plans the current scenario on it; shows both at once. A
   * newer load replaces this one; a refused snapshot leaves the fleet shown as it was.
   * `link`: { snapshot, error } of a permalink read before this first load. Resolves to true
   * when the snapshot is shown; never rejects (a failure is the page's message).
   */
  load(source, label, link = null) {
    const loading = this.loadNow(source, label, link);
    this.loadingNow = loading;
    loading.finally(() => { if (this.loadingNow === loading) this.loadingNow = null; });
    return loading;
  }

  async loadNow(source, label, link) {
    // the job followed (or the recording replayed) waits while this loads: it is replaced when
    // the load lands and goes on when the load fails
    const following = this.live;
    following?.hold();
    const generation = ++this.loadSeq;
    this.store.update({ loading: { label, fraction: 0, text: `loading ${label}…` } });
    const progress = ({ got, total }) => {
      if (generation !== this.loadSeq) return;
      const text = got < 0 ? `parsing ${label}…` : `reading ${label}: ${humanBytes(got)}${total ? ` of ${humanBytes(total)}` : ''}`;
      this.store.update({ loading: { label, fraction: got < 0 ? 1 : total ? got / total : 0.5, text } });
    };
    try {
      const info = await this.client.load(source, generation, progress);
      if (generation !== this.loadSeq) return false;
      const simDefaults = await this.client.call('simDefaults', { generation });
      const { scenario, result, unread } = await this.firstPlan(generation);
      if (generation !== this.loadSeq) return false;
      const id = snapshotId(info);
      // a recording: replayed, its moments picked on the Live tab (live/page/replay.js)
      const { replay, ...shown } = info;
      this.closeLive();
      if (replay) this.live = new ReplaySession(this, this.#commit);
      this.store.update({
        generation, info: shown, snapshotId: id, source: { label, kind: source.kind }, result, simDefaults, loading: null, ready: true,
        scenario, focus: info.members.some((m) => m.name === this.state.focus) ? this.state.focus : null,
        message: unread ? errorMessage(unread, `The ${link ? "link's " : ''}scenario could not be read; planning without it`, 'warning')
          : replay ? replayMessage(replay)
              ?? this.loadMessage(scenario, result, link, id)
            : this.loadMessage(scenario, result, link, id),
        status: replay ? this.replayStatus(label, replay, result)
          : `Loaded ${label}: job ${info.job}, ${plural(info.members.length, 'member')}, ${plural(info.splits, 'split')}. ${planSentence(result.view)}.`,
        ...(replay ? { live: replayLive(replay, label), tab: { id: 'live' } } : { live: null }),
      });
      this.dispatchEvent(new CustomEvent('plan'));
      return true;
    } catch (e) {
      if (generation !== this.loadSeq || isSuperseded(e)) return false;
      this.store.update({ loading: null, message: errorMessage(e, `${label} could not be loaded; ${this.unchanged(following)}`) });
      following?.resume();
      return false;
    }
  }

  /**
   * The plan of the scenario on a fresh load. The fleet has loaded by then, so a scenario the
   * core refuses as a whole (not JSON, another format, past a bound such as a prefix too long:
   * any code) is reported as the scenario's and the empty one planned, so the fleet shows; only
   * a trapped worker or a newer load is the load's failure.
   */
  async firstPlan(generation) {
    const scenario = this.state.scenario;
    try {
      return { scenario, result: await this.analyse(scenario, generation), unread: null };
    } catch (e) {
      if (e.trapped || isSuperseded(e)) throw e;
      return { scenario: emptyScenario(), result: await this.analyse(emptyScenario(), generation), unread: e };
    }
  }

  replayStatus(label, replay, result) {
    const i = replay.info;
    const warned = i.warnings.length ? ` ${i.warnings.join(' ')}` : '';
    const skipped = replay.skipped.length ? ` ${skippedText(replay.skipped)}.` : '';
    return `Replaying ${label}: job ${i.job}, ${plural(i.moments, 'moment')} from ${instant(Number(i.start_ms))} to ${instant(Number(i.end_ms))}.${warned}${skipped} ${planSentence(result.view)}.`;
  }

  loadMessage(scenario, result, link, id) {
    if (link?.error) return errorMessage(link.error, "The link's scenario could not be read; planning without it", 'warning');
    const fails = failuresMessage(scenario, result.failures, link ? 'of the link' : 'of the scenario');
    if (link?.snapshot && link.snapshot !== id) {
      const other = otherSnapshotMessage(link.snapshot, id);
      return fails ? { ...other, text: `${other.text} ${fails.title}: ${fails.text}.` } : other;
    }
    return fails && { ...fails, fromFailures: true };
  }

  loadDemo(demo = {}, link = null) {
    const d = { ...DEMO, ...demo };
    return this.load({ kind: 'demo', splits: d.splits, members: d.members, seed: d.seed }, 'the built-in demo fleet', link);
  }

  /**
   * A same-origin URL only: no request leaves the page's origin. Named as given (`url`), or
   * `name` when the server names the file it serves.
   */
  loadUrl(url, link = null, name = null) {
    let resolved;
    try {
      resolved = new URL(url, document.baseURI);
    } catch {
      resolved = null;
    }
    if (!resolved || resolved.origin !== location.origin) {
      const why = resolved ? `snapshots are only loaded from this page's origin (${location.origin}), not ${resolved.origin}` : `${url} is not a URL`;
      const e = Object.assign(new Error(why), { code: resolved ? 'cross_origin' : 'invalid_url' });
      ++this.loadSeq;
      this.report(e, `The snapshot ${url} could not be loaded; ${this.unchanged(this.live)}`);
      this.live?.resume(); // a frame under way was superseded: the next one is asked for
      return Promise.resolve(false);
    }
    return this.load({ kind: 'url', url: resolved.href }, name || String(url), link);
  }

  loadFile(file) {
    return this.load({ kind: 'file', file }, file.name);
  }

  loadText(text) {
    return this.load({ kind: 'text', text }, 'pasted');
  }

  // ------------------------------------------------------------------ live

  /**
   * Follows a live job of the server behind the event stream `url` (`spate-planner serve
   * --server`); without `job` (and no --job), lists the server's jobs for the person to pick.
   * Resolves to true once the job is shown.
   */
  async startLive(url, job) {
    this.stopLive();
    let list;
    try {
      list = await listJobs(url);
    } catch (e) {
      this.report(e, 'The live jobs could not be listed');
      return false;
    }
    const chosen = job || list.job;
    if (!chosen || !list.jobs.some((j) => j.job === chosen)) {
      const missing = chosen && { level: 'error', title: `There is no job ${chosen} on this server`, text: `Its bucket spate_coordination_${chosen}_state does not exist. Pick a job below.`, code: 'no_job', where: '' };
      this.store.update({ live: { ...initialLive(null, url), jobs: list.jobs }, message: missing || null });
      return false;
    }
    this.live = new LiveSession(this, url, chosen, this.#commit);
    return this.live.start();
  }

  stopLive() {
    if (!this.live) return;
    this.closeLive();
    this.store.update({ live: null, incidents: null });
  }

  /** The session followed or replayed ends (the store's `live` is the caller's to replace). */
  closeLive() {
    this.live?.close();
    this.live = null;
  }

  /** What a failed load leaves shown, in words; `following`: the session that goes on. */
  unchanged(following) {
    if (following?.replaying) return 'the recording stays shown at the moment picked';
    if (following) return 'the live job is still followed';
    return this.state.info ? 'the fleet shown is unchanged' : 'nothing is shown';
  }

  restarted(cause) {
    if (this.live) {
      this.store.update({ message: { level: 'warning', title: 'The planner module failed', text: `${cause.message}. A fresh module was started and the live job read again.`, code: cause.code || 'wasm_trap', where: '' } });
      this.live.pull();
      return;
    }
    this.store.update({
      message: { level: 'warning', title: 'The planner module failed', text: `${cause.message}. A fresh module was started and the snapshot reloaded; your scenario is kept (it is in the link).`, code: cause.code || 'wasm_trap', where: '' },
    });
    this.run(this.replan(this.state.scenario, 'Replanned after the restart.'), 'The plan could not be made again');
  }

  // ------------------------------------------------------------------ planning

  /** The worker's plan of `scenario` for load `generation` (changes that fail are left out). */
  async analyse(scenario, generation = this.state.generation) {
    const t0 = performance.now();
    const r = await this.client.call('analyse', { generation, scenario });
    return { ...r, roundTripMs: performance.now() - t0 };
  }

  /**
   * Plans `scenario` and shows it, unless a newer scenario or load came first. Changes that no
   * longer apply are the page's message (`where`: whose changes they are).
   */
  replan(scenario, status, where = 'of the scenario') {
    return this.edit(() => scenario, status, where);
  }

  /**
   * What a scenario edit waits for before it can be planned: a load, a live frame, or the edits
   * asked for before it (null: nothing).
   */
  waitingFor() {
    if (this.loadingNow) return 'the snapshot being loaded';
    if (this.live?.inflight) return 'the live frame being planned';
    if (this.editing) return 'the change before it';
    return null;
  }

  /**
   * One scenario edit, queued behind the edits before it and any load or live frame under way
   * (never dropped): `next(scenario)` makes the scenario from the one shown when its turn comes
   * (null: nothing to do), which is planned and shown. A load or frame that lands while it plans
   * makes it plan again on the fleet shown then. `onWait(what)` hears what it waits for ('' once
   * it plans). Resolves to the plan shown; rejects with the core's error for a change it refuses
   * when `refuse(result, next)` says so.
   */
  edit(next, status, where, { refuse = null, onWait = null } = {}) {
    const ahead = this.waitingFor();
    if (ahead) onWait?.(ahead);
    const run = this.edits.then(() => this.editNow(next, status, where, refuse, onWait));
    this.edits = run.catch(() => {});
    return run;
  }

  async editNow(next, status, where, refuse, onWait) {
    this.editing = true;
    try {
      for (let tries = 0; ; tries++) {
        if (this.loadingNow) { onWait?.('the snapshot being loaded'); await this.loadingNow; }
        await this.live?.settled();
        const scenario = next(this.state.scenario);
        if (!scenario) return null;
        if (!this.state.info) {
          if (this.state.generation === 0 && !refuse) { this.store.update({ scenario }); return null; }
          throw Object.assign(new Error('no snapshot is shown: open one first'), { code: 'no_snapshot' });
        }
        onWait?.('');
        const generation = this.state.generation;
        let result;
        try {
          result = await this.analyse(scenario, generation);
        } catch (e) {
          if (isSuperseded(e) && tries < 3) continue; // the worker holds a newer fleet: plan on it
          throw e;
        }
        if (generation !== this.state.generation) {
          if (tries < 3) continue; // another fleet landed: plan on it
          // never a plan of one fleet shown with another
          throw Object.assign(new Error('the fleet changed each time the change was planned (four times): apply it again, or pause the live job first'), { code: 'fleet_changed' });
        }
        const refused = refuse?.(result, scenario);
        if (refused) throw Object.assign(new Error(refused.message), refused);
        this.store.update({ scenario, result, message: this.failuresNote(scenario, result, where), status: `${typeof status === 'function' ? status() : status} ${planSentence(result.view)}.` });
        this.dispatchEvent(new CustomEvent('plan'));
        return result;
      }
    } finally {
      this.editing = false;
    }
  }

  /** The message for changes that do not apply; an older such message goes, others stay. */
  failuresNote(scenario, result, where) {
    const fails = failuresMessage(scenario, result.failures, where);
    if (fails) return { ...fails, fromFailures: true };
    return this.state.message?.fromFailures ? null : this.state.message;
  }

  /**
   * Adds a change after checking it: the core plans the scenario with it, and a change it
   * refuses is not added (the returned promise rejects with the core's error). Asked for while a
   * load, a frame or another change is under way, it waits its turn (`onWait(what)` hears for
   * what) and is then applied to the scenario shown.
   */
  addChange(change, onWait = null) {
    const add = (s) => ({ ...s, changes: [...s.changes, change] });
    const refuse = (result, next) => result.failures.find((f) => f.index === next.changes.length - 1);
    return this.edit(add, `Applied: ${describe(change)}.`, 'of the scenario', { refuse, onWait });
  }

  /** Removes the change at `index` of the scenario shown when its turn comes (`change`: the one meant). */
  removeChange(index, change = this.state.scenario.changes[index]) {
    const remove = (s) => {
      const at = s.changes[index] === change ? index : s.changes.indexOf(change);
      return at < 0 ? null : { ...s, changes: s.changes.filter((_, i) => i !== at) };
    };
    return this.run(this.edit(remove, `Removed: ${describe(change)}.`, 'of the scenario'), 'The plan could not be made');
  }

  /** Removes the last change (nothing to undo: says so). */
  undo() {
    if (!this.state.scenario.changes.length) {
      this.say('Nothing to undo: the plan shown is the baseline.');
      return Promise.resolve();
    }
    let gone = null;
    const next = (s) => {
      gone = s.changes[s.changes.length - 1] ?? null;
      return gone && { ...s, changes: s.changes.slice(0, -1) };
    };
    return this.run(this.edit(next, () => `Removed: ${describe(gone)}.`, 'of the scenario'), 'The plan could not be made');
  }

  clear() {
    return this.run(this.edit((s) => ({ ...s, changes: [] }), 'All changes removed.', 'of the scenario'), 'The plan could not be made');
  }

  /** Settings: { defaultCap } (null: the leader's own). */
  setSettings(patch) {
    const status = 'rules' in patch
      ? `Rules: ${patch.rules ? `Spate ${patch.rules}` : 'as the store names them'}.`
      : `Default cap ${patch.defaultCap ?? 'from the store'}.`;
    return this.run(this.edit((s) => ({ ...s, ...patch }), status, 'of the scenario'), 'The plan could not be made');
  }

  /** Replaces the whole scenario (the element's property, an edited address). */
  setScenario(scenario, status = 'Scenario replaced.', where = 'of the scenario') {
    return this.run(this.replan(scenario ?? emptyScenario(), status, where), 'The scenario cannot be planned');
  }

  /**
   * A departed instance's window: withheld (true) or released (false). A recent departure the
   * store shows, or a member the what-if removes, is released by a release_departed change; an
   * older owner is withheld by a remove_member (crash) change. Toggling back removes the change.
   */
  setWithheld(instance, withheld) {
    const next = (s) => {
      const mine = (c) => c?.member === instance && (c.op === 'release_departed' || (c.op === 'remove_member' && !this.isMember(instance)));
      const rest = s.changes.filter((c) => !mine(c));
      const byRelease = this.state.info.recent_departures.includes(instance) || this.isMember(instance);
      const add = byRelease ? (withheld ? null : { op: 'release_departed', member: instance })
        : (withheld ? { op: 'remove_member', member: instance, departure: 'crash' } : null);
      return { ...s, changes: add ? [...rest, add] : rest };
    };
    return this.run(this.edit(next, `${instance}: splits ${withheld ? 'withheld' : 'released'}.`, 'of the scenario'), 'The plan could not be made');
  }

  isMember(name) {
    return this.state.info.members.some((m) => m.name === name);
  }

  // ------------------------------------------------------------------ view state

  /** Asks the chart to show `member`'s row (folded or not), scroll it into view and focus it. */
  reveal(member) {
    this.store.update({ reveal: { member } });
  }

  focus(member) {
    this.store.update({ focus: member, status: member ? `Showing ${member}'s moves, splits and claims.` : 'Showing every member.' });
  }

  setOrder(order) {
    this.store.update({ order });
  }

  dismissMessage() {
    this.store.update({ message: null });
  }

  /** Shows a tab of the detail area (`focus`: moves the keyboard focus to it). */
  showTab(id, focus = false) {
    this.store.update({ tab: { id, focus } });
  }

  // ------------------------------------------------------------------ timeline

  /** Replaces the Timeline's script and configurations ({ script, b }, timeline/shared/script.js). */
  setTimeline(timeline, status = null) {
    this.store.update(status ? { timeline, status } : { timeline });
  }

  /**
   * Adds scripted events (a crash from the fleet chart, say) and shows the Timeline, which
   * brings its headline result into view once the run is drawn (`reveal`).
   */
  addTimelineEvents(events, status) {
    const t = this.state.timeline;
    const script = { ...t.script, events: [...(Array.isArray(t.script.events) ? t.script.events : []), ...events] };
    this.store.update({ timeline: { ...t, script }, tab: { id: 'timeline', focus: true, reveal: true }, status });
  }

  /** The Timeline's run, committed by timeline/page/runner.js. */
  setTimelineRun(timelineRun) {
    this.store.update({ timelineRun });
  }

  /** A request for the snapshot and scenario shown (the worker refuses it for another load). */
  async ask(op, args = {}) {
    await this.live?.settled();
    const r = this.state.result;
    return this.client.call(op, { generation: this.state.generation, text: r?.text ?? '', ...args });
  }

  close() {
    this.live?.close();
    this.review.close();
    this.client.terminate();
  }
}
