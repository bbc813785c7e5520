// The worker's half of a replayed recording (`spate-planner replay`, or a recording file opened
// like a snapshot; docs/recording-format.md): the core's Replay (the live job at any moment, the
// same code that keeps a followed job current), the overview the Live tab draws over the
// recorded time, and each moment the page asks for, handed over as a planner of its own.

/** At most this many moments are planned for the Live tab's chart of the recorded time. */
export const REPLAY_POINTS = 240;

/** Uncompresses gzip bytes (a closed segment, .jsonl.gz) with the browser's own decompressor, within `max`. */
async function gunzip(bytes, max) {
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
  const reader = stream.getReader();
  const chunks = [];
  let got = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    got += value.length;
    if (got > max) {
      reader.cancel();
      throw Object.assign(new Error(`the recording is more than ${Math.round(max / 1048576)} MiB uncompressed; open one segment`), { code: 'too_large' });
    }
    chunks.push(value);
  }
  const out = new Uint8Array(got);
  let at = 0;
  for (const c of chunks) { out.set(c, at); at += c.length; }
  return out;
}

/** Whether `bytes` begin as a recording (only its head crosses into the module). */
function isRecording(Replay, bytes) {
  return Replay.isRecording(bytes.subarray(0, 64));
}

/** The recording's bytes when `input` ({ bytes } | { text }) is one (gzip or not), else null. */
export async function recordingBytes(input, Replay, max) {
  if (input.text !== undefined) {
    const head = new TextEncoder().encode(input.text.slice(0, 64));
    return isRecording(Replay, head) ? new TextEncoder().encode(input.text) : null;
  }
  let bytes = input.bytes;
  if (!bytes) return null;
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) {
    try {
      bytes = await gunzip(bytes, max);
    } catch (e) {
      if (e.code === 'too_large') throw e;
      throw Object.assign(new Error(`the file is compressed, but not readable gzip (${e.message})`), { code: 'not_json' });
    }
  }
  return isRecording(Replay, bytes) ? bytes : null;
}

function statusRows(statuses) {
  return statuses.map(([, status, message]) => ({ kind: 'status', text: `connection: ${status}${message ? ` (${message})` : ''}`, names: [] }));
}

/** No moment of the recording can be planned: the first stretch's error says why. */
function noMoment(span) {
  const e = new Error(`no moment of the recording can be planned: ${span?.message ?? 'it holds none'}`);
  return Object.assign(e, { code: span?.code ?? 'truncated', bucket: span?.bucket ?? undefined, key: span?.key ?? undefined, path: span?.path ?? undefined });
}

/** A recording open in the worker: the core's Replay and the moment the page shows. */
export class ReplayJob {
  constructor(Replay, bytes, guard) {
    this.guard = guard;
    this.replay = guard(() => Replay.fromBytes(bytes));
    this.info = guard(() => this.replay.info());
    this.shown = 0;
  }

  /** The job at moment `m`: { planner (its fleet, the caller's to free), frame (the core's ReplayFrame) }. */
  seek(m) {
    const frame = this.guard(() => this.replay.seek(m));
    const planner = this.guard(() => this.replay.takePlanner());
    this.shown = m;
    return { planner, frame };
  }

  /**
   * The Live tab's view of the whole recording: each sampled moment planned once (its figures,
   * the chart's points) and what happened up to it (the timeline's rows, newest first), then
   * the job at the first moment that can be planned: { planner, overview }. Moments whose job
   * holds a value the leader would refuse are skipped, as live mode and `watch` skip them, and
   * named (`overview.skipped`: the core's stretches, each with its error); only a recording
   * none of whose moments can be planned is refused, with the first stretch's error.
   */
  open() {
    const { steps, refused } = this.guard(() => this.replay.outline());
    const skipped = (m) => refused.some((s) => m >= s.first && m <= s.last);
    const points = [];
    const rows = [];
    for (const m of this.guard(() => this.replay.samples(REPLAY_POINTS))) {
      if (skipped(m)) continue; // its changes are told by the next moment planned
      let planner = null;
      try {
        const got = this.seek(m);
        planner = got.planner;
        const { moment } = this.guard(() => planner.analyse(''));
        const at = Number(got.frame.at_ms);
        points.push({ id: m, at, revisions: got.frame.revisions, ...moment });
        for (const r of [...statusRows(got.frame.statuses), ...got.frame.rows]) rows.unshift({ ...r, id: m, at, revisions: got.frame.revisions });
      } catch (e) {
        if (e?.trapped) throw e;
        // a moment that cannot be planned has no point
      } finally {
        planner?.free();
      }
    }
    if (!steps.length) throw noMoment(refused[0]);
    const first = this.seek(steps[0]);
    const moment = { ...this.momentOf(first.frame), rows: [] }; // nothing was shown before it
    return { planner: first.planner, overview: { info: this.info, points, rows, moment, steps, skipped: refused } };
  }

  /** What the page says of a moment. */
  momentOf(frame) {
    return {
      moment: frame.moment, at: Number(frame.at_ms), revisions: frame.revisions, line: frame.line, kind: frame.kind,
      rows: [...statusRows(frame.statuses), ...frame.rows],
    };
  }

  /**
   * The recording's incidents at moment `m`, newest first, as the live page showed them then
   * (the core walks the recording once with these settings; moving back reuses the walk).
   */
  incidents(m, scenario) {
    return this.guard(() => this.replay.incidents(m, scenario, undefined));
  }

  /** The job at the moment shown as a snapshot file taken then (what `spate-planner snapshot` would have written). */
  save() {
    return this.guard(() => this.replay.saveSnapshot(this.shown));
  }

  close() {
    this.replay?.free();
    this.replay = null;
  }
}
