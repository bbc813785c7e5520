// One tooltip per host: shown on mouse hover and on keyboard focus of a target (a tap focuses
// it too; chart.js gives the focus back to the row a tap redrew), and on a touch long-press;
// hidden on leave, blur, Escape or a scroll. A hover is the mouse moving onto a target: rows
// scrolled under a mouse at rest open nothing. Placed next to its target, just past the row on
// either side of it (never farther), covering neither the target nor those rows, and clear of the
// pinned rows, the sticky strip and the drawer wherever a place next to it allows. The same words
// are the target's accessible name, so nothing is hover-only.
import { el, attrs } from '../../common/page/dom.js';
import { html, render } from '../../common/page/lit.js';

/** How long a touch is held before it shows the figures instead of acting as a tap. */
export const LONG_PRESS_MS = 500;

/**
 * Follows the mouse over `host`: returns `moved(e)`, whether a pointer event is a real move (at
 * another place on the screen than the last one: a scroll's events are not), and closes the
 * tooltip (`hide()`) when a scroll moves its target (`target()`) from under the mouse — unless
 * the keyboard focused that target.
 */
function watchPointer(host, target, hide) {
  let at = null;
  let client = null;
  const moved = (e) => {
    const was = at;
    at = [e.screenX, e.screenY];
    client = [e.clientX, e.clientY];
    return !was || was[0] !== at[0] || was[1] !== at[1];
  };
  host.addEventListener('pointermove', (e) => { if (e.pointerType !== 'touch') moved(e); });
  addEventListener('scroll', () => {
    const t = target();
    if (!t || t.getRootNode().activeElement === t) return;
    const under = client && t.getRootNode().elementFromPoint(client[0], client[1]);
    if (!under || !t.contains(under)) hide();
  }, { capture: true, passive: true });
  return moved;
}

/**
 * What a tooltip keeps clear of: `near`, the target, what it opened and the rows on either side
 * (always), and `pinned`, the pinned rows (wherever a place next to the target allows it).
 */
function keptClear(host, target, opened) {
  const rows = [...host.querySelectorAll('button[data-member]')];
  const i = rows.indexOf(target);
  const near = [target, opened, ...(i < 0 ? [] : [rows[i - 1], rows[i + 1]])].filter(Boolean);
  const pinned = [...host.querySelectorAll('.is-pinned')].filter((e) => !near.includes(e));
  const box = (e) => e.getBoundingClientRect();
  return { near: near.map(box), pinned: pinned.map(box) };
}

/** Whether a box `{ left, width, height }` at top `y` shares no area with the rectangle `r`. */
const clearOf = (box, y, r) => r.right <= box.left || r.left >= box.left + box.width || y >= r.bottom || y + box.height <= r.top;

/**
 * The top (window pixels) of a box `{ left, width, height }` next to `target` (a rectangle): just
 * below or just above the rows it keeps clear of always (`near`: the target, what it opened, the
 * rows on either side), so never farther from the target than the row beside it. Of those places,
 * the nearest that lies between `lo` and `hi` (clear of the sticky strip and the drawer) and covers
 * none of `pinned`; else the nearest between `lo` and `hi`; else the nearest in `[0, screen]`.
 * Null when none of them does (a window shorter than the box and a row).
 */
export function nextTo({ near, pinned }, box, lo, hi, screen, target) {
  const gap = (y) => (y >= target.bottom ? y - target.bottom : target.top - (y + box.height));
  const tops = near.flatMap((r) => [r.bottom + 4, r.top - box.height - 4])
    .filter((y) => near.every((r) => clearOf(box, y, r)))
    .sort((a, b) => gap(a) - gap(b));
  const within = (a, b) => (y) => y >= a && y + box.height <= b;
  return tops.find((y) => within(lo, hi)(y) && pinned.every((r) => clearOf(box, y, r)))
    ?? tops.find(within(lo, hi)) ?? tops.find(within(0, screen)) ?? null;
}

