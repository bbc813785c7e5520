// Type-checks the declarations of the wasm package (web/pkg/spate_planner.d.ts) and of the
// element (web/dist/element.d.ts) against the way the dashboard and embedders use them.
// Checked by `tsc --noEmit`; not run. (What the module really returns is checked by
// generated/checked.ts, written by generate.mjs.)
import init, { Planner, stableHash, type PlanView, type FleetInfo, type U64, type PlannerError, type Scenario, type SimulationDocument } from '../../web/pkg/spate_planner.js';
import type { PlanChangeDetail, SpatePlannerElement } from '../../web/dist/element.js';

export async function example(bytes: Uint8Array): Promise<string> {
  await init();
  const p: Planner = Planner.fromBytes(bytes);
  const info: FleetInfo = p.info();
  const seed: U64 = info.seed;
  const scenario: Scenario = { format: 'spate-planner-scenario/1', default_cap: 8, changes: [{ op: 'remove_member', member: 'w1', departure: 'graceful' }] };
  const view: PlanView = p.plan(JSON.stringify(scenario));
  const heaviest: string = view.report.members.reduce((a, m) => (BigInt(m.load_planned) > BigInt(a.load_planned) ? m : a)).name;
  const why: 'unowned' | 'owner_gone' | 'over_cap' | 'improve' | 'queued' | 'lease_not_current' | 'previous' | 'record_owner' | undefined = view.report.moves[0]?.reason;
  const claims = p.claims('', heaviest, true, 4);
  const first = Object.values(claims.claims)[0]?.map((c) => `${c.kind}:${c.action}:${c.split}`) ?? [];
  const rounds = p.converge('', 10).rounds.map((r) => r.moves);
  const fatal = view.findings.filter((f) => f.level === 'fatal').map((f) => f.message);
  try {
    Planner.fromText('nope');
  } catch (e) {
    const err = e as PlannerError;
    console.log(err.code, err.bucket ?? '', err.key ?? '', err.path ?? '');
  }
  const sim: SimulationDocument = JSON.parse(p.simulate('{"events":[{"at_ms":0,"op":"crash_leader"}]}'));
  const idle = Object.values(sim.splits).flat().filter((i) => i.phase === 'idle').reduce((s, i) => s + i.to_ms - i.from_ms, 0);
  const crashed = sim.timeline.flatMap((e) => (e.event === 'crashed' ? [e.member] : []));
  console.log(idle === sim.figures.idle_split_ms, crashed, sim.figures.recovery_ms ?? 'not recovered');
  p.free();
  return `${seed} ${why} ${first.length} ${rounds.length} ${fatal.length} ${view.default_cap_source} ${stableHash('7', '1')}`;
}

export function listen(el: SpatePlannerElement): void {
  el.addEventListener('plan-change', (e: CustomEvent<PlanChangeDetail>) => console.log(e.detail.moves, e.detail.worst?.name));
  el.scenario = '{"changes":[]}';
}
