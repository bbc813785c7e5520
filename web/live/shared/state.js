// The `live` field of the page's state, and the pure steps that make the next one: a frame
// (timeline rows — the core's events of the frame —, a point of the figures chart, a plan view
// kept for that point), a connection status, a pause. Everything is bounded: a page left open for days holds at most MAX_ROWS rows,
// MAX_POINTS points and MAX_HISTORY plan views. No DOM.

export const MAX_ROWS = 400;
export const MAX_POINTS = 480;
export const MAX_HISTORY = 40;

/** A moment as `12:00:01` (UTC). */
export function clock(ms) {
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? '' : d.toISOString().slice(11, 19);
}

/** `live` with `rows` (newest first) as its timeline: the newest MAX_ROWS kept, the rest counted. */
function withRows(live, rows) {
  const dropped = rows.slice(MAX_ROWS);
  if (!dropped.length) return { ...live, rows };
  return {
    ...live,
    rows: rows.slice(0, MAX_ROWS),
    rowsDropped: (live.rowsDropped ?? 0) + dropped.length,
    droppedThrough: Math.max(live.droppedThrough ?? dropped[0].id, dropped[0].id),
  };
}

/**
 * What happened at the point `id`, in words: the rows of its frame, and whether some of them are
 * no longer kept (the timeline keeps the newest MAX_ROWS rows).
 */
export function happenedAt(live, id) {
  const happened = live.rows.filter((r) => r.id === id).map((r) => r.text);
  const lost = live.droppedThrough !== null && live.droppedThrough !== undefined && id <= live.droppedThrough;
  if (happened.length) return `Then: ${happened.join('; ')}${lost ? '; and more, no longer kept' : ''}.`;
  if (lost) return `What changed in the store at this moment is no longer kept (the timeline keeps the newest ${MAX_ROWS} events).`;
  return 'Nothing new in the store at this moment (a replan only).';
}

/** The live state before the first frame. */
export function initialLive(job, url) {
  return {
    job,
    url,
    /** The connection: connecting | live | reconnecting | error (and the server's words). */
    conn: 'connecting',
    connMessage: '',
    /** Why the job's recording stopped (serve --record), or '' while it records or there is none. */
    recording: '',
    paused: false,
    /** Changes received and not shown yet (paused, or a frame under way). */
    waiting: 0,
    /** Revisions "S-L" of the state shown. */
    revisions: '',
    /** Page time of the last change received (ms since the epoch), and the lease TTL (ms). */
    lastChangeMs: 0,
    ttlMs: 0,
    /**
     * The core's staleness rule (`Planner.freshness`): the job is stale from just after
     * `staleAfterMs` (its last change plus the lease TTL; null: never) if no change comes; `stale`
     * is set once the page's clock passes it.
     */
    staleAfterMs: null,
    stale: false,
    /** Newest first: { id, at, revisions, kind, text, names }. */
    rows: [],
    /** Rows no longer kept (past MAX_ROWS), and the newest frame id among them (null: none). */
    rowsDropped: 0,
    droppedThrough: null,
    /** Oldest first: { id, at, revisions, ...figures } (the core's MomentFigures: Planner.analyse's `moment`). */
    points: [],
    /** Newest last: { id, view } (the plan of the point `id`, slimmed). */
    history: [],
    /** The point whose plan is shown under the chart (null: the newest). */
    selected: null,
    /** The next frame's number. */
    nextId: 1,
    /** The job picker: the server's jobs (GET /api/jobs), or null when a job is followed. */
    jobs: null,
  };
}

/**
 * Keeps at most `max` points: past it, every second point of the older half goes (the recent
 * past stays fine, the distant past coarser). Points named in `keep` stay.
 */
export function thin(points, max = MAX_POINTS, keep = null) {
  if (points.length <= max) return points;
  const half = Math.floor(points.length / 2);
  const older = points.slice(0, half).filter((p, i) => i % 2 === 0 || p.id === keep);
  return [...older, ...points.slice(half)];
}

/** A plan view without what a past moment does not need (the queue's ids, the warnings). */
export function slimView(view) {
  const { queue, ...report } = view.report;
  return { ...view, warnings: [], report: { ...report, queue: [], queued_ids: queue.length } };
}

/**
 * The live state after a frame. `frame`: the worker's { revisions, rows, point, lastChangeMs,
 * freshness }; `view`: the leader's plan of the frame; `now`: page time.
 */
export function withFrame(live, frame, view, now) {
  const fresh = frame.freshness;
  const id = live.nextId;
  const stamp = (r) => ({ ...r, id, at: now, revisions: frame.revisions });
  const rows = frame.rows.length ? [...frame.rows.map(stamp).reverse(), ...live.rows] : live.rows;
  const points = thin([...live.points, { id, at: now, revisions: frame.revisions, ...frame.point }], MAX_POINTS, live.selected);
  const history = [...live.history, { id, view: slimView(view) }].slice(-MAX_HISTORY);
  return {
    ...withRows(live, rows),
    nextId: id + 1,
    revisions: frame.revisions,
    lastChangeMs: Number(fresh.last_change_ms),
    /** The store's time of the newest write shown (null: unknown). */
    lastWrittenMs: frame.lastWrittenMs ?? null,
    ttlMs: Number(fresh.lease_ttl_ms),
    staleAfterMs: fresh.stale_after_ms === null ? null : Number(fresh.stale_after_ms),
    stale: false,
    waiting: 0,
    /** The worker's time applying the last frame's changes (ms). */
    applyMs: frame.applyMs ?? 0,
    points,
    history,
    conn: live.conn === 'connecting' ? 'live' : live.conn,
  };
}

