// The Timeline's configuration: each knob for configuration A (Spate's defaults prefilled; the
// lease duration is the snapshot's lease TTL) and, when comparing, B (a knob left as A follows
// A; one changed is marked). A value the core refuses marks its input with the reason.
import { el, attrs, button, input, select } from '../../common/page/dom.js';
import { FIELDS, FIELD, fieldIn, effective, setField, setOverride, readInput, inputText, emptyTimeline, otherRelease } from '../shared/script.js';

const UNIT = { ms: ' (s)', count: '', choice: '' };

/** The field a script error names (`config.rebalance_delay_ms`, `until_ms`), or null. */
export function fieldOfPath(path) {
  const key = String(path || '').replace(/^(config|data_plane)\./, '');
  return FIELD[key] ? key : null;
}

function configInput(key, which) {
  const f = FIELD[key];
  if (f.unit === 'choice') return attrs(select(f.choices, `${which}: ${f.label}`), { 'data-field': key, 'data-config': which });
  const type = key === 'seed' ? 'text' : 'number';
  return input(type, {
    step: f.unit === 'ms' ? 'any' : '1', inputmode: key === 'seed' ? 'numeric' : null,
    'aria-label': `${which}: ${f.label}${UNIT[f.unit]}`, 'data-field': key, 'data-config': which,
  });
}

function configTable(controller, report) {
  const t = el('table', undefined, 'tl-config');
  const head = el('tr');
  const colB = attrs(el('th', 'B'), { scope: 'col' });
  head.append(attrs(el('th', 'setting'), { scope: 'col' }), attrs(el('th', 'A'), { scope: 'col' }), colB);
  const thead = el('thead');
  thead.append(head);
  const body = el('tbody');
  const cells = {};
  for (const f of FIELDS) {
    const tr = attrs(el('tr'), { 'data-field': f.key });
    const a = configInput(f.key, 'A');
    const b = configInput(f.key, 'B');
    const tdA = el('td');
    const tdB = el('td', undefined, 'tl-b');
    tdA.append(a);
    tdB.append(b);
    tr.append(attrs(el('th', `${f.label}${UNIT[f.unit]}`), { scope: 'row' }), tdA, tdB);
    body.append(tr);
    cells[f.key] = { a, b, tdB };
    a.addEventListener('change', () => report(() => {
      const tl = controller.state.timeline;
      controller.setTimeline({ ...tl, script: setField(tl.script, f.key, readInput(f.key, a.value)) }, `Timeline: A's ${f.label} set.`);
    }));
    b.addEventListener('change', () => report(() => {
      const tl = controller.state.timeline;
      // a choice B makes as A's is no override (B follows A)
      const choice = f.unit === 'choice';
      const value = choice ? (b.value === String(effective(tl.script, f.key, controller.state.simDefaults)) ? null : b.value) : readInput(f.key, b.value);
      controller.setTimeline({ ...tl, b: setOverride(tl.b, f.key, value) }, `Timeline: B's ${f.label} set.`);
    }));
  }
  t.append(thead, body);
  return { node: t, cells, colB };
}

export function setValue(control, text) {
  if (!control.matches(':focus') && control.value !== text) control.value = text;
}

export function createTimelineConfig(ctx) {
  const { controller } = ctx;
  const node = attrs(el('div', undefined, 'tl-settings'), { role: 'group', 'aria-labelledby': 'tl-config-title' });
  const title = attrs(el('h3', 'Configuration'), { id: 'tl-config-title' });
  const error = attrs(el('p', '', 'form-error'), { role: 'alert' });
  const report = (fn) => {
    error.textContent = '';
    try { fn(); } catch (e) { error.textContent = `${e.message} (${e.code})`; }
  };
  const table = configTable(controller, report);
  const compare = input('checkbox', { 'aria-describedby': 'tl-compare-hint' });
  const compareLabel = el('label', undefined, 'check-field');
  compareLabel.append(compare, el('span', ' Compare with a second configuration (B)'));
  compare.addEventListener('change', () => {
    const t = controller.state.timeline;
    controller.setTimeline({ ...t, b: compare.checked ? { rebalance_delay_ms: 0 } : null },
      compare.checked ? 'Timeline: comparing with B (rebalance delay 0 s).' : 'Timeline: one configuration.');
  });
  const hint = attrs(el('p', "B starts as A with no rebalance delay; change any of its settings. Both run the same events. To see what upgrading (or not) does to the same events, compare the releases.", 'hint'), { id: 'tl-compare-hint' });
  // B as A on the other Spate release: "0.1 vs 0.3, same crash"
  const releases = button('Compare releases', () => {
    const t = controller.state.timeline;
    const other = otherRelease(effective(t.script, 'rules', controller.state.simDefaults));
    controller.setTimeline({ ...t, b: { rules: other } }, `Timeline: comparing with B on Spate ${other}.`);
  }, undefined, 'Compare releases: configuration B as A, on the other Spate release (0.1 or 0.3)');
  const reset = button("Spate's defaults", () => {
    const t = controller.state.timeline;
    controller.setTimeline({ ...emptyTimeline(), script: { events: t.script.events } }, "Timeline: Spate's defaults, no comparison.");
  }, undefined, "Back to Spate's defaults (the events stay)");
  const tools = el('div', undefined, 'row');
  tools.append(compareLabel, releases, reset);
  node.append(title, tools, hint, table.node, error);
  return {
    node,
    /** error: the current run's failure (one naming a setting marks its input), or null. */
    update(state, err) {
      const t = state.timeline;
      compare.checked = t.b !== null;
      table.colB.hidden = t.b === null;
      const bad = err ? fieldOfPath(err.path) : null;
      for (const f of FIELDS) {
        const { a, b, tdB } = table.cells[f.key];
        const valueA = effective(t.script, f.key, state.simDefaults);
        setValue(a, inputText(f.key, valueA));
        const over = t.b && Object.hasOwn(t.b, f.key);
        setValue(b, inputText(f.key, over ? t.b[f.key] : valueA));
        a.disabled = typeof fieldIn(t.script, f.key) === 'object' && fieldIn(t.script, f.key) !== null;
        tdB.hidden = t.b === null;
        tdB.classList.toggle('overridden', Boolean(over));
        const badA = bad === f.key && (err.which === 'A' || !over);
        const badB = bad === f.key && err.which === 'B' && over;
        a.setAttribute('aria-invalid', String(badA));
        b.setAttribute('aria-invalid', String(Boolean(badB)));
        a.title = badA ? err.message : '';
        b.title = badB ? err.message : '';
      }
    },
  };
}
