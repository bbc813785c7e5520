// The stand-alone page: the element, with the snapshot from ?snapshot=URL (or the one
// `spate-planner serve job.json` names in the page), the live job from ?job=NAME (on `serve
// --server`, which names its event stream in the page), the scenario kept in the URL fragment,
// and ?theme=light|dark to force a theme. Attributes are set before the element is defined,
// so it starts once. The planner's worker starts first, and fetches the snapshot named, while
// the element's modules run (shell/page/early.js). The built page loads these modules joined
// into one (scripts/bundle-page.mjs).
import { startWorker } from './shell/page/early.js';

/**
 * The snapshot the element will load, to fetch now: its absolute URL when the page names a
 * same-origin one and follows no live job (the element refuses another origin), else null.
 */
function prefetchUrl(host) {
  const snapshot = host.getAttribute('snapshot');
  if (!snapshot || host.getAttribute('live')) return null;
  try {
    const url = new URL(snapshot, document.baseURI);
    return url.origin === location.origin ? url.href : null;
  } catch {
    return null;
  }
}

const params = new URLSearchParams(location.search);
const host = document.getElementById('planner');
for (const name of ['snapshot', 'default-cap', 'theme', 'job']) {
  const v = params.get(name);
  if (v) host.setAttribute(name, v);
}
// the link's snapshot is not the file the server names: its name is the link's
if (params.get('snapshot')) host.removeAttribute('snapshot-name');
await startWorker(prefetchUrl(host));
await import('./element.js');