/** A row of the timeline that is not a frame's (the connection's news). */
export function withRow(live, row, now) {
  return withRows(live, [{ ...row, id: live.nextId - 1, at: now, revisions: live.revisions, names: [] }, ...live.rows]);
}

/** The connection's status from the stream ({ status, message }); a change is a timeline row. */
export function withStatus(live, s, now) {
  const recording = s.recording ?? live.recording;
  if (s.status === live.conn && s.message === live.connMessage && recording === live.recording) return live;
  const next = { ...live, conn: s.status, connMessage: s.message, recording };
  if (recording !== live.recording) return withRow(next, { kind: 'status', text: recording }, now);
  const text = s.status === 'live' ? 'connection: live' : `connection: ${s.status}${s.message ? ` (${s.message})` : ''}`;
  return withRow(next, { kind: 'status', text }, now);
}

/** Whether the page's clock `now` is past the core's deadline: the job is stale. */
export function isStale(live, now) {
  return live.staleAfterMs !== null && now > live.staleAfterMs;
}

/** What the status badge says: replay | paused | error | reconnecting | connecting | stale | live. */
export function liveStatus(live) {
  if (!live) return null;
  if (live.replay) return 'replay';
  if (live.paused) return 'paused';
  if (live.conn !== 'live') return live.conn;
  return live.stale ? 'stale' : 'live';
}

/** The plan view kept for point `id` (null when it is no longer kept). */
export function viewAt(live, id) {
  return live.history.find((h) => h.id === id)?.view ?? null;
}

/** The point of the chart at or before moment `m` (the nearest sampled moment not after it). */
export function pointAt(points, m) {
  let best = null;
  for (const p of points) if (p.id <= m) best = p.id;
  return best ?? points[0]?.id ?? null;
}

/**
 * The live state of a replayed recording (`overview`: the worker's { info, points, rows,
 * moment }; `name`: the file's). Its timeline and chart cover the whole recorded time; `moment`
 * is the one shown.
 */
export function replayLive(overview, name) {
  const i = overview.info;
  const live = {
    ...initialLive(i.job, null),
    conn: 'replay',
    replay: {
      name, moments: i.moments, segments: i.segments, startMs: Number(i.start_ms), endMs: Number(i.end_ms),
      warnings: i.warnings, server: i.source.server || '',
      /** The stretches of moments that cannot be planned (skipped: never stepped to). */
      skipped: overview.skipped ?? [],
      /** The moments the replay bar steps to (the core's: renewals folded), in order. */
      steps: overview.steps,
    },
    points: overview.points,
    nextId: i.moments,
  };
  return withMoment(withRows(live, overview.rows), overview.moment);
}

/**
 * The stretches of a recording that cannot be planned (the core's `Replay.outline().refused`),
 * said for the page: "moments 2–5 (2026-12-05 18:03:23.934 UTC to …) could not be planned:
 * wrong_schema at spate_coordination_j_state/plan; skipped". Moments are counted from 1, as
 * the replay bar counts them.
 */
export function skippedText(skipped) {
  return skipped.map((s) => {
    const moments = s.first === s.last ? `moment ${s.first + 1} (${instant(Number(s.first_ms))})`
      : `moments ${s.first + 1}–${s.last + 1} (${instant(Number(s.first_ms))} to ${instant(Number(s.last_ms))})`;
    const where = s.bucket && s.key ? ` at ${s.bucket}/${s.key}` : '';
    return `${moments} could not be planned: ${s.code}${where}; skipped`;
  }).join('; ');
}

/** The index in `steps` (ascending moments) of the last step at or before moment `m` (0 before the first). */
export function stepAt(steps, m) {
  let lo = 0;
  let hi = steps.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (steps[mid] <= m) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** The step after (`by` > 0) or before (`by` < 0) moment `m`, or `m` when there is none. */
export function stepFrom(steps, m, by) {
  if (by > 0) return steps.find((s) => s > m) ?? m;
  for (let k = steps.length - 1; k >= 0; k--) if (steps[k] < m) return steps[k];
  return m;
}

/** The replay state at another moment (the worker's { moment, at, revisions, line, kind, rows }). */
export function withMoment(live, m) {
  return {
    ...live,
    moment: m.moment,
    at: m.at,
    line: m.line,
    kind: m.kind,
    revisions: m.revisions,
    lastChangeMs: m.at,
    /** What happened since the moment shown before (the core's events of the frame). */
    sinceRows: m.rows,
    selected: pointAt(live.points, m.moment),
  };
}

/** A moment to the millisecond as the core writes one (utc_millis_text): `2026-12-05 18:03:23.934 UTC`. */
export function instant(ms) {
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? '' : d.toISOString().replace('T', ' ').replace('Z', ' UTC');
}
