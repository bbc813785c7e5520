#!/usr/bin/env node
// Regenerates the user guide's screenshots (docs/images/) from the built dashboard.
//   node tests/e2e/screenshots.mjs
import { join } from 'node:path';
import { startServer, launch, ready, repoRoot } from './browser.mjs';

const out = join(repoRoot, 'docs/images');
const chrome = await launch();
const server = await startServer([]);
const page = await chrome.browser.newPage({ viewport: { width: 1400, height: 900 } });
await page.goto(server.url);
let n = await ready(page);
await page.screenshot({ path: join(out, 'overview.png') });

await page.locator('input[aria-label="worker-gone-7f3a within the rebalance delay"]').check();
n = await ready(page, n);
await page.locator('input[aria-label="new member name"]').fill('worker-new');
await page.locator('input[aria-label="new member cap"]').fill('128');
await page.locator('form.change', { hasText: 'Add a member' }).locator('button').click();
n = await ready(page, n);
await page.locator('.figures').screenshot({ path: join(out, 'figures-whatif.png') });
await page.locator('.whatif').screenshot({ path: join(out, 'whatif.png') });
await page.locator('.fleet').screenshot({ path: join(out, 'fleet.png') });
await page.locator('.moves').screenshot({ path: join(out, 'moves.png') });
await page.locator('button', { hasText: 'Run rounds' }).click();
await page.waitForSelector('.convergence [data-rounds]');
await page.locator('.convergence').screenshot({ path: join(out, 'convergence.png') });
await chrome.close();
server.stop();
console.log(`screenshots written to ${out}`);
