// The page's half of a live job (`spate-planner serve --server …`): the controller starts one
// instead of a file load. The worker holds the event stream and says when changes wait; this
// asks it for a frame (everything that arrived applied, the scenario planned once) at most every
// MIN_FRAME_MS while busy, and commits each frame's fleet, plan and live state in one update.
// Pause stops asking (the worker keeps the changes, one per key); stale is a timer to the core's
// deadline (each frame's `freshness`: its last change plus the lease TTL), the only timer that
// runs while nothing changes.
import { initialLive, withFrame, withStatus, liveStatus, isStale } from '../shared/state.js';
import { errorMessage, planSentence, failuresMessage } from '../../common/shared/messages.js';
import { download } from '../../common/page/dom.js';
import { frameOfScenario } from './frame.js';

/** At most one frame per this many ms while changes keep coming. */
export const MIN_FRAME_MS = 100;

/** The on-call card's countdowns move once a second. */
export const INCIDENT_TICK_MS = 1000;

/** The endpoint beside the stream's: `jobs` or `snapshot` for `…/api/live`. */
export function sibling(url, name) {
  const u = new URL(url, document.baseURI);
  u.search = '';
  return new URL(name, u).href;
}

/** The stream's URL for `job` (absolute). */
export function streamUrl(url, job) {
  const u = new URL(url, document.baseURI);
  u.searchParams.set('job', job);
  return u.href;
}

function liveMessage(title, e, level = 'error') {
  return { ...errorMessage(e, title, level), fromLive: true };
}

export class LiveSession {
  /**
   * controller: the page's (shell/page/controller.js); url: the event stream; job: the job
   * followed; commit(patch): the controller's update of the store, the session's only way to it.
   */
  constructor(controller, url, job, commit) {
    this.c = controller;
    this.toStore = commit;
    this.url = url;
    this.job = job;
    this.paused = false;
    this.pending = false;
    this.inflight = null;
    this.timer = 0;
    this.staleTimer = 0;
    this.incidentTimer = 0;
    this.lastFrameAt = -Infinity;
    this.started = false;
    this.closed = false;
    /** While a load runs: no frame is asked for. */
    this.held = false;
  }

  get live() { return this.c.state.live; }

  commit(patch) {
    if (!this.closed) this.toStore(patch);
  }

  /** Connects and shows the first frame; resolves to true when it is shown. */
  async start() {
    const label = `live job ${this.job}`;
    const generation = ++this.c.loadSeq;
    // the incidents of a job followed before are not this job's
    this.commit({ live: initialLive(this.job, this.url), incidents: null, loading: { label, fraction: 0.5, text: `connecting to ${label}…` } });
    try {
      await this.c.client.load({ kind: 'live', url: streamUrl(this.url, this.job) }, generation, () => {});
      if (generation !== this.c.loadSeq || this.closed) return false;
      this.started = true;
      await this.pull();
      return Boolean(this.c.state.ready) && !this.closed;
    } catch (e) {
      if (this.closed || generation !== this.c.loadSeq) return false;
      this.commit({ loading: null, live: { ...this.live, conn: 'error', connMessage: e.message }, message: liveMessage(`${label} could not be followed`, e) });
      return false;
    }
  }

  /** A message from the worker's stream: { status } or { pending, news } (events since the last frame, and how many of them are news). */
  onWorker(m) {
    if (this.closed || !this.live) return;
    if (m.status) this.status(m.status);
    if (m.pending !== undefined) {
      if (this.paused && m.news !== this.live.waiting) this.commit({ live: { ...this.live, waiting: m.news, stale: false } });
      this.schedule();
    }
  }

  status(s) {
    const live = withStatus(this.live, s, Date.now());
    if (live === this.live) return;
    const patch = { live };
    if (s.status === 'error') patch.message = liveMessage('The live job cannot be followed now', { message: s.message, code: 'live_error' });
    else if (this.c.state.message?.fromLive && s.status === 'live') patch.message = null;
    this.commit(patch);
    this.watchStale();
  }

  /** Asks for a frame now, or once the one under way is shown, at most every MIN_FRAME_MS. */
  schedule() {
    this.pending = true;
    if (!this.started || this.paused || this.held || this.inflight || this.timer || this.closed) return;
    const wait = Math.max(0, this.lastFrameAt + MIN_FRAME_MS - performance.now());
    this.timer = setTimeout(() => { this.timer = 0; this.pull(); }, wait);
  }

  /** One frame: the worker applies what arrived and plans; shown in one update. */
  pull() {
    this.pending = false;
    this.lastFrameAt = performance.now();
    this.inflight = this.frame()
      .catch((e) => this.commit({ loading: null, message: liveMessage('The live job could not be planned', e) }))
      .finally(() => {
        this.inflight = null;
        if (this.pending) this.schedule();
      });
    return this.inflight;
  }

  async frame() {
    const got = await frameOfScenario(this, 'liveNext', {});
    if (!got) return;
    const { generation, r, scenario, result } = got;
    const s = this.c.state;
    const live = withFrame(s.live, r.live, result.baseline ?? result.view, Date.now());
    const news = r.live.rows.map((row) => row.text).join('; ');
    this.commit({
      generation, info: r.info, snapshotId: `${r.info.job}@live`, result, simDefaults: r.simDefaults, live, loading: null, ready: true,
      incidents: r.incidents,
      source: { label: `live from ${r.info.source.server || 'NATS'}`, kind: 'live' },
      focus: r.info.members.some((m) => m.name === s.focus) ? s.focus : null,
      scenario, message: this.frameMessage(scenario, result, r.live),
      status: s.ready && !news ? s.status : `${news ? `${news}. ` : `Following live job ${r.info.job}. `}${planSentence(result.view)}.`,
    });
    this.watchStale();
    this.tickIncidents();
    this.c.dispatchEvent(new CustomEvent('plan'));
  }

