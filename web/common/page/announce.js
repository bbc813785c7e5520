// A status line whose words are shown at once and said to screen readers at a pace they can be
// heard: a polite live region beside it gets the newest words at most every `everyMs`. A live
// job's frames (up to ten a second) and a running clock are then not read out one by one, while
// a lone status (a click's outcome) is said at once.
import { el, attrs } from './dom.js';

/** { node: the line shown, region: the live region to place beside it, set(text) }. */
export function statusLine(cls, everyMs = 2000) {
  const node = el('p', '', cls);
  const region = attrs(el('p', '', 'visually-hidden announce'), { role: 'status' });
  let saidAt = -Infinity;
  let timer = 0;
  let newest = '';
  const say = () => {
    timer = 0;
    saidAt = performance.now();
    if (region.textContent !== newest) region.textContent = newest;
  };
  return {
    node,
    region,
    set(text) {
      node.textContent = text;
      newest = text;
      if (timer) return;
      const wait = saidAt + everyMs - performance.now();
      if (wait <= 0) say();
      else timer = setTimeout(say, wait);
    },
  };
}
