// "The page shows no number the core's document does not hold" (issue 19), as a check: every
// number in a view's visible text must be a number of the core's document for that view (the
// command line's `--json` document of the same snapshot), written only in the page's documented
// ways (docs/architecture.md, "The page renders"):
//
// - an integer as it is or with thousands separators (`1234`, `1,234`);
// - bytes in binary units (`1.50 GiB`, format.js humanBytes) or exact (`1,234 bytes`);
// - a signed change of bytes with its sign (`+1.50 GiB`, `−512 MiB`, `±0 B`);
// - a time in ms since the epoch as a UTC date (`2026-01-01 00:00:00 UTC`);
// - a ratio, or any other decimal, exactly as the document writes it (`1.0234`);
// - the document's own words (names, split ids, verdicts, notes) as they are.
//
// Text that is not a figure of the plan is left out by the views' markup only where it is a
// chart's axis ticks (class `tick`: the page's scale) or hidden (a `<title>`, a hidden element).
import { humanBytes, thousands, exactBytes, signedBytes, utc } from '../../web/common/shared/format.js';

/** A number as the page writes one: an optional sign, digits (with or without thousands separators), decimals, a binary unit. */
export const NUMBER = /[+−]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?: (?:B|KiB|MiB|GiB|TiB|PiB|EiB)\b)?/g;

const INTEGER = /^-?\d+$/;
const DECIMAL = /^-?\d+\.\d+$/;

/** The numbers of `text` (after `strip`), each as written. */
export function numbersOf(text) {
  return [...text.matchAll(NUMBER)].map((m) => m[0]);
}

/**
 * What the documents allow: { numbers (every way the page may write each of their numbers),
 * words (their strings and names, longest first, removed from the page's text before its
 * numbers are read) }.
 */
export function coreNumbers(...docs) {
  const numbers = new Set();
  const words = new Set();
  const allow = (text) => { for (const n of numbersOf(text)) numbers.add(n); };
  const integer = (s, key) => {
    const v = BigInt(s);
    const abs = v < 0n ? -v : v;
    [s, thousands(v), humanBytes(abs), signedBytes(v)].forEach(allow);
    allow(exactBytes(abs));
    if (/_ms$/.test(key ?? '')) words.add(utc(s));
  };
  const walk = (v, key) => {
    if (v === null || v === undefined || typeof v === 'boolean') return;
    if (Array.isArray(v)) { v.forEach((x) => walk(x, key)); return; }
    if (typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        if (/[A-Za-z]/.test(k)) words.add(k);
        walk(x, k);
      }
      return;
    }
    if (typeof v === 'number') {
      if (Number.isInteger(v)) integer(String(v), key);
      else allow(String(v));
      return;
    }
    const s = String(v);
    if (INTEGER.test(s)) integer(s, key);
    else if (DECIMAL.test(s)) allow(s);
    else if (/[A-Za-z]/.test(s)) words.add(s);
  };
  for (const d of docs) walk(d, null);
  return { numbers, words: [...words].sort((a, b) => b.length - a.length) };
}

/** The numbers of `text` the documents do not allow (`allowed`: coreNumbers' answer). */
export function foreignNumbers(text, allowed) {
  let rest = text;
  for (const w of allowed.words) if (rest.includes(w)) rest = rest.split(w).join(' ');
  return numbersOf(rest).filter((n) => !allowed.numbers.has(n));
}

/**
 * The visible text of what `selector` matches in the element's shadow root: its text nodes,
 * one per line, leaving out hidden elements, `<title>`s and a chart's axis ticks (`.tick`).
 */
export function visibleText(page, selector) {
  return page.evaluate((sel) => {
    const root = document.querySelector('spate-planner').shadowRoot;
    const out = [];
    for (const node of root.querySelectorAll(sel)) {
      const walker = document.createTreeWalker(node, NodeFilter.SHOW_TEXT);
      for (let t = walker.nextNode(); t; t = walker.nextNode()) {
        const p = t.parentElement;
        if (!p || p.closest('title, style, script, .tick, [hidden]') || !p.checkVisibility()) continue;
        if (t.textContent.trim()) out.push(t.textContent);
      }
    }
    return out.join('\n');
  }, selector);
}
