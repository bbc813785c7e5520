// The page's one state and its one update path. Data flows one way:
//   snapshot (info) → scenario → plan (result) → views.
// Only the controller (shell/page/controller.js) calls update(): the live session and the review
// actions it makes commit through the function it hands them; views read `state` and call the
// controller's actions.

/** The state before anything is loaded. */
export function initialState() {
  return {
    /** Load generation of the snapshot shown (0: none yet). */
    generation: 0,
    /** What is shown: { label, kind } and the snapshot's FleetInfo. */
    source: null,
    info: null,
    /** `job@taken_at_ms` of the snapshot shown. */
    snapshotId: '',
    /** A load under way: { label, fraction, text } or null. */
    loading: null,
    /** The scenario: { defaultCap, rebalanceDelayMs, changes } (common/shared/scenario.js). */
    scenario: { defaultCap: null, rebalanceDelayMs: null, rules: null, changes: [] },
    /**
     * The plan of the scenario: { view, baseline, failures, planMs, roundTripMs, moveCount,
     * text } — failures: the core's `refused`, [{ index, code, message, path }] for changes
     * left out; text: the scenario's whole text, which every request names.
     */
    result: null,
    /** The member the views are filtered to (chart click), or null. */
    focus: null,
    /** A member asked to be shown in the chart (a tile, the search): { member } (a new object each time), or null. */
    reveal: null,
    /** What the Timeline's script leaves unset takes for the snapshot shown (Planner.simDefaults), or null. */
    simDefaults: null,
    /** Chart order: name | now | planned | change. */
    order: 'name',
    /** A page-level message: { level: error|warning|info, title, text, code, where } or null. */
    message: null,
    /** A short status sentence for assistive technology and the eye ("what changed"). */
    status: '',
    /** Set once the first plan is shown. */
    ready: false,
    /** A live job followed (live/shared/state.js), or null. */
    live: null,
    // Design review (review/page/actions.js):
    /** The sweep shown: { params: { axis, from, to, cap }, steps, text, generation, ms } or null. */
    sweep: null,
    /** A sweep under way: { params, done, total } or null. */
    sweepRun: null,
    /** The Sweep tab's targets, as its form reads them: { maxOverMean, maxQueued } or null. */
    sweepTargets: null,
    /** The earlier snapshot compared with: { id, info, label, kept, generation, url (read from; null: a file) } or null. */
    before: null,
    /** An earlier snapshot being read: { label, text, fraction } or null. */
    beforeLoading: null,
    /** A link's earlier snapshot not read again (a file was compared): { id, url } or null. */
    linkBefore: null,
    /** The comparison of `before` with the snapshot shown: { before, generation, rules (picked, or null), diff } or null. */
    comparison: null,
    /** The plan shown by Spate 0.1's rules and by 0.3's (the Upgrade tab): { text, generation, doc } or null. */
    rulesDiff: null,
    /** The Timeline's script and configuration B's overrides (timeline/shared/script.js). */
    timeline: { script: { events: [] }, b: null },
    /** The Timeline's run of it (timeline/page/runner.js): status, models of A and B, error. */
    timelineRun: null,
    /**
     * The tab shown when asked for or chosen: { id, focus (move the keyboard focus to it),
     * reveal (bring its result into view once drawn) } (a new object each time), or null.
     */
    tab: null,
  };
}

export class Store extends EventTarget {
  constructor(state = initialState()) {
    super();
    this.state = state;
  }

  /** Replaces the named fields at once and tells every subscriber what the state was before. */
  update(patch) {
    const prev = this.state;
    this.state = Object.freeze({ ...prev, ...patch });
    this.dispatchEvent(new CustomEvent('change', { detail: { prev, state: this.state } }));
  }
}

/** True when any of `keys` differs between two states (views re-render only then). */
export function changed(prev, state, ...keys) {
  return !prev || keys.some((k) => prev[k] !== state[k]);
}
