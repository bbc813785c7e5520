// The worker's half of a live job: the stream (LiveFeed) and its frames (LiveFrames), joined for
// worker.js's `load` (source { kind: 'live', url }), `liveNext` and `liveSave` requests.
//
// The first state is shown from a snapshot planner (Planner.fromBytes of the fetched bytes, or of
// the stream's first event, read as taken now: the same fleet as Planner.fromLive would join
// now, sooner); the live planner, which can apply changes, is built from the same state right
// after the first frame is sent, and takes over at the next frame.
import { LiveFeed } from './feed.js';
import { LiveFrames } from './frame.js';
import { figuresPoint } from './events.js';

function errorFields(e) {
  return e && { message: e.message || String(e), code: e.code || 'invalid_value', bucket: e.bucket, key: e.key, path: e.path };
}

/** A followed job: its feed, its frames, and the live planner until it takes over. */
class LiveJob {
  constructor(feed, frames, { Planner, guard }, first, id) {
    this.feed = feed;
    this.frames = frames;
    this.Planner = Planner;
    this.guard = guard;
    /** The first state ({ bytes } or { text }) and its id, until the live planner is built from it. */
    this.first = first;
    this.firstId = id;
    /** The live planner built, not yet shown. */
    this.built = null;
    this.fresh = true;
  }

  /** The planner of the first frame (the first state, read as a snapshot). */
  quick() {
    const { bytes, text } = this.first;
    return this.Planner.fromBytes(bytes ?? new TextEncoder().encode(text), Date.now());
  }

  started(planner, info) {
    this.frames.started(planner, info, this.firstId);
  }

  /** Builds the live planner from the first state (once). */
  prepare() {
    if (!this.first) return;
    const { bytes, text } = this.first;
    this.first = null;
    this.built = this.guard(() => this.Planner.fromLive(text ?? new TextDecoder().decode(bytes), Date.now()));
  }

  /** The planner the next frame starts from: the live one once built (it holds the same state as `shown`). */
  base(shown) {
    this.prepare();
    const b = this.built;
    this.built = null;
    return b ?? shown;
  }

  /** The state shown as a snapshot file. */
  save(shown, now) {
    this.prepare();
    return this.guard(() => (this.built ?? shown).saveSnapshot(now));
  }

  close() {
    this.feed.close();
    this.built?.free();
    this.built = null;
  }
}

/**
 * Opens the stream of `source.url` and waits for its first full state: resolves to { live }.
 * `post` sends the page { live: { status | pending } }.
 */
export async function openLive(source, post, { Planner, infoOf, guard }) {
  const feed = new LiveFeed(source.url, (m) => post({ live: m }));
  let first;
  try {
    first = await feed.first;
  } catch (e) {
    feed.close();
    throw e;
  }
  const frames = new LiveFrames({ fromLive: (t, now) => Planner.fromLive(t, now), infoOf, guard });
  return { live: new LiveJob(feed, frames, { Planner, guard }, first, feed.lastId) };
}

/**
 * The next frame of `live` on `planner` (the one shown): { planner (the one to show now: the
 * live one, or a new one after a full state), info, first (the first frame: nothing applied),
 * describe(result) → what the page's live state takes: revisions, timeline rows, the point of
 * the figures chart, the refusal or resync }. The planner no longer shown is freed here, but
 * for `planner` (the caller's).
 */
export function liveFrame(live, planner, now) {
  if (live.fresh) {
    live.fresh = false;
    const f = { revisions: live.frames.shown, rows: [], applyMs: 0 };
    return { planner, info: live.frames.info, first: true, describe: describe(f, { received: 0, lastChangeMs: live.feed.lastChangeMs }) };
  }
  const base = live.base(planner);
  const batch = live.feed.take();
  const f = live.frames.advance(base, batch, now);
  if (base !== planner && f.planner !== base) base.free();
  if (f.resync) live.feed.resync(`a change could not be applied (${f.resync.message})`);
  return { planner: f.planner, info: f.info, first: false, describe: describe(f, batch) };
}

function describe(f, batch) {
  return (result) => ({
    revisions: f.revisions,
    rows: f.rows,
    point: figuresPoint(result.baseline ?? result.view),
    received: batch.received,
    applyMs: f.applyMs,
    lastChangeMs: batch.lastChangeMs,
    refused: errorFields(f.refused),
    resync: errorFields(f.resync),
  });
}
