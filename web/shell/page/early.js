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

/**
 * Resolves once the early worker has asked for its module (its `started` message), has failed, or
 * after `ms`; at once when none was started.
 */
export function workerAsked(ms = 300) {
  const w = early;
  return new Promise((resolve) => {
    if (!w) { resolve(); return; }
    const done = () => {
      clearTimeout(timer);
      w.removeEventListener('message', heard);
      w.removeEventListener('error', done);
      resolve();
    };
    const heard = (ev) => { if (ev.data?.started) done(); };
    const timer = setTimeout(done, ms);
    w.addEventListener('message', heard);
    w.addEventListener('error', done);
  });
}

/** Adds the page's module preloads (index.html's <template id="module-preloads">, scripts/modulepreload.mjs) to `doc`'s head. */
export function preloadModules(doc) {
  const links = doc.getElementById('module-preloads');
  if (links) doc.head.append(links.content.cloneNode(true));
}

/** The worker started early, once (null after that, when none was started, or when it failed). */
export function takeWorker() {
  const w = early;
  early = null;
  if (w && failed) w.terminate();
  return failed ? null : w;
}
