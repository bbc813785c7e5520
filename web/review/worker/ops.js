// The worker's requests for design reviews (run in the worker, beside the wasm module): a sweep
// planned one step at a time (progress after each step, and a newer sweep or another snapshot
// stops it between steps), the "before" snapshot a comparison is made against, the comparison,
// the two releases' plans side by side, and the review report. worker.js merges these into its requests.

/** The script of a sweep's crash steps: Spate's default timing (its events are not used). */
const CRASH_SCRIPT = JSON.stringify({ format: 'spate-planner-script/1' });

function fail(code, message) {
  return Object.assign(new Error(message), { code });
}

/** Lets the worker read its next message (a newer sweep) without the 4 ms a timer may wait. */
function yieldToMessages() {
  return new Promise((resolve) => {
    const ch = new MessageChannel();
    ch.port1.onmessage = () => { ch.port1.close(); resolve(); };
    ch.port2.postMessage(null);
  });
}

/**
 * Requests of the review. `env`: { Planner, ready, readSource, guard, infoOf, planner() (the
 * snapshot shown), loaded() (its generation) }. Returns { ops, holds(p) }: `holds` says whether
 * `p` is the "before" snapshot (the worker must not free it when it loads another).
 */
export function reviewOps(env) {
  /** The earlier snapshot and the page's id for it (0: none). */
  let before = null;
  let beforeId = 0;
  let newestBefore = 0;
  /** The newest sweep asked for: an older one stops at its next step. */
  let newestSweep = 0;

  function setBefore(next, id) {
    if (before && before !== next && before !== env.planner()) before.free();
    before = next;
    beforeId = id;
  }

  function theBefore(id) {
    if (!before) throw fail('no_before', 'no earlier snapshot is loaded to compare with');
    if (id !== beforeId) throw fail('stale', 'the request was made for another earlier snapshot');
    return before;
  }

  function checkRange(from, to) {
    if (!Number.isInteger(from) || !Number.isInteger(to) || from < 0 || to < from) {
      throw fail('invalid_range', `the sweep's range ${from}..${to} is not FROM..TO with 0 <= FROM <= TO`);
    }
  }

  const ops = {
    async loadBefore({ source, before: id }, progress) {
      await env.ready;
      newestBefore = Math.max(newestBefore, id);
      const input = await env.readSource(source, () => env.Planner.maxSnapshotBytes(), progress);
      progress(-1, 0);
      const next = env.guard(() => (input.demo ? env.Planner.demo(input.demo.splits, input.demo.members, input.demo.seed)
        : input.bytes ? env.Planner.fromBytes(input.bytes) : env.Planner.fromText(input.text)));
      try {
        const info = env.guard(() => env.infoOf(next));
        if (id < newestBefore) throw fail('superseded', 'a newer earlier snapshot was asked for while this one loaded');
        setBefore(next, id);
        return info;
      } catch (e) {
        next.free();
        throw e;
      }
    },

    /** The snapshot shown becomes the earlier one (kept when the next one loads). */
    keepBefore({ before: id }) {
      newestBefore = Math.max(newestBefore, id);
      setBefore(env.planner(), id);
      return env.guard(() => env.infoOf(before));
    },

    forgetBefore() {
      setBefore(null, 0);
      return null;
    },

    /** The comparison, planned by the rules the scenario `text` picks (else each store's). */
    compare({ before: id, text = '' }) {
      const b = theBefore(id);
      return env.guard(() => env.planner().compare(b, text));
    },

    /** A table of the comparison as CSV (`members`, `owners`): `spate-planner diff --csv TABLE`. */
    compareCsv({ before: id, table }) {
      const b = theBefore(id);
      return env.guard(() => env.planner().compareCsv(b, table));
    },

    /** A sweep's steps as CSV: `spate-planner sweep --csv`. */
    async sweepCsv({ steps }) {
      await env.ready;
      return env.guard(() => env.Planner.sweepCsv(steps));
    },

    /** One step per call into the module, so that progress shows and a newer sweep wins. */
    async sweep({ text, axis, from, to, cap, crash, token, generation }, progress) {
      checkRange(from, to);
      const most = env.Planner.maxSweepSteps();
      if (to - from + 1 > most) throw Object.assign(fail('invalid_sweep', `${to - from + 1} steps: a sweep takes at most ${most}`), { path: 'to' });
      newestSweep = Math.max(newestSweep, token);
      const steps = [];
      for (let v = from; v <= to; v++) {
        if (token < newestSweep) throw fail('superseded', 'a newer sweep was asked for');
        if (generation !== env.loaded()) throw fail('stale', 'another snapshot was loaded during the sweep');
        steps.push(...env.guard(() => env.planner().sweep(text, axis, v, v, cap, crash ? CRASH_SCRIPT : '')));
        progress(steps.length, to - from + 1);
        await yieldToMessages();
      }
      return steps;
    },

    /** Which value of a sweep of `axis` on the scenario `text` is today's fleet (the core's). */
    sweepToday({ text, axis, cap }) {
      return env.guard(() => env.planner().sweepToday(text, axis, cap));
    },

    /**
     * Which of a sweep's steps meet the targets, the smallest value that does and the verdict
     * in words (the core's `verdict`, as `spate-planner sweep --max-over-mean R --max-queued N`).
     */
    async sweepVerdict({ steps, axis, cap = 0, maxOverMean, maxQueued }) {
      await env.ready;
      return env.guard(() => env.Planner.sweepVerdict(steps, axis, cap, maxOverMean, maxQueued));
    },

    /** The plan of `text` by Spate 0.1's rules and by 0.3's (`spate-planner diff-rules --json`). */
    diffRules({ text }) {
      return env.guard(() => env.planner().diffRules(text));
    },

    /**
     * The review document and its charts, `{ markdown, images: [{ name, svg }] }` (`spate-planner
     * report -o FILE.md`'s files). sweep: { axis, from, to, cap, crash, maxOverMean, maxQueued }
     * or null (crash: the crash steps of `--crash-heaviest`, with Spate's default timing as the
     * Sweep tab runs them; the targets give the verdict); rules: with the two releases' plans
     * side by side (`--compare-rules`).
     */
    reviewReport({ text, sweep, before: id, rules = false, link = null }) {
      const s = sweep && {
        axis: sweep.axis, from: sweep.from, to: sweep.to, cap: sweep.cap || 0, crash: sweep.crash ? CRASH_SCRIPT : '',
        max_over_mean: sweep.maxOverMean ?? null, max_queued: sweep.maxQueued ?? 0,
      };
      const p = env.planner();
      if (!id) return env.guard(() => p.reviewReport(text, s, rules, link));
      const b = theBefore(id);
      return env.guard(() => p.reviewReportComparedWith(text, s, rules, b, link));
    },
  };
  return { ops, holds: (p) => p !== null && p === before, unchecked: ['loadBefore', 'forgetBefore', 'sweepVerdict', 'sweepCsv'] };
}
