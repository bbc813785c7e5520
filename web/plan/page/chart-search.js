// The fleet chart's member search: a member by name (or part of it), or by a split id (the core's
// split search): the member the plan assigns the split to, else the one that owns it now. The
// member found is asked for (controller.reveal): the chart shows it, folded or not, and focuses
// its row. What was found, or not, is said beside the field.
import { el, attrs, input } from '../../common/page/dom.js';
import { isSuperseded } from '../../common/shared/messages.js';

/** The members whose name is `q`, else contains it, in the report's order. */
function membersMatching(names, q) {
  if (names.includes(q)) return [q];
  return names.filter((n) => n.includes(q));
}

/** The member a split found by the core leads to: the planned one, else the owner now. */
function splitMember(line) {
  return line.planned ?? line.lease_owner ?? line.owner ?? null;
}

function splitWords(line, member) {
  const now = line.lease_owner ?? line.owner;
  if (!member) return `split ${line.id} is assigned to no member (${line.status}${line.reserved ? ', withheld' : ''}).`;
  if (line.planned) return `split ${line.id}: planned on ${line.planned}${now && now !== line.planned ? `, held now by ${now}` : ''}.`;
  return `split ${line.id} is not in the plan (${line.status}${line.reserved ? ', withheld' : ''}); its owner is ${member}.`;
}

export function memberSearch(controller) {
  const form = attrs(el('form', undefined, 'member-search'), { role: 'search', 'aria-label': 'find a member in the chart' });
  const box = input('search', { 'aria-label': 'member name or split id', placeholder: 'member or split id', autocomplete: 'off' });
  const go = el('button', 'Find');
  go.type = 'submit';
  const said = attrs(el('span', '', 'hint search-result'), { role: 'status' });
  form.append(box, go, said);
  let names = [];
  let seq = 0;

  async function find(q) {
    const mine = ++seq;
    const members = membersMatching(names, q);
    if (members.length) {
      said.textContent = members.length === 1 ? `${members[0]}.` : `${members.length} members match; showing ${members[0]}.`;
      controller.reveal(members[0]);
      return;
    }
    const lines = await controller.ask('findSplits', { query: q, limit: 20 });
    if (mine !== seq) return;
    const line = lines.find((l) => l.id === q) ?? lines[0];
    if (!line) { said.textContent = `No member or split matches ${q}.`; return; }
    const member = splitMember(line);
    said.textContent = splitWords(line, member);
    if (member && names.includes(member)) controller.reveal(member);
  }

  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const q = box.value.trim();
    if (!q) { said.textContent = 'Type a member name or a split id.'; return; }
    find(q).catch((err) => { if (!isSuperseded(err)) said.textContent = `The search failed: ${err.message} (${err.code || 'error'})`; });
  });

  return {
    node: form,
    /** The members of the plan shown. */
    plan(state) { names = state.result?.view.report.members.map((m) => m.name) ?? []; },
  };
}
