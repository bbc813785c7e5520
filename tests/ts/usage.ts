// Type-checks the generated declarations of the wasm package (web/pkg/spate_planner.d.ts)
// against the way the dashboard and embedders use it. Checked by `tsc --noEmit`; not run.
import init, { Planner, runConformance, stableHash, type PlanView, type Info, type U64, type PlannerError } from '../../web/pkg/spate_planner.js';

export async function example(bytes: Uint8Array): Promise<string> {
  await init();
  const p: Planner = Planner.fromBytes(bytes);
  const info: Info = p.info();
  const seed: U64 = info.seed;
  const view: PlanView = p.plan('{"changes":[]}', 8);
  const heaviest: string = view.members.reduce((a, m) => (BigInt(m.loadPlanned) > BigInt(a.loadPlanned) ? m : a)).name;
  const firstMove = view.moves[0];
  const why: 'unowned' | 'owner_gone' | 'over_cap' | 'improve' | 'queued' | undefined = firstMove?.reason;
  const claims = p.claims('', 8, heaviest, 4).map((c) => `${c.kind}:${c.action}:${c.id}`);
  const rounds = p.converge('', 8, 10).map((r) => r.moves);
  const cases = runConformance('{"format":"spate-conformance/1","cases":[]}').filter((c) => !c.passed).length;
  try {
    Planner.fromText('nope');
  } catch (e) {
    const err = e as PlannerError;
    console.log(err.code, err.bucket ?? '', err.key ?? '', err.path ?? '');
  }
  p.free();
  return `${seed} ${why} ${claims.length} ${rounds.length} ${cases} ${stableHash('7', '1')}`;
}
