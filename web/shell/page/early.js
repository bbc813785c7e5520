// The planner's worker started by the stand-alone page (main.js) before the dashboard's modules
// run: the wasm module compiles, and the snapshot the page names is fetched (the worker's
// `prefetch`), while they do. The first PlannerClient takes that worker (client.js);
// an element embedded in another page starts its own when it starts.
let early = null;
/** Set when the early worker failed to start before a client took it (the client starts another). */
let failed = false;

/** How long the page waits at most for the worker to say that it runs (it takes 50-300 ms). */
const START_WAIT_MS = 2000;

/**
 * Starts the worker; `snapshotUrl`: the absolute same-origin URL of the snapshot the page will
 * load, or null. The worker's URL names it (`?prefetch=`, worker-start.js), so that the worker's
 * first statement asks for it (a message waits until the worker's modules have loaded).
 * Resolves once the worker runs (its first message), fails, or after START_WAIT_MS: Chromium
 * finishes starting a worker in a task of the page's thread, which the page running the
 * element's modules would hold back (the page waits for it: a first render of 20,000 x 200 took
 * 70 ms less).
 */
export function startWorker(snapshotUrl) {
  const url = new URL('../../worker-start.js', import.meta.url);
  if (snapshotUrl) url.searchParams.set('prefetch', snapshotUrl);
  const w = new Worker(url, { type: 'module' });
  early = w;
  w.addEventListener('error', () => { failed = true; }, { once: true });
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      w.removeEventListener('message', done);
      w.removeEventListener('error', done);
      resolve();
    };
    const timer = setTimeout(done, START_WAIT_MS);
    w.addEventListener('message', done);
    w.addEventListener('error', done);
  });
}

/** The worker started early, once (null after that, when none was started, or when it failed). */
export function takeWorker() {
  const w = early;
  early = null;
  if (w && failed) w.terminate();
  return failed ? null : w;
}
