// The worker's half of a live job: the stream (LiveFeed) and the core's live job, joined for
// worker.js's `load` (source { kind: 'live', url }), `liveNext` and `liveSave` requests.
//
// Each change is applied to the live planner (Planner.fromLive: the core's LiveJob) as it
// arrives, so what waits between frames is bounded by the job's size; a frame
// (Planner.nextFrame) joins what the changes touched and returns what happened since the last
// frame as the timeline's rows. A fresh full state makes a new live planner that continues the
// frames of the one it replaces (Planner.resyncFrom).
//
// The first state is shown from a snapshot planner (Planner.fromBytes of the fetched bytes, or of
// the stream's first event, read as taken now: the same fleet as Planner.fromLive would join
// now, sooner); the live planner is built from the same state right after the first frame is
// sent (the changes that arrive before are applied to it then), and takes over at the next frame.
import { LiveFeed } from './feed.js';

function errorFields(e) {
  return e && { message: e.message || String(e), code: e.code || 'invalid_value', bucket: e.bucket, key: e.key, path: e.path };
}

/** A followed job: its feed, and the live planner the changes are applied to. */
class LiveJob {
  constructor({ Planner, infoOf, guard }) {
    this.Planner = Planner;
    this.infoOf = infoOf;
    this.guard = guard;
    this.feed = null;
    /** The first state ({ bytes } or { text }), until the live planner is built from it. */
    this.first = null;
    /** The live planner the changes are applied to, and whether it is the one shown. */
    this.current = null;
    this.currentShown = false;
    /** Changes that came before the live planner was built (applied to it when it is). */
    this.early = [];
    /** The revisions of the fleet planned (a refused value keeps the last one that could be read). */
    this.shown = null;
    this.info = null;
    /** Why a change could not be applied (the next frame says so; the stream is read anew). */
    this.failed = null;
    /** Why a fresh full state could not be read (the next frame fails with it). */
    this.broken = null;
    this.fresh = true;
  }

  /** The planner of the first frame (the first state, read as a snapshot). */
  quick() {
    const { bytes, text } = this.first;
    return this.Planner.fromBytes(bytes ?? new TextEncoder().encode(text), Date.now());
  }

  started(planner, info) {
    this.info = info;
  }

  /** Builds the live planner from the first state (once), and applies what came meanwhile. */
  prepare() {
    if (this.current || !this.first) return;
    const { bytes, text } = this.first;
    this.first = null;
    this.current = this.guard(() => this.Planner.fromLive(text ?? new TextDecoder().decode(bytes), Date.now()));
    const early = this.early;
    this.early = [];
    if (!early.every((data) => this.change(data))) this.feed.resync('a change could not be applied');
  }

  /**
   * A change event's data, applied at once: { news } (whether the core calls it news; a change
   * before the first state is read counts as news), or null when it cannot be applied (the
   * stream is read anew).
   */
  change(data) {
    if (!this.current) {
      this.early.push(data);
      return { news: true };
    }
    try {
      return { news: this.guard(() => this.current.applyChange(data)) };
    } catch (e) {
      this.failed = e;
      return null;
    }
  }

  /** A fresh full state: a new live planner, continuing the frames of the one it replaces. */
  snapshot(text) {
    try {
      this.prepare();
      const next = this.guard(() => this.Planner.fromLive(text, Date.now()));
      if (this.current) this.guard(() => next.resyncFrom(this.current));
      if (this.current && !this.currentShown) this.current.free();
      this.current = next;
      this.currentShown = false;
    } catch (e) {
      this.broken = e;
    }
  }

  /** The state shown as a snapshot file (`shown`: the planner shown, live once it took over). */
  save(shown, now) {
    if (shown.revisions() === undefined) this.prepare();
    const p = shown.revisions() === undefined ? this.current : shown;
    return this.guard(() => p.saveSnapshot(now));
  }

  close() {
    this.feed.close();
    if (!this.currentShown) this.current?.free();
    this.current = null;
  }
}

/**
 * Opens the stream of `source.url` and waits for its first full state: resolves to { live }.
 * `post` sends the page { live: { status | pending } }. A refused or failed start is tried again
 * by the feed until it succeeds (each try's status posted); only a feed closed meanwhile
 * (superseded) rejects.
 */
export async function openLive(source, post, { Planner, infoOf, guard }) {
  const live = new LiveJob({ Planner, infoOf, guard });
  live.feed = new LiveFeed(source.url, (m) => post({ live: m }), live);
  try {
    live.first = await live.feed.first;
  } catch (e) {
    live.feed.close();
    throw e;
  }
  live.shown = live.feed.lastId;
  return { live };
}

/**
 * The next frame of `live` on `planner` (the one shown): { planner (the one to show now: the
 * live one), info, first (the first frame: nothing applied), describe(result) → what the page's
 * live state takes: revisions, timeline rows, the point of the figures chart, the refusal or
 * resync }. The caller frees the planner no longer shown.
 */
export function liveFrame(live, planner, now) {
  if (live.fresh) {
    live.fresh = false;
    const f = { revisions: live.shown, rows: [], applyMs: 0 };
    const batch = { received: 0, lastChangeMs: live.feed.lastChangeMs };
    return { planner, info: live.info, first: true, describe: describe(f, batch, live.guard(() => planner.freshness(batch.lastChangeMs)), planner.lastWritten()) };
  }
  const broken = live.broken;
  live.broken = null;
  if (broken) throw broken;
  live.prepare();
  const p = live.current;
  if (!p) throw Object.assign(new Error('the live job\'s first state could not be read'), { code: 'not_live' });
  const batch = live.feed.take();
  const f = { revisions: live.shown, rows: [], applyMs: 0, refused: null, resync: live.failed };
  live.failed = null;
  const t0 = performance.now();
  try {
    const next = live.guard(() => p.nextFrame(now));
    f.rows = next.rows;
    f.revisions = live.shown = next.revisions;
  } catch (e) {
    if (e?.trapped) throw e;
    f.refused = e;
  }
  f.applyMs = performance.now() - t0;
  live.currentShown = true;
  return { planner: p, info: live.guard(() => live.infoOf(p)), first: false, describe: describe(f, batch, live.guard(() => p.freshness(batch.lastChangeMs)), p.lastWritten()) };
}

/**
 * `freshness`: the core's staleness rule at the frame's last change (from when it is stale);
 * `written`: the store's time of the newest write the fleet shows (what "last change" says).
 */
function describe(f, batch, freshness, written) {
  return (result) => ({
    revisions: f.revisions,
    rows: f.rows,
    point: result.moment,
    received: batch.received,
    applyMs: f.applyMs,
    lastChangeMs: batch.lastChangeMs,
    lastWrittenMs: written ?? null,
    freshness,
    refused: errorFields(f.refused),
    resync: errorFields(f.resync),
  });
}
