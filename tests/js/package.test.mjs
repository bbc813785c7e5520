// Tests of the built JS packages: the boundary's conventions hold (web/pkg-test), and the
// production files (web/pkg, web/dist) carry no test hook.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { loadPlanner, wasmPath, productionWasmPath } from '../wasm.mjs';
import { rebaseUrls } from '../../scripts/bundle-page.mjs';

const planner = await loadPlanner();
const root = new URL('../../', import.meta.url).pathname;
const HOOKS = ['debugTrap', 'runConformance', 'BenchFleet', 'crashForTest', 'testTrap', 'failNextInfoForTest', 'analyseAsObjects', 'debug_trap', 'run_conformance', 'benchfleet_'];

async function filesUnder(dir) {
  const out = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...await filesUnder(p));
    else out.push(p);
  }
  return out;
}

test('the production module and page contain no test hook', async () => {
  const files = [...await filesUnder(join(root, 'web/pkg')), ...await filesUnder(join(root, 'web/dist'))];
  assert.ok(files.some((f) => /dist\/pkg\/spate_planner_bg\.[0-9a-f]{16}\.wasm$/.test(f)));
  assert.ok(files.some((f) => f.endsWith('dist/worker.js')));
  const found = [];
  for (const f of files) {
    const text = (await readFile(f)).toString('latin1');
    for (const h of HOOKS) if (text.includes(h)) found.push(`${f}: ${h}`);
  }
  assert.deepEqual(found, []);
  // and the production module really is loadable, without them
  const prod = await loadPlanner('production');
  assert.equal(typeof prod.Planner.demo, 'function');
  assert.equal(prod.debugTrap, undefined);
  assert.equal(prod.runConformance, undefined);
  assert.equal(prod.BenchFleet, undefined);
});

test("the built dashboard's folder modules are named by their content, and every import names a file that exists", async () => {
  const dist = join(root, 'web/dist');
  const files = (await filesUnder(dist)).map((f) => f.slice(dist.length + 1)).filter((f) => f.endsWith('.js'));
  const named = files.filter((f) => /\.[0-9a-f]{16}\.js$/.test(f));
  assert.deepEqual(files.filter((f) => !named.includes(f)).sort(),
    ['app.js', 'element.js', 'embed-example.js', 'main.js', 'pkg/spate_planner.js', 'worker-start.js', 'worker.js'], 'only the entry points keep their names');
  assert.ok(named.some((f) => f.startsWith('shell/page/controller.')) && named.some((f) => f.startsWith('vendor/lit-html/lit-html.')));
  for (const f of named) {
    const hash = createHash('sha256').update(await readFile(join(dist, f))).digest('hex').slice(0, 16);
    assert.equal(f.split('.').at(-2), hash, `${f} is named by its content`);
  }
  const IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"](\.{1,2}\/[^'"]+\.js)['"]/gm;
  for (const f of files) {
    for (const m of (await readFile(join(dist, f), 'utf8')).matchAll(IMPORT)) {
      assert.ok(files.includes(join(f, '..', m[1])), `${f} imports ${m[1]}, which is not there`);
    }
  }
  // the npm package keeps the views' registration, which a bundler must not leave out
  const pkg = JSON.parse(await readFile(join(dist, 'package.json'), 'utf8'));
  assert.ok(pkg.sideEffects.some((f) => /^\.\/shell\/page\/views\.[0-9a-f]{16}\.js$/.test(f) && files.includes(f.slice(2))), pkg.sideEffects.join(' '));
});

