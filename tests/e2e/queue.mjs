#!/usr/bin/env node
// Runs every browser test file (`node --test FILE`, one process per file), from one queue, in a
// number of slots that can grow: one at first, and one more each time the process gets SIGUSR2
// (scripts/test sends it once the native tests, which share the machine with the first slot, have
// ended). The files with the most tests go first, so that the last ones to end are short. Each
// file's output is printed whole when it ends, then the files that failed and the totals; the
// exit status is 1 when any file failed.
//   node tests/e2e/queue.mjs [FILE ...]   (default: tests/e2e/*.test.mjs)
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const dir = new URL('.', import.meta.url).pathname;
const files = process.argv.length > 2 ? process.argv.slice(2)
  : readdirSync(dir).filter((f) => f.endsWith('.test.mjs')).map((f) => join(dir, f));

/** How many tests a file declares: the order's measure of its length. */
const testsIn = (file) => readFileSync(file, 'utf8').match(/^\s*test\(/gm)?.length ?? 0;
const queue = files.map((f) => ({ file: f, tests: testsIn(f) }))
  .sort((a, b) => b.tests - a.tests || a.file.localeCompare(b.file));

// a file's own run reports as a run of its own, even when this runs under `node --test`
const env = { ...process.env };
delete env.NODE_TEST_CONTEXT;

const failed = [];
const totals = { pass: 0, fail: 0 };
let running = 0;
let done;
const finished = new Promise((resolve) => { done = resolve; });

/** Runs one file; its output is printed whole when it ends. */
function runFile({ file }) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(process.execPath, ['--test', file], { stdio: ['ignore', 'pipe', 'pipe'], env });
    let out = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { out += d; });
    child.on('close', (code, signal) => {
      for (const k of ['pass', 'fail']) totals[k] += Number(out.match(new RegExp(`^# ${k} (\\d+)$`, 'm'))?.[1] ?? 0);
      const name = relative(process.cwd(), file);
      if (code !== 0) failed.push(`${name} (exit ${code ?? signal})`);
      process.stdout.write(`\n--- ${name}: exit ${code ?? signal}, ${((Date.now() - started) / 1000).toFixed(1)} s\n${out}`);
      resolve();
    });
  });
}

/** One slot: takes the next file until the queue is empty. */
async function slot() {
  running++;
  for (let next = queue.shift(); next; next = queue.shift()) await runFile(next);
  if (--running === 0) done();
}

process.on('SIGUSR2', () => { if (queue.length) slot(); });
slot();
await finished;
console.log(`\n# browser test files: ${files.length}, tests passed ${totals.pass}, failed ${totals.fail}`);
if (failed.length) {
  console.log(`# files that failed:\n${failed.map((f) => `#   ${f}`).join('\n')}`);
  process.exit(1);
}
