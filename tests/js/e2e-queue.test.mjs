// The browser tests' queue (tests/e2e/queue.mjs): every file runs, a failing one fails the run
// and is named, the totals add up, and a second slot (SIGUSR2) runs files side by side.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const queue = new URL('../e2e/queue.mjs', import.meta.url).pathname;

/** Runs the queue on `files`; `signal`: called with the child once it started. */
function run(files, signal) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [queue, ...files], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { out += d; });
    child.on('close', (code) => resolve({ code, out }));
    signal?.(child);
  });
}

/** A test file whose one test waits `ms`, then passes or fails; it writes when it ran to `log`. */
async function testFile(dir, name, { ms = 0, pass = true }) {
  const file = join(dir, `${name}.test.mjs`);
  await writeFile(file, `import { test } from 'node:test';
import { appendFileSync } from 'node:fs';
test('${name}', async () => {
  appendFileSync(${JSON.stringify(join(dir, 'ran'))}, '${name} start ' + Date.now() + '\\n');
  await new Promise((r) => setTimeout(r, ${ms}));
  appendFileSync(${JSON.stringify(join(dir, 'ran'))}, '${name} end ' + Date.now() + '\\n');
  if (!${pass}) throw new Error('${name} fails');
});
`);
  return file;
}

test('every file runs; a failing file fails the run and is named; the totals add up', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'spate-queue-'));
  const files = [await testFile(dir, 'good', {}), await testFile(dir, 'bad', { pass: false }), await testFile(dir, 'also-good', {})];
  const { code, out } = await run(files);
  assert.equal(code, 1);
  assert.match(out, /tests passed 2, failed 1/);
  assert.match(out, /files that failed:\n# {3}\S*bad\.test\.mjs \(exit 1\)/);
  assert.doesNotMatch(out, /files that failed:[^]*good\.test\.mjs/);
  for (const name of ['good', 'bad', 'also-good']) assert.match(out, new RegExp(`--- \\S*/${name}\\.test\\.mjs: exit`));
});

test('all passing exits 0; one slot runs one file at a time, a second slot (SIGUSR2) runs two side by side', async () => {
  const { readFile } = await import('node:fs/promises');
  const overlaps = async (signal) => {
    const dir = await mkdtemp(join(tmpdir(), 'spate-queue-'));
    const files = [await testFile(dir, 'a', { ms: 3000 }), await testFile(dir, 'b', { ms: 3000 })];
    const { code, out } = await run(files, signal?.(dir));
    assert.equal(code, 0, out);
    assert.match(out, /tests passed 2, failed 0/);
    const t = Object.fromEntries((await readFile(join(dir, 'ran'), 'utf8')).trim().split('\n')
      .map((l) => l.split(' ')).map(([n, what, at]) => [`${n} ${what}`, Number(at)]));
    return t['a start'] < t['b end'] && t['b start'] < t['a end'];
  };
  assert.equal(await overlaps(), false, 'one slot: the files ran one after the other');
  // the second slot asked for once the first file runs (the queue listens for SIGUSR2 before it
  // starts one: a signal before then would end it)
  const whenStarted = (dir) => (child) => {
    const poll = setInterval(async () => {
      const ran = await readFile(join(dir, 'ran'), 'utf8').catch(() => '');
      if (ran.includes('a start')) { clearInterval(poll); child.kill('SIGUSR2'); }
    }, 50);
    child.on('close', () => clearInterval(poll));
  };
  assert.equal(await overlaps(whenStarted), true, 'two slots: the files ran side by side');
});
