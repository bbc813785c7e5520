// The planner's worker started by the stand-alone page (main.js) before the dashboard's modules
// load and run: the wasm module compiles, and the snapshot the page names is fetched (the
// worker's `prefetch`), while they do. The first PlannerClient takes that worker (client.js);
// an element embedded in another page starts its own when it starts.
let early = null;
/** Set when the early worker failed to start before a client took it (the client starts another). */
let failed = false;

/**
 * Starts the worker; `snapshotUrl`: the absolute same-origin URL of the snapshot the page will
 * load (the worker fetches it at once), or null.
 */
export function startWorker(snapshotUrl) {
  early = new Worker(new URL('../../worker-start.js', import.meta.url), { type: 'module' });
  early.addEventListener('error', () => { failed = true; }, { once: true });
  if (snapshotUrl) early.postMessage({ op: 'prefetch', source: { kind: 'url', url: snapshotUrl } });
}

/** The worker started early, once (null after that, when none was started, or when it failed). */
export function takeWorker() {
  const w = early;
  early = null;
  if (w && failed) w.terminate();
  return failed ? null : w;
}
