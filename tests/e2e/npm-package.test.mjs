// The dashboard as an npm package: `npm pack web/dist` gives a tarball that a console built
// with a bundler installs and uses. A small Vite app imports 'spate-planner-dashboard/element',
// its TypeScript sees the element's and the planner's types, Vite finds the worker, the
// stylesheet and the wasm file, and the built app runs in Chromium under the strict CSP.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtemp, writeFile, readdir, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, launch, watchedPage, ready, repoRoot, axeViolations } from './browser.mjs';

let chrome;
let app;
before(async () => {
  chrome = await launch();
  app = await mkdtemp(join(tmpdir(), 'spate-console-'));
});
after(async () => { await chrome?.close(); });

function run(cmd, args, cwd) {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8' });
  assert.equal(r.status, 0, `${cmd} ${args.join(' ')}: ${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

const FILES = {
  'package.json': JSON.stringify({ name: 'ops-console', private: true, type: 'module' }),
  'index.html': `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Ops console</title><link rel="icon" href="data:,">
<script type="module" src="/main.ts"></script></head>
<body><main><h1>Ops console</h1><p id="last">waiting</p><spate-planner demo-splits="400" demo-members="9" theme="dark"></spate-planner></main></body></html>
`,
  'main.ts': `import 'spate-planner-dashboard/element';
import type { PlanChangeDetail } from 'spate-planner-dashboard/element';
import type { PlanView } from 'spate-planner-dashboard/pkg';

const el = document.querySelector('spate-planner')!;
el.addEventListener('plan-change', (e: CustomEvent<PlanChangeDetail>) => {
  const worst: string = e.detail.worst?.name ?? 'none';
  document.getElementById('last')!.textContent = \`\${e.detail.job}: \${e.detail.moves} moves, heaviest \${worst}\`;
});
export type Shown = PlanView['report']['members'][number]['load_planned'];
`,
  'tsconfig.json': JSON.stringify({ compilerOptions: { strict: true, noEmit: true, target: 'ES2022', module: 'ESNext', moduleResolution: 'bundler', lib: ['ESNext', 'DOM'], skipLibCheck: false }, files: ['main.ts'] }),
  'vite.config.js': "export default { logLevel: 'warn', worker: { format: 'es' }, build: { outDir: 'dist' } };\n",
};

test('npm pack gives a package that a Vite console installs, type-checks, bundles and runs', async () => {
  const packed = await mkdtemp(join(tmpdir(), 'spate-pack-'));
  const name = run('npm', ['pack', join(repoRoot, 'web/dist'), '--pack-destination', packed, '--silent'], repoRoot).trim().split('\n').pop();
  assert.match(name, /^spate-planner-dashboard-\d+\.\d+\.\d+\.tgz$/);
  const listing = run('tar', ['-tzf', join(packed, name)], packed);
  for (const f of ['package/element.js', 'package/element.d.ts', 'package/worker.js', 'package/pkg/spate_planner.js', 'package/pkg/spate_planner.d.ts', 'package/style.css']) {
    assert.ok(listing.includes(f), `${f} is not in the package`);
  }
  // the folders' modules, the module and its glue, named by their content (scripts/hash-names.mjs)
  assert.match(listing, /^package\/shell\/page\/client\.[0-9a-f]{16}\.js$/m);
  assert.match(listing, /^package\/timeline\/worker\/simulate\.[0-9a-f]{16}\.js$/m);
  assert.match(listing, /^package\/pkg\/spate_planner_bg\.[0-9a-f]{16}\.wasm$/m);
  assert.match(listing, /^package\/pkg\/spate_planner\.[0-9a-f]{16}\.js$/m);
  assert.ok(!listing.includes('debug'), 'no test hook in the package');
  for (const [f, text] of Object.entries(FILES)) await writeFile(join(app, f), text);
  run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--silent', join(packed, name)], app);
  run(join(repoRoot, 'node_modules/.bin/tsc'), ['-p', join(app, 'tsconfig.json')], app);
  const { build } = await import(join(repoRoot, 'node_modules/vite/dist/node/index.js'));
  await build({ root: app, configFile: join(app, 'vite.config.js') });
  const assets = await readdir(join(app, 'dist/assets'));
  assert.ok(assets.some((f) => f.endsWith('.wasm')), assets.join(' '));
  assert.ok(assets.some((f) => f.endsWith('.css')), assets.join(' '));
  // served as a console would serve it, from its own origin, under the dashboard's CSP
  await mkdir(join(app, 'dist'), { recursive: true });
  const server = await startServer(['--dir', join(app, 'dist')]);
  try {
    const { page, problems } = await watchedPage(chrome.browser, { width: 1200, theme: 'light' });
    const requests = [];
    page.on('request', (r) => requests.push(r.url()));
    await page.goto(server.url);
    await ready(page);
    assert.match(await page.locator('#last').textContent(), /^demo: \d+ moves, heaviest worker-\d+$/);
    assert.equal(await page.locator('.chart button[data-member]').count(), 9);
    const bg = await page.locator('.planner').evaluate((e) => getComputedStyle(e).backgroundColor);
    assert.equal(bg, 'rgb(11, 14, 18)', 'theme="dark" applies: the stylesheet was found');
    const origin = new URL(server.url).origin;
    assert.deepEqual(requests.filter((u) => !u.startsWith(origin) && !u.startsWith('blob:') && !u.startsWith('data:')), []);
    assert.deepEqual(await axeViolations(page), []);
    assert.deepEqual(problems, []);
    await page.close();
  } finally {
    server.stop();
  }
});
