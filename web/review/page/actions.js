// The controller's actions for design reviews: a sweep on top of the plan shown, an earlier
// ("before") snapshot and its comparison with the one shown, and the review document. The
// controller makes them (`controller.review`) and hands them its commit to the store, the only
// way these change the review's part of the state; views call them. A sweep follows the plan
// shown (planned again, in the worker, when the scenario or the snapshot changes) and a
// comparison follows the snapshot shown; a newer request wins.
import { humanBytes, plural } from '../../common/shared/format.js';

/** The sweep shown was made on the plan shown. */
export function sweepIsCurrent(state) {
  return Boolean(state.sweep && state.result && state.sweep.text === state.result.text && state.sweep.generation === state.generation);
}

/** The rules the scenario shown picks (null: each store's own). */
const rulesOf = (state) => state.scenario?.rules ?? null;

/** The comparison shown is of the snapshot shown, by the rules picked. */
export function comparisonIsCurrent(state) {
  return Boolean(state.comparison && state.before && state.comparison.before === state.before.id && state.comparison.generation === state.generation
    && state.comparison.rules === rulesOf(state));
}

/** The two releases' plans shown are of the plan shown. */
export function rulesDiffIsCurrent(state) {
  return Boolean(state.rulesDiff && state.result && state.rulesDiff.text === state.result.text && state.rulesDiff.generation === state.generation);
}

/** The URL a snapshot was read from (for the link), or null for a file, text or the demo. */
function urlOf(source) {
  return source?.kind === 'url' ? source.url : null;
}

export class ReviewActions {
  /** controller: the page's (shell/page/controller.js); commit(patch): its update of the store. */
  constructor(controller, commit) {
    this.controller = controller;
    this.commit = commit;
    this.store = controller.store;
    this.sweepSeq = 0;
    this.beforeSeq = 0;
    this.compareSeq = 0;
    this.rulesSeq = 0;
    // after the commit has reached every view (an update inside another's dispatch would let
    // the views see the newer state before the older one)
    this.onChange = (e) => queueMicrotask(() => this.follow(e.detail.state, e.detail.prev));
    this.store.addEventListener('change', this.onChange);
  }

  get state() { return this.store.state; }

  get client() { return this.controller.client; }

  /** Runs an action; a failure becomes the page's message (titled `title`). */
  run(promise, title) {
    return this.controller.run(promise, title);
  }

  /** After every commit: the sweep follows the plan shown, the comparison the snapshot shown. */
  follow(state, prev) {
    if (state.result && state.result !== prev.result) {
      // a sweep under way was asked for on the plan before; the one shown may be of it too
      const params = state.sweepRun?.params ?? (state.sweep && !sweepIsCurrent(state) ? state.sweep.params : null);
      if (params) this.run(this.sweep(params), 'The sweep could not be planned again');
    }
    const rulesChanged = rulesOf(state) !== rulesOf(prev) && state.result !== prev.result;
    if (state.before && (state.generation !== prev.generation || rulesChanged)) this.run(this.compare(), 'The snapshots could not be compared');
  }

  // ------------------------------------------------------------------ sweep

  /**
   * Plans the sweep `params` ({ axis, from, to, cap }) on top of the plan shown, one step at a
   * time in the worker; a newer sweep (or scenario, or snapshot) supersedes it.
   */
  async sweep(params) {
    const s = this.state;
    if (!s.result) return;
    const seq = ++this.sweepSeq;
    const total = params.to - params.from + 1;
    this.commit({ sweepRun: { params, done: 0, total } });
    const progress = ({ got }) => { if (seq === this.sweepSeq) this.commit({ sweepRun: { params, done: got, total } }); };
    const t0 = performance.now();
    try {
      const steps = await this.client.call('sweep', { generation: s.generation, text: s.result.text, ...params, token: seq }, progress);
      if (seq !== this.sweepSeq) return;
      const ms = performance.now() - t0;
      this.commit({
        sweep: { params, steps, text: s.result.text, generation: s.generation, ms }, sweepRun: null,
        status: `Sweep: ${plural(steps.length, 'step')} planned in ${Math.round(ms)} ms.`,
      });
    } catch (e) {
      if (seq === this.sweepSeq) this.commit({ sweepRun: null });
      throw e;
    }
  }

  /** The Sweep tab's targets (its form's), which its verdict and the review document's measure against. */
  setTargets(targets) {
    const t = this.state.sweepTargets;
    if (t && targets && t.maxOverMean === targets.maxOverMean && t.maxQueued === targets.maxQueued) return;
    this.commit({ sweepTargets: targets });
  }

  // ------------------------------------------------------------------ the earlier snapshot

  /** Reads `source` (as the header's loads do) as the earlier snapshot; true once it is the one shown. */
  async loadBefore(source, label) {
    const id = ++this.beforeSeq;
    this.commit({ beforeLoading: { label, text: `loading ${label}…`, fraction: 0 } });
    const progress = ({ got, total }) => {
      if (id !== this.beforeSeq) return;
      const text = got < 0 ? `parsing ${label}…` : `reading ${label}: ${humanBytes(got)}${total ? ` of ${humanBytes(total)}` : ''}`;
      this.commit({ beforeLoading: { label, text, fraction: got < 0 ? 1 : total ? got / total : 0.5 } });
    };
    try {
      const info = await this.client.call('loadBefore', { source, before: id }, progress);
      if (id !== this.beforeSeq) return;
      this.client.lastBefore = { source, before: id };
      this.commit({
        before: { id, info, label, kept: false, generation: null, url: urlOf(source) }, beforeLoading: null, comparison: null, linkBefore: null,
        status: `Earlier snapshot: ${label}, job ${info.job}, ${plural(info.members.length, 'member')}, ${plural(info.splits, 'split')}.`,
      });
      return true;
    } catch (e) {
      if (id !== this.beforeSeq) return;
      this.commit({ beforeLoading: null });
      throw Object.assign(e, { message: `${label}: ${e.message}` });
    }
  }