test('the built dashboard names the wasm module and its glue by their content, and its old URL still loads them', async () => {
  const dir = join(root, 'web/dist/pkg');
  const names = await readdir(dir);
  const named = names.filter((n) => /^spate_planner(_bg)?\.[0-9a-f]{16}\.(js|wasm)$/.test(n));
  assert.equal(named.length, 2, names.join(' '));
  for (const n of named) {
    const hash = createHash('sha256').update(await readFile(join(dir, n))).digest('hex').slice(0, 16);
    assert.equal(n.split('.')[1], hash, `${n} is named by its content`);
  }
  assert.ok(!names.includes('spate_planner_bg.wasm'), 'no second copy of the module');
  const wasm = named.find((n) => n.endsWith('.wasm'));
  const glue = named.find((n) => n.endsWith('.js'));
  const worker = await readFile(join(root, 'web/dist/worker.js'), 'utf8');
  assert.ok(worker.includes(`from './pkg/${glue}'`) && worker.includes(`'./pkg/${wasm}'`), 'the worker loads the named files');
  const start = await readFile(join(root, 'web/dist/worker-start.js'), 'utf8');
  assert.ok(start.includes(`'./pkg/${wasm}'`), "the worker's entry fetches the named module");
  assert.ok((await readFile(join(dir, glue), 'utf8')).includes(`new URL('${wasm}', import.meta.url)`), "the glue's own default");
  // pkg/spate_planner.js, the URL embedders import (docs/embedding.md), re-exports the named glue
  const pkg = await import(join(dir, 'spate_planner.js'));
  await pkg.default({ module_or_path: await readFile(join(dir, wasm)) });
  const p = pkg.Planner.demo(100, 3, 1);
  assert.equal(p.info().members.length, 3);
  p.free();
});

