// The declarations check of tests/ts (generate.mjs + tsc) catches a renamed field: the same
// generated values with one field renamed fail to type-check. (scripts/test runs the check
// itself on the real values.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, writeFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = new URL('../../', import.meta.url).pathname;

function tsc(project) {
  return spawnSync(join(root, 'node_modules/.bin/tsc'), ['-p', project], { encoding: 'utf8' });
}

async function check(name, edit) {
  const dir = await mkdtemp(join(root, `tests/ts/generated/${name}-`));
  try {
    const text = await readFile(join(root, 'tests/ts/generated/checked.ts'), 'utf8');
    const edited = edit(text);
    assert.notEqual(edited, text);
    await writeFile(join(dir, 'checked.ts'), edited.replace("'../../../web/", "'../../../../web/"));
    await writeFile(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { strict: true, noEmit: true, target: 'ES2022', module: 'ES2022', moduleResolution: 'bundler', lib: ['ESNext', 'DOM'] }, files: ['checked.ts'] }));
    return tsc(join(dir, 'tsconfig.json'));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

test('the generated values type-check, and a renamed or a missing field does not', async () => {
  const gen = spawnSync(process.execPath, [join(root, 'tests/ts/generate.mjs')], { encoding: 'utf8' });
  assert.equal(gen.status, 0, gen.stderr);
  const same = await check('same', (t) => `${t}\n`);
  assert.equal(same.status, 0, same.stdout);
  const renamed = await check('rename', (t) => t.replace('"load_planned"', '"load_plan"'));
  assert.equal(renamed.status, 2);
  assert.match(renamed.stdout, /'"load_plan"' does not exist in type 'MemberReport'/);
  const missing = await check('missing', (t) => t.replace(/\n "default_cap_note": "[^"]*",/, ''));
  assert.equal(missing.status, 2);
  assert.match(missing.stdout, /Property 'default_cap_note' is missing/);
});
