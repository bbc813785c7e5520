// What happened between two frames of a live job, as timeline rows (run in the worker): members
// joined, left or changed caps and the leader changed (two FleetInfo compared), splits claimed,
// completed and quarantined (the changed keys against the splits as last seen), assignments
// published. Each row: { kind, text, names }; a row names at most MAX_NAMES, then counts. No DOM.

export const MAX_NAMES = 8;

/** "a, b, c and 5 more" */
export function namesText(names) {
  const shown = names.slice(0, MAX_NAMES).join(', ');
  return names.length > MAX_NAMES ? `${shown} and ${names.length - MAX_NAMES} more` : shown;
}

function row(kind, verb, names) {
  const what = names.length === 1 ? '' : `${names.length} `;
  return { kind, text: `${what}${verb}: ${namesText(names)}`, names: names.slice(0, MAX_NAMES) };
}

function capText(cap) {
  return cap === null || cap === undefined ? 'no cap of its own' : `cap ${cap}`;
}

/** Members joined and left, caps changed, the leader and the plan generation changed. */
export function fleetRows(prev, info) {
  if (!prev) return [];
  const before = new Map(prev.members.map((m) => [m.name, m]));
  const after = new Set(info.members.map((m) => m.name));
  const joined = info.members.filter((m) => !before.has(m.name)).map((m) => m.name);
  const left = prev.members.filter((m) => !after.has(m.name)).map((m) => m.name);
  const caps = info.members.filter((m) => before.has(m.name) && before.get(m.name).max_in_flight !== m.max_in_flight)
    .map((m) => `${m.name} ${capText(before.get(m.name).max_in_flight)} → ${capText(m.max_in_flight)}`);
  const rows = [];
  if (joined.length) rows.push(row('joined', joined.length === 1 ? 'member joined' : 'members joined', joined));
  if (left.length) rows.push(row('left', left.length === 1 ? 'member left' : 'members left', left));
  if (caps.length) rows.push(row('cap', caps.length === 1 ? 'cap changed' : 'caps changed', caps));
  if (prev.leader !== info.leader) {
    rows.push({ kind: 'leader', text: `leader ${prev.leader ?? '(none)'} → ${info.leader ?? '(none)'}`, names: [info.leader].filter(Boolean) });
  }
  if (prev.plan_generation !== info.plan_generation) {
    rows.push({ kind: 'plan', text: `plan generation ${prev.plan_generation ?? '(none)'} → ${info.plan_generation ?? '(none)'}`, names: [] });
  }
  return rows;
}

const SPLIT = 'split.';
const ASSIGN = 'assign.';

/**
 * The splits as last seen (status of the progress record, owner of the lease), to tell a claim
 * from a renewal and a completion from a rewrite. Seeded from the core's split list, then kept
 * by the changes.
 */
export class SplitsView {
  /** lines: [{ id, status, lease_owner }] (Planner.findSplits). */
  constructor(lines = []) {
    this.splits = new Map(lines.map((l) => [l.id, { status: l.status, lease: l.lease_owner }]));
  }

  /** The view of Planner.splitStates() ({ ids, status, lease }: parallel arrays). */
  static of({ ids, status, lease }) {
    const view = new SplitsView();
    for (let i = 0; i < ids.length; i++) view.splits.set(ids[i], { status: status[i], lease: lease[i] });
    return view;
  }

  get(id) {
    let s = this.splits.get(id);
    if (!s) {
      s = { status: null, lease: null };
      this.splits.set(id, s);
    }
    return s;
  }

  /** Rows for the split changes of a burst ([{ meta }] as the buffer holds them); updates the view. */
  rows(changes) {
    const claimed = [];
    const completed = [];
    const quarantined = [];
    for (const { meta } of changes) {
      if (!meta.key.startsWith(SPLIT)) continue;
      const id = meta.key.slice(SPLIT.length);
      const value = meta.entry?.value;
      if (meta.bucket === 'lease') {
        if (meta.op !== 'put') {
          if (this.splits.has(id)) this.get(id).lease = null;
          continue;
        }
        const s = this.get(id);
        const owner = typeof value?.owner === 'string' ? value.owner : null;
        if (owner && owner !== s.lease) claimed.push(s.lease ? `${id} by ${owner} (from ${s.lease})` : `${id} by ${owner}`);
        s.lease = owner;
      } else if (meta.bucket === 'state') {
        if (meta.op !== 'put') {
          this.splits.delete(id);
          continue;
        }
        const s = this.get(id);
        const status = typeof value?.status === 'string' ? value.status : null;
        if (status === 'completed' && s.status !== 'completed') completed.push(id);
        if (status === 'quarantined' && s.status !== 'quarantined') quarantined.push(id);
        s.status = status;
      }
    }
    const rows = [];
    if (claimed.length) rows.push(row('claimed', claimed.length === 1 ? 'split claimed' : 'splits claimed', claimed));
    if (completed.length) rows.push(row('completed', completed.length === 1 ? 'split completed' : 'splits completed', completed));
    if (quarantined.length) rows.push(row('quarantined', quarantined.length === 1 ? 'split quarantined' : 'splits quarantined', quarantined));
    return rows;
  }
}

/** Assignments the leader published (or removed) in a burst. */
export function assignRows(changes) {
  const put = [];
  const gone = [];
  for (const { meta } of changes) {
    if (meta.bucket !== 'state' || !meta.key.startsWith(ASSIGN)) continue;
    (meta.op === 'put' ? put : gone).push(meta.key.slice(ASSIGN.length));
  }
  const rows = [];
  if (put.length) rows.push(row('published', put.length === 1 ? 'assignment published for' : 'assignments published for', put));
  if (gone.length) rows.push(row('published', gone.length === 1 ? 'assignment removed for' : 'assignments removed for', gone));
  return rows;
}

/** The plan's figures at a frame, for the chart over time (the leader's plan: no what-if). */
export function figuresPoint(view) {
  const r = view.report;
  return {
    members: r.members.length,
    maxOverMean: r.balance.max_over_mean,
    maxLoad: Number(r.balance.max_load),
    meanLoad: r.balance.mean_load,
    queued: r.counts.queued,
    moves: r.churn.moves,
    fromPublished: view.published ? view.published.changes : null,
    completed: r.counts.completed,
    quarantined: r.counts.quarantined,
  };
}