  /**
   * While the job has incidents, their words are asked for again every INCIDENT_TICK_MS: the
   * core writes the countdowns and ages at the moment asked, so the card moves with the clock
   * between frames. A failure goes to the page's message like a frame's.
   */
  tickIncidents() {
    if (this.incidentTimer || this.closed || !this.c.state.incidents?.length) return;
    this.incidentTimer = setTimeout(async () => {
      this.incidentTimer = 0;
      if (this.closed || this.held || this.paused) return;
      try {
        const incidents = await this.c.ask('liveIncidents', { scenario: this.c.state.scenario });
        if (!this.closed) this.commit({ incidents });
      } catch (e) {
        // a frame landed meanwhile (its incidents are newer); anything else is said
        if (e.code !== 'stale') {
          this.commit({ message: liveMessage('The incidents could not be updated', e) });
          return;
        }
      }
      this.tickIncidents();
    }, INCIDENT_TICK_MS);
  }

  frameMessage(scenario, result, frame) {
    if (frame.refused) return liveMessage(`The job holds a value the leader would refuse; the plan shown is of revisions ${frame.revisions}, the last state that could be read`, frame.refused);
    if (frame.resync) return liveMessage('A change could not be applied; the whole job is being read again', frame.resync, 'warning');
    const m = this.c.state.message;
    if (m?.fromLive && m.code !== 'live_error') {
      // a refusal or resync that no longer holds goes; the scenario's own failures stay
      const fails = failuresMessage(scenario, result.failures, 'of the scenario');
      return fails && { ...fails, fromFailures: true };
    }
    return this.c.failuresNote(scenario, result, 'of the scenario');
  }

  /** Resolves once no frame is under way (requests then name the generation shown). */
  settled() {
    return this.inflight || Promise.resolve();
  }

  /** Pause freezes the view; changes keep arriving (kept in the worker) and show on resume. */
  pause(on) {
    this.paused = on;
    this.commit({ live: { ...this.live, paused: on }, status: on ? 'Paused: changes keep arriving and show when you resume.' : 'Resumed.' });
    if (!on && this.pending) this.schedule();
    if (!on) this.tickIncidents();
  }

  /** "stale" once the page's clock passes the core's deadline (the frame's `freshness`). */
  watchStale() {
    clearTimeout(this.staleTimer);
    const live = this.live;
    if (!live || live.staleAfterMs === null || liveStatus(live) === 'paused' || live.conn !== 'live') return;
    const now = Date.now();
    if (!isStale(live, now)) {
      this.staleTimer = setTimeout(() => this.watchStale(), live.staleAfterMs - now + 50);
      return;
    }
    if (!live.stale) this.commit({ live: { ...live, stale: true } });
  }

  /** Downloads the state shown as a snapshot file (what `spate-planner snapshot` writes). */
  async save() {
    await this.settled();
    const text = await this.c.ask('liveSave');
    const name = `${this.job}-${this.live.revisions || 'live'}.json`.replace(/[^\w.-]+/g, '_');
    download(name, 'application/json', text);
    this.commit({ status: `Saved the state at revisions ${this.live.revisions} as ${name}.` });
    return text;
  }

  /** Shows the plan of the point `id` under the chart (null: the newest). */
  select(id) {
    this.commit({ live: { ...this.live, selected: id } });
  }

  /** A load runs: no frame is asked for (one under way is dropped, the load superseding it). */
  hold() {
    this.held = true;
    clearTimeout(this.timer);
    this.timer = 0;
  }

  /** The load failed: following goes on, from a frame of the state now. */
  resume() {
    if (this.closed) return;
    this.held = false;
    if (this.started) this.pull();
  }

  close() {
    this.closed = true;
    clearTimeout(this.timer);
    clearTimeout(this.staleTimer);
    clearTimeout(this.incidentTimer);
  }
}

/**
 * The server's jobs (GET …/api/jobs): { job (the one --job named, or null), max_jobs, followed,
 * jobs: [{ job, followed, reason, status, members, splits, at_risk, state, lease }…] };
 * an answer of another shape (a proxy's page, say) is refused, naming the field.
 */
export async function listJobs(url) {
  const where = sibling(url, 'jobs');
  const r = await fetch(where, { headers: { accept: 'application/json' } });
  const body = await r.json().catch(() => null);
  const refuse = (why) => Object.assign(new Error(why), { code: 'live_jobs', path: where });
  if (!r.ok) throw refuse(body?.error || `the jobs could not be listed (HTTP ${r.status})`);
  if (!body || typeof body !== 'object') throw refuse(`the server's list of jobs is not JSON (HTTP ${r.status})`);
  if (!Array.isArray(body.jobs) || !body.jobs.every((j) => typeof j?.job === 'string')) throw refuse("the server's list of jobs has no \"jobs\" field of named jobs");
  if (body.job != null && typeof body.job !== 'string') throw refuse("the server's list of jobs has a \"job\" field that is not a name");
  return body;
}
