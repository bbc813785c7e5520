// The embedding example (docs/embedding.md): load the element, listen for plan changes.
import './element.js';

const planner = document.getElementById('embedded');
const out = document.getElementById('last-plan');
planner.addEventListener('plan-change', (e) => {
  const { moves, boundHit, counts } = e.detail;
  out.textContent = `${counts.assigned} splits assigned, ${moves} would move${boundHit ? ' (move bound hit)' : ''}`;
});
