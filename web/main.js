// The stand-alone page: the element, with the snapshot from ?snapshot=URL and the scenario kept
// in the URL fragment. Attributes are set before the element is defined, so it starts once.
const params = new URLSearchParams(location.search);
const host = document.getElementById('planner');
const snapshot = params.get('snapshot');
if (snapshot) host.setAttribute('snapshot', snapshot);
const cap = params.get('default-cap');
if (cap) host.setAttribute('default-cap', cap);
await import('./element.js');
