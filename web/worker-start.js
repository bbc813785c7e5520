// The planner's Web Worker as the page starts it (shell/page/client.js, early.js): before the
// worker's modules load (worker.js and what it imports, about ten requests), the wasm module is
// fetched and compiled, and the snapshot a `prefetch` names is fetched. Requests that arrive
// meanwhile wait, in order, for worker.js's handler. What was started is handed to worker.js in
// `self.plannerEarly` ({ wasm, snapshot: { url, response } }), which it takes once. This file
// imports nothing, so that nothing delays those fetches.
const held = [];

const early = { wasm: WebAssembly.compileStreaming(fetch(new URL('./pkg/spate_planner_bg.wasm', import.meta.url))), snapshot: null };
early.wasm.catch(() => {}); // worker.js fetches it again (the glue copes with a server's type)
self.plannerEarly = early;

/** The first `prefetch` of a same-origin URL: its response, asked for now. */
function prefetchNow(data) {
  const url = data?.op === 'prefetch' && data.source?.kind === 'url' ? data.source.url : null;
  if (!url || early.snapshot || new URL(url).origin !== self.location.origin) return;
  early.snapshot = { url, response: fetch(url) };
  early.snapshot.response.catch(() => {}); // the load that takes it reports a failure
}
self.onmessage = (ev) => { prefetchNow(ev.data); held.push(ev); };

// The page's early worker names its snapshot in its URL (`?prefetch=`), not in a message: a
// message is let through only once this module's evaluation ends. It is asked for now, and the
// `prefetch` is handed to worker.js as the first request. Then the worker says that it runs
// (shell/page/early.js waits for it; a request has an id, this has none).
const named = new URL(self.location.href).searchParams.get('prefetch');
if (named) {
  const ev = { data: { op: 'prefetch', source: { kind: 'url', url: named } } };
  prefetchNow(ev.data);
  held.push(ev);
}
self.postMessage({ started: true });

await import('./worker.js');
for (const ev of held) self.onmessage(ev);
