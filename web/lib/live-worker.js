// The worker's half of a live job: the stream (LiveFeed) and its frames (LiveFrames), joined for
// worker.js's `load` (source { kind: 'live', url }) and `liveNext` requests.
import { LiveFeed } from './live-feed.js';
import { LiveFrames } from './live-frame.js';
import { figuresPoint } from './live-events.js';

function errorFields(e) {
  return e && { message: e.message || String(e), code: e.code || 'invalid_value', bucket: e.bucket, key: e.key, path: e.path };
}

/** A followed job: its feed and frames. */
class LiveJob {
  constructor(feed, frames) {
    this.feed = feed;
    this.frames = frames;
  }

  started(planner, info) {
    this.frames.started(planner, info);
  }

  close() {
    this.feed.close();
  }
}

/**
 * Opens the stream of `source.url` and waits for its first full state: resolves to { live, text }
 * (the state's text, for Planner.fromLive). `post` sends the page { live: { status | pending } }.
 */
export async function openLive(source, post, { Planner, infoOf, guard }) {
  const feed = new LiveFeed(source.url, (m) => post({ live: m }));
  let text;
  try {
    text = await feed.first;
  } catch (e) {
    feed.close();
    throw e;
  }
  const frames = new LiveFrames({ fromLive: (t, now) => Planner.fromLive(t, now), infoOf, guard });
  return { live: new LiveJob(feed, frames), text };
}

/**
 * The next frame of `live` on `planner`: { planner (a new one after a full state), info,
 * describe(result) → what the page's live state takes: revisions, timeline rows, the point of
 * the figures chart, the refusal or resync }.
 */
export function liveFrame(live, planner, now) {
  const batch = live.feed.take();
  const f = live.frames.advance(planner, batch, now);
  if (f.resync) live.feed.resync(`a change could not be applied (${f.resync.message})`);
  return {
    planner: f.planner,
    info: f.info,
    describe: (result) => ({
      revisions: f.revisions,
      rows: f.rows,
      point: figuresPoint(result.baseline ?? result.view),
      received: batch.received,
      lastChangeMs: batch.lastChangeMs,
      refused: errorFields(f.refused),
      resync: errorFields(f.resync),
    }),
  };
}