export function createTooltip(host) {
  const tip = attrs(el('div', undefined, 'tooltip'), { role: 'tooltip' });
  tip.hidden = true;
  host.append(tip);
  let current = null;
  /** The target a long-press showed the figures of: its click that follows is not a tap. */
  let pressed = null;
  const moved = watchPointer(host, () => current, () => hide());
  /** Each target's words ({ title, lines, under }), set again when it is drawn again. */
  const words = new WeakMap();
  const showOf = (target) => { const w = words.get(target); show(target, w.title, w.lines, w.under); };

  /** Beside `target`: clear of it, of what `under(target)` gives (what the target opened), of the rows next to it and of the pinned rows. */
  function show(target, title, lines, under) {
    current = target;
    render(html`<strong>${title}</strong>${lines.map((l) => html`<div>${l}</div>`)}`, tip);
    tip.hidden = false;
    const h = host.getBoundingClientRect();
    const t = target.getBoundingClientRect();
    // (rectangles are in the window's pixels; left and top in the host's, which a wall screen's
    // zoom scales: style.css)
    const z = host.currentCSSZoom || 1;
    const width = tip.offsetWidth * z;
    const height = tip.offsetHeight * z;
    const left = Math.min(Math.max(0, t.left - h.left + 24), Math.max(0, h.width - width - 4));
    tip.style.left = `${left / z}px`;
    // within the window, clear of the sticky strip and of the what-if drawer of a narrow
    // element (app.js measures both)
    const cs = getComputedStyle(host);
    const bottom = innerHeight - (parseFloat(cs.getPropertyValue('--drawer-h')) || 0);
    const top = parseFloat(cs.getPropertyValue('--strip-h')) || 0;
    const keep = keptClear(host, target, under?.(target));
    const below = keep.near.reduce((b, r) => Math.max(b, r.bottom), t.bottom);
    const at = nextTo(keep, { left: h.left + left, width, height }, top, bottom, innerHeight, t) ?? below + 4;
    tip.style.top = `${(at - h.top) / z}px`;
  }

  function hide(target) {
    if (target && target !== current) return;
    current = null;
    tip.hidden = true;
  }

  return {
    /**
     * Gives `target` its words (again, when it is drawn again: its listeners are added once).
     * under(target): an element shown below the target that the tooltip must not cover, or null.
     */
    attach(target, title, lines, under) {
      const known = words.has(target);
      words.set(target, { title, lines, under });
      if (known) return;
      // a touch has no hover: its enter and leave are a tap's, which the focus handles
      target.addEventListener('pointerenter', (e) => { if (e.pointerType !== 'touch' && moved(e)) showOf(target); });
      // entered without moving (scrolled under the mouse): shown once the mouse moves
      target.addEventListener('pointermove', (e) => { if (e.pointerType !== 'touch' && current !== target && moved(e)) showOf(target); });
      target.addEventListener('pointerleave', (e) => { if (e.pointerType !== 'touch' && target.getRootNode().activeElement !== target) hide(target); });
      target.addEventListener('focus', () => showOf(target));
      target.addEventListener('blur', () => hide(target));
      target.addEventListener('keydown', (e) => { if (e.key === 'Escape') hide(target); });
      let timer = 0;
      let from = null;
      target.addEventListener('pointerdown', (e) => {
        if (e.pointerType !== 'touch') return;
        pressed = null;
        from = [e.clientX, e.clientY];
        clearTimeout(timer);
        timer = setTimeout(() => { pressed = target; target.focus({ preventScroll: true }); showOf(target); }, LONG_PRESS_MS);
      });
      // a finger lifted, or moved (the page scrolls), before the time is a tap or a scroll
      const cancel = () => clearTimeout(timer);
      target.addEventListener('pointerup', cancel);
      target.addEventListener('pointercancel', cancel);
      target.addEventListener('pointermove', (e) => { if (from && Math.hypot(e.clientX - from[0], e.clientY - from[1]) > 10) cancel(); });
      // a long-press opens no context menu: it shows the figures
      target.addEventListener('contextmenu', (e) => { if (pressed === target || e.pointerType === 'touch') e.preventDefault(); });
    },
    /** True once for the click that ends a long-press on `target` (it showed the figures; it is no tap). */
    longPressed(target) {
      if (pressed !== target) return false;
      pressed = null;
      return true;
    },
    hide,
    /** After a redraw: the words of the target shown, as they are now; hidden if it is gone. */
    refresh() {
      if (current?.isConnected) showOf(current);
      else hide();
    },
  };
}
