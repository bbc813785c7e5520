// The keyboard's way around the page: skip links (to the What-if panel, to the details) first in
// the tab order, a few shortcuts (`/` finds a member, `u` undoes, `?` lists them), and the help
// panel that lists them (a modal dialog: Escape closes it and the focus goes back where it was).
// Shortcuts act when the focus is in the dashboard or nowhere (the page's body), never while a
// person types in a field, and never with Ctrl, Alt or Meta held.
import { el, attrs, button } from '../../common/page/dom.js';

/** The shortcuts, as the help panel lists them: [keys, what they do]. */
export const SHORTCUTS = [
  ['/', 'Find a member or a split in the fleet chart'],
  ['u', 'Undo the last what-if change'],
  ['?', 'Show this list'],
  ['Esc', 'Close this list'],
];

/** Keys that work where the focus is, listed under the shortcuts. */
export const FOCUS_KEYS = [
  ['↑ ↓', 'In the fleet chart: the previous or next member'],
  ['Home End', 'In the fleet chart: the first or last member shown'],
  ['← →', 'On the detail tabs: the previous or next tab'],
  ['Home End', 'On the detail tabs: the first or last tab'],
  ['Tab, Shift+Tab', 'The next or previous control; the skip links come first'],
];

/** What a finger does on a touch screen, listed last. */
export const TOUCH = [
  ['Tap', 'A member of the fleet chart: its figures, and only its moves, splits and claims'],
  ['Long-press', 'A member of the fleet chart: its figures only'],
  ['?', 'On a tile of the summary: what its figure means'],
];

/** True when a key event is someone typing (a text field, a select, an editable element) or a chord. */
export function isTyping(e, target = e.composedPath?.()[0] ?? e.target) {
  if (e.ctrlKey || e.metaKey || e.altKey) return true;
  if (!target || !target.tagName) return false;
  if (target.isContentEditable) return true;
  const tag = target.tagName;
  if (tag === 'TEXTAREA' || tag === 'SELECT') return true;
  if (tag !== 'INPUT') return false;
  return !['button', 'checkbox', 'radio', 'range', 'reset', 'submit', 'file', 'color'].includes(target.type);
}

/** The shortcut a key event asks for ('search', 'undo', 'help'), or null. */
export function shortcutOf(e) {
  if (isTyping(e)) return null;
  if (e.key === '/') return 'search';
  if (e.key === 'u') return 'undo';
  if (e.key === '?') return 'help';
  return null;
}

/** A list of keys (each a <kbd>), or of gestures (`keys` false: their names as they are). */
function keyList(rows, label, keys = true) {
  const list = attrs(el('dl', undefined, 'keys'), { 'aria-label': label });
  for (const [what, does] of rows) {
    const dt = el('dt');
    if (keys) what.split(/, | /).forEach((k, i) => { if (i) dt.append(' '); dt.append(el('kbd', k)); });
    else dt.append(el('strong', what));
    list.append(dt, el('dd', does));
  }
  return list;
}

/** The help panel: a modal dialog; open() remembers the focus and close gives it back. */
function helpDialog(root) {
  const dialog = attrs(el('dialog', undefined, 'help'), { 'aria-labelledby': 'help-title' });
  const close = button('Close', () => dialog.close());
  dialog.append(attrs(el('h2', 'Keyboard shortcuts'), { id: 'help-title' }), keyList(SHORTCUTS, 'shortcuts'),
    el('p', 'Shortcuts work when the focus is in the dashboard (or nowhere), not while you type in a field.', 'hint'),
    el('h3', 'Moving around'), keyList(FOCUS_KEYS, 'keys where the focus is'),
    el('h3', 'On a touch screen'), keyList(TOUCH, 'touch gestures', false), close);
  let back = null;
  dialog.addEventListener('close', () => {
    const to = back;
    back = null;
    if (to?.isConnected) to.focus();
  });
  return {
    node: dialog,
    open() {
      if (dialog.open) return;
      back = root.activeElement ?? document.activeElement;
      dialog.showModal();
      close.focus();
    },
  };
}

/** Skip links: each moves the focus to its part of the page. */
function skipLinks(root, help) {
  const bar = attrs(el('nav', undefined, 'skip-links'), { 'aria-label': 'skip links' });
  const toWhatIf = () => {
    const toggle = root.querySelector('.drawer-toggle');
    // a narrow element keeps the What-if panel in a drawer: open it first
    if (toggle && toggle.offsetParent !== null && toggle.getAttribute('aria-expanded') === 'false') toggle.click();
    root.getElementById('whatif-body')?.focus();
  };
  const toDetails = () => root.querySelector('.tab[aria-selected="true"]')?.focus();
  bar.append(button('Skip to the What-if panel', toWhatIf, 'skip'), button('Skip to the details', toDetails, 'skip'),
    button('Keyboard shortcuts (?)', () => help.open(), 'skip'));
  return bar;
}

/** The fleet chart's member search, focused and its text selected (the `/` key). */
function findMember(root) {
  const box = root.querySelector('.member-search input');
  box?.focus();
  box?.select();
}

/**
 * The skip links (first in `app`), the help panel and the shortcuts of the app in `root`.
 * Returns { open() (the help panel), destroy() }.
 */
export function mountKeyboard(ctx, app) {
  const { controller, root } = ctx;
  const help = helpDialog(root);
  app.prepend(skipLinks(root, help));
  app.append(help.node);
  const act = (e) => {
    const what = shortcutOf(e);
    if (!what || help.node.open) return;
    e.preventDefault();
    if (what === 'help') help.open();
    else if (what === 'search') findMember(root);
    else controller.undo();
  };
  // a key pressed with the focus nowhere reaches the document, not the element (a key pressed
  // inside reaches the document too, its target then the element itself)
  const nowhere = (e) => { if (e.target === document.body || e.target === document.documentElement) act(e); };
  app.addEventListener('keydown', act);
  document.addEventListener('keydown', nowhere);
  return {
    open: () => help.open(),
    destroy: () => document.removeEventListener('keydown', nowhere),
  };
}
