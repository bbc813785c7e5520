// The what-if forms. Each builds one change; the controller checks it with the core before
// adding it, and a refused change is explained beside its own Apply button. Only members of
// the current scenario are offered; split ids are suggested as you type.
import { el, attrs, input, select, setOptions, dropGone, field } from '../../common/page/dom.js';
import { html, render, repeat } from '../../common/page/lit.js';
import { parseBytes } from '../../common/shared/format.js';
import { naturalCompare } from '../../common/shared/sort.js';
import { isSuperseded } from '../../common/shared/messages.js';

function need(value, what) {
  const v = value.trim();
  if (!v) throw Object.assign(new Error(`name ${what}`), { code: 'missing' });
  return v;
}

function count(value, what) {
  const v = value.trim();
  if (!/^\d+$/.test(v)) throw Object.assign(new Error(`${what} is a whole number`), { code: 'invalid_number' });
  return v;
}

/**
 * One form: title, fields, Apply; its own error and result lines. `lines` collects every form's
 * result line (only the newest change's is shown: the panel clears them when the scenario moves).
 */
/** The form's controls and their values. */
function valuesOf(f) {
  return new Map([...f.elements].filter((c) => 'value' in c && c.type !== 'submit').map((c) => [c, c.type === 'checkbox' ? c.checked : c.value]));
}

/** Back to their first values, the controls still as they were asked with (what the person typed meanwhile stays). */
function resetUnchanged(f, asked) {
  for (const [c, v] of asked) {
    if ((c.type === 'checkbox' ? c.checked : c.value) !== v) continue;
    if (c.type === 'checkbox') c.checked = c.defaultChecked;
    else if (c.tagName === 'SELECT') {
      c.selectedIndex = Math.max(0, [...c.options].findIndex((o) => o.defaultSelected));
      dropGone(c);
      c.dispatchEvent(new Event('change')); // what the choice says under it follows it
    }
    else c.value = c.defaultValue;
  }
}

function changeForm(ctx, lines, key, title, fields, make) {
  const f = attrs(el('form', undefined, 'change'), { 'data-form': key, 'aria-label': title });
  const error = attrs(el('p', '', 'form-error'), { role: 'alert' });
  const done = attrs(el('p', '', 'form-done'), { role: 'status' });
  lines.push(done);
  const apply = el('button', 'Apply');
  apply.type = 'submit';
  f.append(el('h3', title), ...fields.map(([label, control]) => field(label, control)), apply, error, done);
  // while its change waits for a load, a frame or the change before it, the button says so
  const waiting = (what) => { apply.textContent = what ? `Apply: waiting for ${what}…` : 'Apply: planning…'; };
  // while its change is planned the button refuses a second press but stays focusable: a
  // disabled button would drop keyboard focus to the page's body
  let pending = false;
  f.addEventListener('submit', async (e) => {
    e.preventDefault();
    if (pending) return;
    pending = true;
    error.textContent = '';
    done.textContent = '';
    apply.setAttribute('aria-disabled', 'true');
    try {
      const change = make();
      const asked = valuesOf(f);
      waiting('');
      await ctx.controller.addChange(change, waiting);
      resetUnchanged(f, asked);
      done.textContent = ctx.controller.state.status;
      done.scrollIntoView({ block: 'nearest' });
    } catch (err) {
      error.textContent = `Not added: ${err.message}${err.code ? ` (${err.code})` : ''}`;
      error.scrollIntoView({ block: 'nearest' });
    } finally {
      pending = false;
      apply.removeAttribute('aria-disabled');
      apply.textContent = 'Apply';
    }
  });
  return f;
}

/** A text input with suggestions of split ids that contain what is typed. */
function splitInput(ctx, id, label, placeholder) {
  const list = attrs(el('datalist'), { id });
  const i = input('text', { list: id, placeholder, 'aria-label': label, autocomplete: 'off' });
  let seq = 0;
  i.addEventListener('input', async () => {
    const q = i.value.split(',').pop().trim();
    const mine = ++seq;
    if (q.length < 2) return;
    try {
      const rows = await ctx.controller.ask('findSplits', { query: q, limit: 20 });
      if (mine !== seq) return;
      const head = i.value.includes(',') ? i.value.slice(0, i.value.lastIndexOf(',') + 1) : '';
      render(repeat(rows, (r) => r.id, (r) => html`<option value=${`${head}${r.id}`}></option>`), list);
    } catch (e) {
      if (!isSuperseded(e)) ctx.controller.say(`Split suggestions failed: ${e.message}`);
    }
  });
  return [i, list];
}

/** How a member leaves: the option's words (short enough for a phone's select) and what follows. */
const DEPARTURES = [
  ['crash', 'crashed just now', 'its splits keep its name and wait out the rebalance delay'],
  ['crash_after_delay', 'crashed longer ago', 'longer ago than the rebalance delay: its splits move now'],
  ['graceful', 'stopped gracefully', 'it released what it held: those splits move now'],
];