  /** Reads a file as the earlier snapshot and compares; every failure becomes the page's message. */
  async loadBeforeFile(file) {
    const loaded = await this.run(this.loadBefore({ kind: 'file', file }, file.name), 'The earlier snapshot could not be loaded; the comparison shown is unchanged');
    if (loaded) await this.run(this.compare(), 'The snapshots could not be compared');
  }

  /** The snapshot shown becomes the earlier one; the next snapshot opened is compared with it. */
  async keepBefore() {
    const s = this.state;
    const id = ++this.beforeSeq;
    const info = await this.client.call('keepBefore', { generation: s.generation, before: id });
    if (id !== this.beforeSeq) return;
    this.client.lastBefore = { source: this.client.lastLoad.source, before: id };
    this.commit({
      before: { id, info, label: s.source.label, kept: true, generation: s.generation, url: urlOf(this.client.lastLoad.source) }, comparison: null, linkBefore: null,
      status: `Kept ${s.source.label} as the earlier snapshot: open the later one to compare.`,
    });
  }

  /**
   * A link's earlier snapshot ({ id, url }): read again from its URL (this origin only) and
   * compared; without a URL (a file was opened) the Compare tab asks for it (`linkBefore`).
   */
  async fromLink(before) {
    const url = before.url ? new URL(before.url, document.baseURI) : null;
    if (!url || url.origin !== location.origin) {
      this.commit({ linkBefore: { id: before.id, url: url && url.href } });
      return;
    }
    const label = url.pathname.split('/').pop() || url.pathname;
    const loaded = await this.run(this.loadBefore({ kind: 'url', url: url.href }, label), "The link's earlier snapshot could not be read; nothing is compared");
    if (!loaded) { this.commit({ linkBefore: { id: before.id, url: null } }); return; }
    await this.run(this.compare(), 'The snapshots could not be compared');
  }

  async forgetBefore() {
    ++this.beforeSeq;
    this.client.lastBefore = null;
    this.commit({ before: null, comparison: null, beforeLoading: null, linkBefore: null, status: 'No earlier snapshot: nothing is compared.' });
    await this.client.call('forgetBefore', {});
  }

  /**
   * Compares the earlier snapshot with the one shown (none while they are the same load), both
   * planned by the rules the scenario picks, else each by its store's (`spate-planner diff --rules`).
   */
  async compare() {
    const s = this.state;
    if (!s.before || !s.info || s.before.generation === s.generation) return;
    const seq = ++this.compareSeq;
    const rules = rulesOf(s);
    const diff = await this.client.call('compare', { generation: s.generation, before: s.before.id, text: s.result?.text ?? '' });
    const now = this.state;
    if (seq !== this.compareSeq || now.generation !== s.generation || now.before?.id !== s.before.id || rulesOf(now) !== rules) return;
    const verdict = !diff.decision.published ? 'no published assignment to check'
      : diff.decision.matches ? 'the later published assignment is what the planner decided'
        : `the later published assignment differs for ${plural(Object.keys(diff.decision.differences).length, 'split')}`;
    this.commit({
      comparison: { before: s.before.id, generation: s.generation, rules, diff },
      status: `Compared with ${s.before.label}: ${plural(diff.owner_changes.length, 'split')} changed owner; ${verdict}.`,
    });
  }

  // ------------------------------------------------------------------ the two releases' rules

  /**
   * The plan shown by Spate 0.1's rules and by 0.3's, side by side (the core's `diff_rules`,
   * `spate-planner diff-rules`); a newer plan or snapshot supersedes it.
   */
  async diffRules() {
    const s = this.state;
    if (!s.result) return;
    const seq = ++this.rulesSeq;
    const doc = await this.controller.ask('diffRules', {});
    const now = this.state;
    if (seq !== this.rulesSeq || now.generation !== s.generation || now.result?.text !== s.result.text) return;
    const kept = doc.kept_only_by_0_3.length;
    this.commit({
      rulesDiff: { text: s.result.text, generation: s.generation, doc },
      status: `Planned by Spate 0.1 and 0.3: ${plural(kept, 'split')} that 0.1 reassigns 0.3 keeps.`,
    });
  }

  // ------------------------------------------------------------------ the review document

  /**
   * The review document of the plan shown and its charts (the core's, `spate-planner report -o`'s
   * files: `{ markdown, images }`), with the sweep shown (its crash columns and the verdict on
   * the Sweep tab's targets, as the tab shows them) and the comparison shown (if any), the two releases' plans side by side once the Upgrade tab
   * was looked at (`--compare-rules`), and `link` (the view's address, or null) at its head.
   */
  reviewReport(link = null) {
    const s = this.state;
    const p = s.sweep?.params;
    const t = s.sweepTargets;
    const sweep = p ? { axis: p.axis, from: p.from, to: p.to, cap: p.cap, crash: Boolean(p.crash), maxOverMean: t?.maxOverMean ?? null, maxQueued: t?.maxQueued ?? 0 } : null;
    const before = comparisonIsCurrent(s) ? s.before.id : 0;
    return this.controller.ask('reviewReport', { sweep, before, rules: Boolean(s.rulesDiff), link });
  }

  close() {
    this.store.removeEventListener('change', this.onChange);
  }
}
