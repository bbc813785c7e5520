// Planning a scenario whose changes may not all apply (run in the worker, beside the wasm
// module). A change the core refuses is left out and reported, and the rest are planned, so a
// refused change never blocks the ones after it and the baseline always shows.
import { scenarioText, baselineText, changeIndexOf, emptyScenario } from '../../common/shared/scenario.js';

function failureOf(index, e) {
  return { index, code: e.code || 'internal', message: e.message || String(e), path: e.path || '' };
}

/**
 * Plans `scenario` with `plan(text)` (the wasm Planner's plan), leaving out each change it
 * refuses. Returns { view, baseline, failures, text, baselineText }; `failures[i].index` is
 * the change's index in `scenario.changes`, -1 for the settings. Errors that are not about a
 * change (a trap, say) are thrown.
 */
export function analyseScenario(plan, scenario) {
  const skip = new Set();
  const failures = [];
  let s = scenario;
  for (;;) {
    const text = scenarioText(s, skip);
    try {
      const view = plan(text);
      const base = baselineText(s);
      const baseline = base === text ? view : plan(base);
      return { view, baseline, failures, text, baselineText: base };
    } catch (e) {
      if (e && e.trapped) throw e;
      const kept = s.changes.map((_, i) => i).filter((i) => !skip.has(i));
      const at = changeIndexOf(e);
      if (at >= 0 && at < kept.length) {
        skip.add(kept[at]);
        failures.push(failureOf(kept[at], e));
      } else if (s !== scenario || (scenario.defaultCap === null && scenario.rebalanceDelayMs === null)) {
        throw e;
      } else {
        // the settings themselves cannot apply: plan without them, every change still tried
        failures.push(failureOf(-1, e));
        s = { ...emptyScenario(), changes: scenario.changes };
      }
    }
  }
}
