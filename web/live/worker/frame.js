// One frame of a live job, in the worker: what arrived since the last frame is applied to the
// planner at once (a full state read anew, then the changes, only the changed keys parsed), the
// fleet joined once, and what happened described as timeline rows. The page shows the frame's
// info and plan together, so it never shows one fleet while planning another.
import { SplitsView, fleetRows, assignRows } from './events.js';

export class LiveFrames {
  /** fromLive(text, nowMs) → Planner; infoOf(planner) → FleetInfo; guard(fn) runs a call into the module. */
  constructor({ fromLive, infoOf, guard }) {
    this.fromLive = fromLive;
    this.infoOf = infoOf;
    this.guard = guard;
    this.info = null;
    this.splits = null;
    /** The revisions of the fleet planned (a refused value keeps the last one that could be read). */
    this.shown = null;
  }

  /** The first state (the stream's first event, whose id is `id`) and its info. */
  started(planner, info, id) {
    this.info = info;
    this.splits = null;
    this.shown = id ?? planner.revisions();
  }

  /** The splits as the planner holds them now (once per full state: the first frame after it). */
  seed(planner) {
    if (!this.splits) this.splits = SplitsView.of(this.guard(() => planner.splitStates()));
  }

  /**
   * Applies `batch` (LiveFeed.take()) to `planner`; returns { planner, info, rows, refused,
   * resync, revisions, applyMs (applying and joining the changes) }. `planner` is a new one after a full state (the caller frees the old);
   * `refused`: the error of a value the leader would refuse (the fleet is then the last one
   * that could be read); `resync`: a change could not be applied, the stream must be read anew.
   */
  advance(planner, batch, now) {
    const rows = [];
    let p = planner;
    if (batch.snapshot) {
      p = this.guard(() => this.fromLive(batch.snapshot.text, now));
      this.splits = null;
      this.shown = p.revisions();
      rows.push({ kind: 'resync', text: `the whole state was read again (revisions ${this.shown})`, names: [] });
    }
    let refused = null;
    let resync = null;
    let applyMs = 0;
    if (batch.changes.length) {
      this.seed(p);
      const t0 = performance.now();
      const failed = this.apply(p, batch.changes, now);
      applyMs = performance.now() - t0;
      if (failed?.refused) refused = failed.error;
      else if (failed) resync = failed.error;
      else this.shown = p.revisions();
      if (!resync) rows.push(...this.splits.rows(batch.changes), ...assignRows(batch.changes));
    }
    const info = this.guard(() => this.infoOf(p));
    rows.unshift(...fleetRows(this.info, info));
    this.info = info;
    return { planner: p, info, rows, refused, resync, revisions: this.shown, applyMs };
  }

  /**
   * Applies changes; null when they apply, else { error, refused }. Either way the planner's
   * fleet stays the one last joined. refused: every change applied but the state holds a value
   * the leader would refuse (the error names its key; a later change of it can mend it); else a
   * change itself could not be read (no key, or the entry line at fault), and the job must be
   * read anew.
   */
  apply(p, changes, now) {
    try {
      this.guard(() => p.applyChanges(changes.map((c) => c.data), now));
      return null;
    } catch (error) {
      if (error?.trapped) throw error;
      const refused = Boolean(error?.key) && !String(error.path || '').startsWith('entry');
      return { error, refused };
    }
  }
}
