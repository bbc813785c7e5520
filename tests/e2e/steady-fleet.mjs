// A steady fleet for the Timeline's tests: every split owned and leased by a live member, the
// published assignment equal to that ownership, equal weights and caps, so the leader moves
// nothing until something happens (the demo fleet starts with unowned, queued and withheld
// splits, whose settling would blur a failover). The plan record and the job's `fp` come from a
// tiny demo snapshot of the same job (the fp is a u64: read as text, never through JSON.parse).
import { readFile, writeFile } from 'node:fs/promises';
import { cli } from './browser.mjs';

const T = 1767225600000;

/**
 * Writes the snapshot to `file`: `members` members (worker-00 …), each owning `per` splits
 * (part-000000 …). `elector`: the plan record names worker-00 as its elector, so the store names
 * Spate 0.3 (a 0.3.0 leader won the last election).
 */
export async function steadySnapshot(file, { job = 'steady', members = 6, per = 10, weight = 67108864, cap = 16, elector = false } = {}) {
  const r = await cli(['demo', '--splits', '4', '--members', '2', '--job', job, '-o', file]);
  if (r.status !== 0) throw new Error(`spate-planner demo failed: ${r.stderr}`);
  const demo = await readFile(file, 'utf8');
  const fp = /"fp":(\d+)/.exec(demo)[1];
  const fingerprint = JSON.parse(/\{"key":"plan".*\}(?=,?\s*$)/m.exec(demo)[0]).value.fingerprint;
  let revision = 0;
  const entry = (key, created, value) => `{"key":${JSON.stringify(key)},"revision":${++revision},"created_ms":${created},"value":${value}}`;
  const names = Array.from({ length: members }, (_, i) => `worker-${String(i).padStart(2, '0')}`);
  const owned = names.map((_, m) => Array.from({ length: per }, (_, j) => `part-${String(m * per + j).padStart(6, '0')}`));
  const elected = elector ? `,"elector":{"owner":"${names[0]}","nonce":"n-${names[0]}"}` : '';
  const state = [entry('plan', T - 3600000, `{"schema":3,"fingerprint":${JSON.stringify(fingerprint)},"generation":3${elected},"finality":"final","planned":${members * per},"planner_state":null,"updated_at_ms":${T - 3600000}}`)];
  const lease = [];
  owned.forEach((ids, m) => ids.forEach((id, j) => {
    state.push(entry(`spec.${id}`, T - 3500000, `{"schema":3,"id":"${id}","fp":${fp},"generation":3,"descriptor":"AAAA","weight":${weight}}`));
    state.push(entry(`split.${id}`, T - 600000, `{"schema":3,"id":"${id}","fp":${fp},"epoch":1,"status":"runnable","owner":"${names[m]}","attempts":0,"watermark":null,"state":null,"completed":false,"written_at_ms":${T - 600000}}`));
    lease.push(entry(`split.${id}`, T - 1000 - ((m * per + j) * 137) % 9000, `{"schema":3,"owner":"${names[m]}","nonce":"n-${names[m]}","epoch":1}`));
  }));
  owned.forEach((ids, m) => state.push(entry(`assign.${names[m]}`, T - 60000, `{"schema":3,"generation":3,"splits":${JSON.stringify(ids)}}`)));
  names.forEach((n) => lease.push(entry(`worker.${n}`, T - 4000, `{"schema":3,"nonce":"n-${n}","max_in_flight":${cap}}`)));
  lease.push(entry('leader', T - 3000, `{"schema":3,"owner":"${names[0]}","nonce":"n-${names[0]}","generation":3}`));
  const text = `{
  "format": "spate-planner-snapshot/1",
  "job": "${job}",
  "source": {"kind":"demo","note":"a steady fleet for the Timeline's tests"},
  "taken_at_ms": ${T},
  "state": {"history":1,"max_age_ms":0,"name":"spate_coordination_${job}_state",
    "entries": [
      ${state.join(',\n      ')}
    ]},
  "lease": {"history":1,"max_age_ms":30000,"name":"spate_coordination_${job}_lease",
    "entries": [
      ${lease.join(',\n      ')}
    ]}
}
`;
  await writeFile(file, text);
  return { file, members: names, owned };
}
