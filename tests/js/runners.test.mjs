// Both conformance runners (native binary and wasm under Node) on real files: they pass the
// shared vectors, report a tampered case with its first difference, and exit 1.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, writeFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { binary } from '../binary.mjs';

const root = new URL('../../', import.meta.url).pathname;
const vectors = join(root, 'tests/vectors.json');
const runners = {
  native: (files) => spawnSync(binary(), ['conformance', ...files], { encoding: 'utf8' }),
  wasm: (files) => spawnSync(process.execPath, [join(root, 'tests/conformance/run.mjs'), ...files], { encoding: 'utf8' }),
};

async function tampered() {
  const dir = await mkdtemp(join(tmpdir(), 'spate-vectors-'));
  const text = await readFile(vectors, 'utf8');
  // Change one expected hash (the first hash_u64 case's) by editing its digits in the text,
  // so that no JSON round trip rounds the other numbers.
  const m = text.match(/"expect":\{"hash":(\d+)\}/);
  const wrong = (BigInt(m[1]) ^ 1n).toString();
  const file = join(dir, 'tampered.json');
  await writeFile(file, text.replace(m[0], `"expect":{"hash":${wrong}}`));
  const bad = join(dir, 'bad.json');
  await writeFile(bad, '{"format":"spate-conformance/2","cases":[]}');
  return { dir, file, bad, wrong, right: m[1] };
}

for (const [name, run] of Object.entries(runners)) {
  test(`${name} runner passes the shared vectors`, () => {
    const r = run([vectors]);
    assert.equal(r.status, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /^1220 passed, 0 failed$/m);
  });

  test(`${name} runner reports a wrong expectation and exits 1`, async () => {
    const t = await tampered();
    try {
      const r = run([t.file, t.bad]);
      assert.equal(r.status, 1);
      assert.match(r.stdout, new RegExp(`FAIL hash-u64-0 \\(hash_u64\\): first difference \\$\\.hash: expected ${t.wrong}, got ${t.right}`));
      assert.match(r.stdout, /FAIL .*bad\.json: .*spate-conformance\/1/);
      assert.match(r.stdout, /^1219 passed, 2 failed$/m);
    } finally {
      await rm(t.dir, { recursive: true, force: true });
    }
  });
}
