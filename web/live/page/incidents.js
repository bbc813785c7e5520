// The on-call card, first on the page while a live job is followed: the newest membership or
// leadership change (a crash, a graceful stop, a join, a restart, a cap change, a leader change)
// as the core writes it (Planner.incidents: what happened and when, what the leader does and
// when, who takes which splits, what is at risk, and whether the real fleet did what was
// predicted), and the earlier ones in a list. Every word and figure is the core's; this only
// places them, and updates each node in place (only where its text changed), so a reader's open
// details and the keyboard's focus stay where they are as the countdown moves.
import { el, attrs } from '../../common/page/dom.js';
import { changed } from '../../common/page/store.js';

/** Sets `node`'s text only when it changed. */
function text(node, value) {
  if (node.textContent !== value) node.textContent = value;
}

/** Keeps `list`'s items the strings of `items`, one `li` each, in place. */
function lines(list, items) {
  while (list.children.length > items.length) list.lastElementChild.remove();
  items.forEach((t, i) => {
    const li = list.children[i] ?? list.appendChild(el('li'));
    text(li, t);
  });
  list.hidden = items.length === 0;
}

function createCard() {
  const node = el('article', undefined, 'incident');
  const head = el('h2', undefined, 'incident-title');
  const title = el('span', undefined, 'incident-what');
  const ago = el('span', undefined, 'incident-ago');
  head.append(title, ago);
  const leader = el('p', undefined, 'incident-leader');
  const receivers = attrs(el('ul', undefined, 'incident-receivers'), { 'aria-label': 'who takes the splits' });
  const risk = attrs(el('ul', undefined, 'incident-risk'), { 'aria-label': 'at risk' });
  const recovery = attrs(el('ul', undefined, 'incident-recovery'), { 'aria-label': 'when the fleet is whole again' });
  const more = el('details', undefined, 'incident-more');
  const summary = el('summary', 'What happened; the verdict');
  const happened = el('p', undefined, 'incident-happened');
  const verdict = attrs(el('ul', undefined, 'incident-verdict'), { 'aria-label': 'what the fleet did' });
  more.append(summary, happened, verdict);
  node.append(head, leader, receivers, recovery, risk, more);
  return {
    node,
    update(i) {
      // another incident in the card: its details start closed
      if (node.dataset.id !== String(i.id)) more.open = false;
      node.dataset.phase = i.phase;
      node.dataset.kind = i.kind;
      node.dataset.id = i.id;
      text(title, i.title);
      text(ago, ` · ${i.at_text} (${i.ago_text})`);
      text(leader, i.leader);
      lines(receivers, i.receivers.map((r) => r.text));
      lines(risk, i.risk);
      lines(recovery, i.recovery);
      text(happened, i.happened);
      lines(verdict, i.verdict);
    },
  };
}

export function createIncidents() {
  const node = attrs(el('section', undefined, 'incidents'), { 'aria-label': 'Incidents' });
  const card = createCard();
  const earlier = el('details', undefined, 'incidents-earlier');
  const earlierHead = el('summary');
  const earlierList = el('ul');
  earlier.append(earlierHead, earlierList);
  node.append(card.node, earlier);
  node.hidden = true;
  return {
    node,
    update(state, prev) {
      if (!changed(prev, state, 'incidents', 'live')) return;
      // a followed job's incidents, or a replayed recording's as they stood at the moment shown
      const list = state.live ? state.incidents || [] : [];
      node.hidden = list.length === 0;
      if (!list.length) return;
      card.update(list[0]);
      const rest = list.slice(1);
      earlier.hidden = rest.length === 0;
      const when = state.live.replay ? 'in the recording up to this moment' : 'while this page was open';
      text(earlierHead, `${rest.length} earlier incident${rest.length === 1 ? '' : 's'} ${when}`);
      lines(earlierList, rest.map((i) => `${i.at_text}: ${i.title}. ${i.leader}`));
    },
  };
}
