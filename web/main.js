// The stand-alone page: the element, with the snapshot from ?snapshot=URL (or the one
// `spate-planner serve job.json` names in the page), the live job from ?job=NAME (on `serve
// --server`, which names its event stream in the page), the scenario kept in the URL fragment,
// and ?theme=light|dark to force a theme. Attributes are set before the element is defined,
// so it starts once.
const params = new URLSearchParams(location.search);
const host = document.getElementById('planner');
for (const name of ['snapshot', 'default-cap', 'theme', 'job']) {
  const v = params.get(name);
  if (v) host.setAttribute(name, v);
}
// the link's snapshot is not the file the server names: its name is the link's
if (params.get('snapshot')) host.removeAttribute('snapshot-name');
await import('./element.js');