test("the built page loads its modules as one, named by its content, which imports nothing and names the worker from the page's folder", async () => {
  const dist = join(root, 'web/dist');
  const html = await readFile(join(dist, 'index.html'), 'utf8');
  const scripts = [...html.matchAll(/<script type="module" src="([^"]+)"><\/script>/g)].map((m) => m[1]);
  assert.equal(scripts.length, 1, html);
  assert.match(scripts[0], /^page\.[0-9a-f]{16}\.js$/);
  assert.ok(!html.includes('main.js') && !html.includes('modulepreload'), 'main.js and its modules are not loaded one by one');
  const bundle = await readFile(join(dist, scripts[0]), 'utf8');
  assert.equal(createHash('sha256').update(bundle).digest('hex').slice(0, 16), scripts[0].split('.')[1]);
  // every module main.js imports is in it: none is imported, and the element and the app are defined
  assert.doesNotMatch(bundle, /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"]\.{1,2}\//m);
  assert.match(bundle, /customElements\.define\(/);
  assert.match(bundle, /new PlannerApp\(/);
  // the worker's modules are not: it loads its own
  assert.doesNotMatch(bundle, /self\.plannerEarly/);
  // a module's URLs of the page's files are made relative to the bundle, at the page's folder
  const urls = [...bundle.matchAll(/new URL\("([^"]+)", import\.meta\.url\)/g)].map((m) => m[1]).sort();
  assert.deepEqual(urls, ['./style.css', './worker-start.js', './worker-start.js']);
  for (const u of urls) await readFile(join(dist, u)); // throws when missing
});

test('bundle-page: a URL a module names relative to itself is made relative to the bundle', () => {
  const code = "a(new URL('../../worker-start.js', import.meta.url)); b(new URL(\"./x/y.css\", import.meta.url)); new URL(other, import.meta.url);";
  assert.equal(rebaseUrls(code, '/d/shell/page', '/d'),
    "a(new URL('./worker-start.js', import.meta.url)); b(new URL(\"./shell/page/x/y.css\", import.meta.url)); new URL(other, import.meta.url);");
  assert.throws(() => rebaseUrls("new URL('../../../up.js', import.meta.url)", '/d/shell/page', '/d'), /outside \/d/);
});

test('the test build carries the hooks the runners and the recovery test use', async () => {
  assert.equal(typeof planner.debugTrap, 'function');
  assert.equal(typeof planner.runConformance, 'function');
  assert.equal(typeof planner.BenchFleet, 'function');
  const worker = await readFile(join(root, 'web/dist-test/worker.js'), 'utf8');
  assert.match(worker, /ops\.testTrap = /);
});

test('the modules import nothing from env (no stray C or host symbols)', async () => {
  for (const path of [wasmPath, productionWasmPath]) {
    const mod = await WebAssembly.compile(await readFile(path));
    const modules = new Set(WebAssembly.Module.imports(mod).map((i) => i.module));
    assert.ok(!modules.has('env'), `${path} imports from env: ${[...modules].join(', ')}`);
  }
});

test('u64 crosses as decimal strings, exactly (the spec examples, 64-bit values)', () => {
  assert.equal(planner.stableHash('7', '1'), '15575724145496192045');
  assert.equal(planner.stableHashStr('7', 'w1'), '15023769660716677941');
});

test('a bad u64 is an Error with a stable code and the field', () => {
  assert.throws(() => planner.stableHash('18446744073709551616', '1'),
    (e) => e instanceof Error && e.code === 'invalid_u64' && e.path === 'seed');
  assert.throws(() => planner.stableHash('1', '-1'), (e) => e.code === 'invalid_u64' && e.path === 'value');
});

test('an unknown bench shape is an Error with a code', () => {
  assert.throws(() => new planner.BenchFleet('sideways', 10, 2), (e) => e.code === 'invalid_shape');
});

test('the conformance vectors pass through the test package', async () => {
  const results = planner.runConformance(await readFile(new URL('../vectors.json', import.meta.url), 'utf8'));
  assert.ok(results.length >= 1000);
  assert.deepEqual(results.filter((r) => !r.passed), []);
});

test('Planner: the demo loads and plans; objects are snake_case with 64-bit values as strings', () => {
  const p = planner.Planner.demo(400, 8, 1);
  const info = p.info();
  assert.equal(info.members.length, 8);
  assert.match(info.seed, /^\d+$/);
  assert.match(info.taken_at_ms, /^\d+$/);
  assert.ok(info.warnings.some((w) => w.code === 'unreadable_presence' && w.key === 'worker.worker-03'));
  const v = p.plan('');
  const lanes = v.report.members.reduce((n, m) => n + m.lanes, 0);
  assert.equal(lanes, v.report.counts.assigned);
  for (const m of v.report.members) {
    assert.ok(m.lanes <= m.cap, `${m.name}: ${m.lanes}/${m.cap}`);
    assert.match(m.load_planned, /^\d+$/);
  }
  assert.equal(v.report.moves.length, v.report.churn.moves);
  assert.ok(['user', 'leader_presence', 'spate_default'].includes(v.default_cap_source));
  assert.equal(v.assignment, undefined);
  assert.match(p.planJson(''), /^\{"format":"spate-planner-plan\/2","job":"demo"/);
  p.free();
});

test('Planner: claims, split search by owner, convergence', () => {
  const p = planner.Planner.demo(400, 8, 1);
  const all = p.claims('', null, false, 4);
  assert.equal(all.format, 'spate-planner-claims/1');
  assert.equal(all.assignment_source, 'published');
  assert.deepEqual(Object.keys(all.workers).sort(), p.info().members.map((m) => m.name).sort());
  const one = p.claims('', 'worker-01', true, 4);
  assert.deepEqual(Object.keys(one.workers), ['worker-01']);
  assert.equal(one.assignment_source, 'plan');
  const owned = p.findSplits('', 'worker-01', 1000);
  assert.ok(owned.length > 0 && owned.every((s) => s.owner === 'worker-01' || s.lease_owner === 'worker-01'));
  const c = p.converge('', 10);
  assert.equal(c.format, 'spate-planner-converge/1');
  assert.equal(c.rounds[c.rounds.length - 1].moves, 0);
  assert.equal(c.converged, true);
  assert.equal(c.verdict, `Converged: round ${c.rounds.length} moves nothing.`);
  p.free();
});

test('Planner: snapshot errors carry code, bucket and key', () => {
  const bad = '{"format":"spate-planner-snapshot/1","job":"j","taken_at_ms":0,"state":{"name":"spate_coordination_j_state","history":1,"max_age_ms":0,"entries":[{"key":"split.a","revision":1,"created_ms":0,"value":{"schema":4,"id":"a"}}]},"lease":{"name":"spate_coordination_j_lease","history":1,"max_age_ms":30000,"entries":[]}}';
  assert.throws(() => planner.Planner.fromText(bad), (e) => e instanceof Error && e.code === 'wrong_schema'
    && e.bucket === 'spate_coordination_j_state' && e.key === 'split.a');
  assert.throws(() => planner.Planner.fromText('{"format":"spate-planner-snapshot/9"}'), (e) => e.code === 'unsupported_format');
  assert.throws(() => planner.Planner.fromBytes(new Uint8Array([0xff, 0xfe])), (e) => e.code === 'not_json');
});

test('Planner.fromBytes(bytes, now): the state read as taken now (a live job\'s first state); without now, the file\'s time', () => {
  // one member whose presence was written at 1,000,000 ms with a 30 s TTL
  const text = '{"format":"spate-planner-snapshot/1","job":"j","taken_at_ms":1000000,"state":{"name":"spate_coordination_j_state","history":1,"max_age_ms":0,"entries":[]},"lease":{"name":"spate_coordination_j_lease","history":1,"max_age_ms":30000,"entries":[{"key":"worker.w1","revision":1,"created_ms":1000000,"value":{"schema":3,"nonce":"n","max_in_flight":2}}]}}';
  const bytes = new TextEncoder().encode(text);
  const asFiled = planner.Planner.fromBytes(bytes);
  const info = asFiled.info();
  assert.equal(info.taken_at_ms, '1000000');
  assert.equal(info.members[0].left_ms, '30000');
  asFiled.free();
  const now = planner.Planner.fromBytes(bytes, 1012000.6);
  const later = now.info();
  assert.equal(later.taken_at_ms, '1012000');
  assert.equal(later.members[0].left_ms, '18000', 'the presence has 12 s less left');
  now.free();
});

test('Planner: changes that do not apply or cannot be read are refused with code and path; a scenario it cannot read as a whole throws; u64 fields as strings; the handle stays usable', () => {
  const p = planner.Planner.demo(50, 3, 1);
  // the core's one policy: a change that does not apply (an unknown member, an unknown op) is
  // left out and listed with its reason, the rest planned
  const partly = p.plan('{"changes":[{"op":"set_cap","member":"nobody","cap":1},{"op":"fly"},{"op":"add_member","member":"y"}]}');
  assert.deepEqual(partly.refused.map((r) => [r.index, r.code, r.path]), [[0, 'unknown_member', 'changes[0].member'], [1, 'unknown_op', 'changes[1].op']]);
  assert.ok(partly.report.members.some((m) => m.name === 'y'));
  // a change it cannot read (a known op with a field missing, an op that is not a string) is
  // such a change too; a scenario it cannot read as a whole throws
  const unread = p.plan('{"changes":[{"op":"set_cap","member":"x"},{"op":3},{"op":"add_member","member":"z"}]}');
  assert.deepEqual(unread.refused.map((r) => [r.index, r.code, r.path]), [[0, 'invalid_change', 'changes[0]'], [1, 'invalid_change', 'changes[1]']]);
  assert.match(unread.refused[0].message, /missing field `cap`/);
  assert.ok(unread.report.members.some((m) => m.name === 'z'));
  assert.throws(() => p.plan('{"changes":{}}'), (e) => e.code === 'invalid_scenario');
  assert.throws(() => p.plan('{"default_cap":"x"}'), (e) => e.code === 'invalid_scenario');
  const v = p.plan('{"rebalance_delay_ms":"0","changes":[{"op":"add_member","member":"x","cap":2},{"op":"add_splits","count":"2","weight":"18446744073709551615","prefix":"big-"}]}');
  assert.equal(v.report.members.length, 4);
  assert.equal(v.rebalance_delay_ms, '0');
  assert.equal(v.scenario.changes[1].weight, '18446744073709551615');
  p.free();
});

test('Planner.analyse and plan cross as JSON text: the same objects as built property by property, u64 values past 2^53 exact, with and without a baseline', () => {
  const p = planner.Planner.demo(300, 7, 3);
  const big = '{"rebalance_delay_ms":"0","changes":[{"op":"add_member","member":"x","cap":2},{"op":"add_splits","count":"3","weight":"18446744073709551615","prefix":"big-"},{"op":"add_splits","count":"2","weight":"9007199254740993","prefix":"odd-"}]}';
  for (const text of ['{}', big]) {
    const want = p.analyseAsObjects(text);
    assert.deepStrictEqual(p.analyse(text), want, text);
    assert.deepStrictEqual(p.plan(text), want.view, text);
  }
  const v = p.analyse(big);
  assert.notEqual(v.baseline, null);
  assert.ok(v.view.report.moves.length > 0);
  assert.equal(v.view.scenario.changes[2].weight, '9007199254740993', 'one past 2^53, not rounded');
  const loads = v.view.report.members.map((m) => BigInt(m.load_planned));
  assert.ok(loads.some((l) => l > 2n ** 53n), 'a member planned past 2^53');
  assert.ok(v.view.report.members.every((m) => typeof m.load_planned === 'string' && typeof m.lanes === 'number'));
  p.free();
});
