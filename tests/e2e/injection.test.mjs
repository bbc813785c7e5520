// Text from a snapshot is only ever text: ids and names carrying HTML, script, javascript: URLs,
// very long strings and right-to-left marks render literally, run nothing, and keep the layout.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, launch, watchedPage, cli, ready, outputDir, axeViolations } from './browser.mjs';

let chrome;
before(async () => { chrome = await launch(); });
after(async () => { await chrome?.close(); });

const HOSTILE = {
  'worker-01': '<img src=x onerror=window.__pwned=1>',
  'worker-02': '\u202eevil-rtl\u202c',
  'part-000005': '<script>window.__pwned=2</script>',
  'part-000006': 'javascript:window.__pwned=3',
  'part-000007': `long-${'x'.repeat(4000)}`,
  'part-000008': '"><svg onload=window.__pwned=4>',
};

test('hostile ids and names render as text and execute nothing', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'spate-inject-'));
  const base = join(dir, 'base.json');
  assert.equal((await cli(['demo', '--splits', '60', '--members', '4', '--job', 'inject', '-o', base])).status, 0);
  let text = await readFile(base, 'utf8');
  for (const [plain, evil] of Object.entries(HOSTILE)) {
    text = text.split(plain).join(JSON.stringify(evil).slice(1, -1));
  }
  const file = join(dir, 'hostile.json');
  await writeFile(file, text);
  const server = await startServer([file]);
  try {
    const { page, problems } = await watchedPage(chrome.browser);
    await page.goto(server.url);
    await ready(page);
    // the member names are in the chart and the selects, as text
    const names = await page.locator('.chart button[data-member]').evaluateAll((gs) => gs.map((g) => g.getAttribute('data-member')));
    assert.ok(names.includes(HOSTILE['worker-01']), names.join(' | '));
    assert.ok(names.includes(HOSTILE['worker-02']));
    // the split ids in the split search, as text
    await page.locator('.tab[data-tab="splits"]').click();
    for (const id of ['part-000005', 'part-000006', 'part-000008']) {
      await page.locator('input[aria-label="search splits"]').fill(HOSTILE[id].slice(0, 12));
      await page.waitForFunction((needle) => [...document.querySelector('spate-planner').shadowRoot.querySelectorAll('.splits td')]
        .some((td) => td.textContent === needle), HOSTILE[id]);
    }
    await page.locator('input[aria-label="search splits"]').fill('long-');
    await page.waitForFunction(() => [...document.querySelector('spate-planner').shadowRoot.querySelectorAll('.splits td')]
      .some((td) => td.textContent.startsWith('long-xxxx')));
    // nothing ran, nothing was parsed as markup
    assert.equal(await page.evaluate(() => window.__pwned), undefined);
    const shadow = await page.evaluate(() => {
      const root = document.querySelector('spate-planner').shadowRoot;
      return { img: root.querySelectorAll('img').length, script: root.querySelectorAll('script').length, svgOnload: root.querySelectorAll('svg[onload]').length };
    });
    assert.deepEqual(shadow, { img: 0, script: 0, svgOnload: 0 });
    // the layout holds: no horizontal overflow of the page
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 0, `the page overflows by ${overflow}px`);
    await page.screenshot({ path: join(outputDir, 'dashboard-hostile.png'), fullPage: true });
    assert.deepEqual(await axeViolations(page), []);
    assert.deepEqual(problems, []);
    await page.close();
  } finally {
    server.stop();
  }
});
