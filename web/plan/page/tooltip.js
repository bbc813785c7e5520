// One tooltip per host: shown on hover and on keyboard focus of a target, hidden on leave,
// blur or Escape. The same words are the target's accessible name, so nothing is hover-only.
import { el, attrs } from '../../common/page/dom.js';

export function createTooltip(host) {
  const tip = attrs(el('div', undefined, 'tooltip'), { role: 'tooltip' });
  tip.hidden = true;
  host.append(tip);
  let current = null;

  /** Below `target`, or below `under(target)` when that gives an element (what the target opened). */
  function show(target, title, lines, under) {
    current = target;
    tip.replaceChildren(el('strong', title), ...lines.map((l) => el('div', l)));
    tip.hidden = false;
    const h = host.getBoundingClientRect();
    const t = target.getBoundingClientRect();
    const below = under?.(target)?.getBoundingClientRect() ?? t;
    const left = Math.min(Math.max(0, t.left - h.left + 24), Math.max(0, h.width - tip.offsetWidth - 4));
    tip.style.left = `${left}px`;
    tip.style.top = `${below.bottom - h.top + 4}px`;
  }

  function hide(target) {
    if (target && target !== current) return;
    current = null;
    tip.hidden = true;
  }

  return {
    /** under(target): an element shown below the target that the tooltip must not cover, or null. */
    attach(target, title, lines, under) {
      target.addEventListener('pointerenter', () => show(target, title, lines, under));
      target.addEventListener('pointerleave', () => hide(target));
      target.addEventListener('focus', () => show(target, title, lines, under));
      target.addEventListener('blur', () => hide(target));
      target.addEventListener('keydown', (e) => { if (e.key === 'Escape') hide(target); });
    },
    hide,
  };
}
