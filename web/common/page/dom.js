// Small DOM helpers. Text is only ever set with textContent: data is never markup. This module
// does not load the template library (lit-html reads `document` as it loads, and modules the
// Node tests load import this one); tables as templates are common/page/table.js's.

/** An element with optional text and class. */
export function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = String(text);
  if (cls) e.className = cls;
  return e;
}

/** Sets attributes (skipping null/undefined) and returns the element. */
export function attrs(e, map) {
  for (const [k, v] of Object.entries(map)) if (v !== null && v !== undefined) e.setAttribute(k, String(v));
  return e;
}

export function button(text, onClick, cls, label) {
  const b = el('button', text, cls);
  b.type = 'button';
  if (label) b.setAttribute('aria-label', label);
  if (label) b.title = label;
  b.addEventListener('click', onClick);
  return b;
}

export function input(type, map = {}) {
  const i = document.createElement('input');
  i.type = type;
  return attrs(i, map);
}

/** A select of [value, text] options. */
export function select(options, label) {
  const s = document.createElement('select');
  if (label) s.setAttribute('aria-label', label);
  setOptions(s, options);
  return s;
}

/**
 * Replaces a select's options, keeping its value when it is still offered. `keepGone`: a choice
 * no longer offered (a member that left) stays chosen, marked so, rather than silently becoming
 * the first option (what is done with it then is refused by name, never done to another).
 */
export function setOptions(s, options, { keepGone = false } = {}) {
  const keep = s.value;
  const gone = keepGone && keep !== '' && !options.some(([v]) => v === keep);
  s.replaceChildren(...options.map(([value, text]) => {
    const o = el('option', text);
    o.value = value;
    return o;
  }));
  if (gone) {
    const o = attrs(el('option', `${keep} (no longer in the fleet)`), { 'data-gone': '' });
    o.value = keep;
    s.append(o);
    s.addEventListener('change', () => dropGone(s), { once: true });
  }
  if (gone || options.some(([v]) => v === keep)) s.value = keep;
}

/** Removes the choices setOptions kept although no longer offered, unless one is chosen. */
export function dropGone(s) {
  for (const o of [...s.options]) if (o.hasAttribute('data-gone') && !o.selected) o.remove();
}

/** A label with visible text around a control. */
export function field(label, control, cls = 'field') {
  const l = el('label', undefined, cls);
  l.append(el('span', label), control);
  return l;
}

/** A section with a heading (h2) and an id for aria-labelledby. */
export function section(id, title, cls) {
  const s = el('section', undefined, cls);
  s.setAttribute('aria-labelledby', `${id}-title`);
  const h = el('h2', title);
  h.id = `${id}-title`;
  s.append(h);
  return s;
}

/** A scroll area that keyboard users can reach and scroll. */
export function scrollArea(label, cls = 'scroll') {
  const d = el('div', undefined, cls);
  attrs(d, { tabindex: 0, role: 'region', 'aria-label': label });
  return d;
}

/** Offers `data` as a file download. */
export function download(name, type, data) {
  const url = URL.createObjectURL(new Blob([data], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.rel = 'noopener';
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}