/** The departure select, and a line under it saying what the chosen one means. */
function departureField() {
  const s = attrs(select(DEPARTURES.map(([v, words]) => [v, words]), 'how the member leaves'), { 'aria-describedby': 'departure-hint' });
  const hint = attrs(el('p', '', 'hint departure-hint'), { id: 'departure-hint' });
  const say = () => { hint.textContent = DEPARTURES.find(([v]) => v === s.value)?.[2] ?? ''; };
  s.addEventListener('change', say);
  say();
  return { select: s, hint, say };
}

export function createForms(ctx) {
  const text = (ph, aria) => input('text', { placeholder: ph, 'aria-label': aria, autocomplete: 'off' });
  const num = (ph, aria) => input('number', { placeholder: ph, min: '0', max: '4294967295', step: '1', 'aria-label': aria });
  const removeSelect = select([], 'member to remove');
  const capSelect = select([], 'member whose cap to change');
  const forms = el('div', undefined, 'forms');
  const lines = [];

  const addName = text('worker-new', 'new member name');
  const addCap = num('default', 'new member cap');
  forms.append(changeForm(ctx, lines, 'add', 'Add a member', [['name', addName], ['cap', addCap]], () => {
    const c = { op: 'add_member', member: need(addName.value, 'the member') };
    if (addCap.value.trim()) c.cap = Number(count(addCap.value, 'the cap'));
    return c;
  }));

  const departure = departureField();
  const removeForm = changeForm(ctx, lines, 'remove', 'Remove a member', [['member', removeSelect], ['how it leaves', departure.select]], () => ({
    op: 'remove_member', member: need(removeSelect.value, 'the member'), departure: departure.select.value,
  }));
  departure.select.closest('label')?.after(departure.hint);
  forms.append(removeForm);

  const capVal = num('0 = default', 'new cap');
  forms.append(changeForm(ctx, lines, 'cap', 'Change a cap', [['member', capSelect], ['cap', capVal]], () => ({
    op: 'set_cap', member: need(capSelect.value, 'the member'), cap: Number(count(capVal.value || '0', 'the cap')),
  })));

  const [resIds, resList] = splitInput(ctx, 'reserve-splits', 'splits to reserve or release', 'split ids, comma separated');
  const resMode = select([['reserve', 'reserve (withhold)'], ['release', 'release']], 'reserve or release');
  forms.append(changeForm(ctx, lines, 'reserve', 'Reserve or release splits', [['splits', resIds], ['', resMode]], () => {
    const splits = resIds.value.split(',').map((s) => s.trim()).filter(Boolean);
    if (!splits.length) throw Object.assign(new Error('name at least one split'), { code: 'missing' });
    return { op: resMode.value, splits };
  }), resList);

  const [wId, wList] = splitInput(ctx, 'weight-split', 'split whose weight to change', 'split id');
  const wVal = text('e.g. 6GiB or 123456', 'new weight');
  forms.append(changeForm(ctx, lines, 'weight', 'Change a weight', [['split', wId], ['weight', wVal]], () => ({
    op: 'set_weight', split: need(wId.value, 'the split'), weight: parseBytes(wVal.value),
  })), wList);

  const nCount = num('100', 'how many splits to add');
  const nWeight = text('64MiB', 'weight of each added split');
  const nPrefix = text('synthetic-', 'id prefix of added splits');
  forms.append(changeForm(ctx, lines, 'splits', 'Add synthetic splits', [['count', nCount], ['weight each', nWeight], ['id prefix', nPrefix]], () => {
    const c = { op: 'add_splits', count: count(nCount.value || '0', 'the count'), weight: parseBytes(nWeight.value || '64MiB') };
    if (nPrefix.value.trim()) c.prefix = nPrefix.value.trim();
    return c;
  }));

  let offered = null;
  let caps = new Map();
  return {
    node: forms,
    /** Offers the members of the scenario planned now ([{ name, cap }]). */
    setMembers(members) {
      caps = new Map(members.map((m) => [m.name, m.cap]));
      const key = members.map((m) => m.name).join('\n');
      if (key === offered) return;
      offered = key;
      const sorted = members.map((m) => m.name).sort(naturalCompare).map((n) => [n, n]);
      setOptions(removeSelect, sorted, { keepGone: true });
      setOptions(capSelect, sorted, { keepGone: true });
    },
    /** The focused member (a chart click) picked in the Remove and Cap forms, its cap now shown. */
    prefill(member) {
      if (!caps.has(member)) return;
      removeSelect.value = member;
      capSelect.value = member;
      capVal.placeholder = `now ${caps.get(member)}; 0 = default`;
    },
    /** Clears every form's result line (the scenario moved on). */
    clearDone() {
      for (const l of lines) l.textContent = '';
    },
  };
}
