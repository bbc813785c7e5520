// The live stream's events not yet applied (in the worker): a full state, and the changes after
// it, coalesced by key so that a burst, or a long pause, holds at most one change per key (the
// memory is bounded by the job's size, not by the time). No DOM, no wasm.

/** What the page needs of a change event's data: { bucket, op, key, revision, entry }. */
export function changeMeta(data) {
  let c;
  try {
    c = JSON.parse(data);
  } catch {
    return null;
  }
  if (!c || typeof c !== 'object') return null;
  const key = c.op === 'put' ? c.entry?.key : c.key;
  const revision = c.op === 'put' ? c.entry?.revision : c.revision;
  if (typeof c.bucket !== 'string' || typeof c.op !== 'string' || typeof key !== 'string') return null;
  return { bucket: c.bucket, op: c.op, key, revision, entry: c.op === 'put' ? c.entry : null };
}

/**
 * The one change that stands for `older` followed by `newer` (same bucket and key). A put,
 * delete or purge replaces what came before; an expire removes the key only if the entry held
 * is at its revision, so after a put at that revision it is a delete, and after anything else
 * it does nothing (the older change stands).
 */
export function coalesce(older, newer) {
  if (newer.meta.op !== 'expire') return newer;
  if (older.meta.op === 'put' && older.meta.revision === newer.meta.revision) {
    const { bucket, key, revision } = newer.meta;
    return { data: JSON.stringify({ bucket, op: 'delete', key, revision }), meta: { ...newer.meta, op: 'delete' } };
  }
  return older;
}

export class ChangeBuffer {
  constructor() {
    this.reset();
  }

  reset() {
    /** The last full state received: { text, id } or null. */
    this.snapshot = null;
    /** bucket + key → { data, meta }, in the order of their last change. */
    this.changes = new Map();
    /** Events received since the last take (for the page's "n changes waiting"). */
    this.received = 0;
  }

  /** A full state: everything before it is replaced. */
  putSnapshot(text, id) {
    this.snapshot = { text, id };
    this.changes.clear();
    this.received++;
  }

  /** A change event's data; false when it cannot be read (the stream must be read again). */
  putChange(data) {
    const meta = changeMeta(data);
    if (!meta) return false;
    const slot = `${meta.bucket}\u0000${meta.key}`;
    const held = this.changes.get(slot);
    this.changes.delete(slot);
    this.changes.set(slot, held ? coalesce(held, { data, meta }) : { data, meta });
    this.received++;
    return true;
  }

  get empty() {
    return !this.snapshot && this.changes.size === 0;
  }

  /** Takes what is held: { snapshot, changes: [{ data, meta }], received } and empties it. */
  take() {
    const out = { snapshot: this.snapshot, changes: [...this.changes.values()], received: this.received };
    this.reset();
    return out;
  }
}
