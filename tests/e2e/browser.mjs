// Shared set-up of the browser tests: the real server binary and Debian's headless Chromium.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { binary } from '../binary.mjs';

const root = new URL('../../', import.meta.url);


/** Starts `spate-planner serve` on a free port; resolves to { url, stop }. */
export function startServer(extraArgs = []) {
  return startCommand('serve', extraArgs);
}

/** Starts `spate-planner COMMAND` (serve, replay) on a free port; resolves to { url, stop }. */
export async function startCommand(command, extraArgs = []) {
  const bin = binary();
  // DASHBOARD_DIR serves web/dist from disk instead of the copy built into the binary (to try
  // page changes without rebuilding the binary)
  const dir = process.env.DASHBOARD_DIR && !extraArgs.includes('--dir') ? ['--dir', process.env.DASHBOARD_DIR] : [];
  const child = spawn(bin, [command, '--port', '0', ...dir, ...extraArgs], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/http:\/\/127\.0\.0\.1:\d+\//);
      if (m) resolve(m[0]);
    });
    child.on('exit', (code) => reject(new Error(`server exited with ${code} before listening: ${out}`)));
  });
  return { url, stop: () => child.kill() };
}

/** Launches headless Chromium; Playwright gives it a fresh, temporary profile each time. */
export async function launch() {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  return { browser, close: () => browser.close() };
}

/** The test build of the dashboard (web/dist-test: the wasm test build and the page's test hooks). */
export const testDist = process.env.TEST_DIST || new URL('web/dist-test', root).pathname;

/**
 * A page that records console errors, page errors and CSP violations.
 * options: { width, height, theme: 'light' | 'dark', touch (a phone's touch screen: taps, no hover) }.
 */
export async function watchedPage(browser, { width = 1400, height = 1000, theme = 'light', touch = false } = {}) {
  const page = await browser.newPage({ viewport: { width, height }, colorScheme: theme, acceptDownloads: true, ...(touch ? { hasTouch: true, isMobile: true } : {}) });
  const problems = [];
  // axe-core applies inline styles while it measures; those (and only those) are not the page's
  const fromAxe = (text) => page.axeRunning && /inline style|style-src-elem inline|style-src-attr inline/.test(text);
  page.on('console', (m) => { if (m.type() === 'error' && !fromAxe(m.text())) problems.push(`console: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI}`);
    });
  });
  return { page, problems };
}

export const outputDir = new URL('tests/output/', root).pathname;

/** Runs the native binary; resolves to { status, stdout, stderr }. */
export function cli(args) {
  const bin = binary();
  return new Promise((resolve) => {
    const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    child.on('error', (e) => resolve({ status: null, stdout, stderr: `${stderr}${e.message}` }));
    // 'close', not 'exit': only then has all of its output been read ('exit' can come first,
    // with stdout still empty)
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

/** How many plans the dashboard has rendered. */
export async function plans(page) {
  return Number((await page.getAttribute('spate-planner', 'data-plans')) || 0);
}

/**
 * Waits until the Timeline has drawn a run after run `after` (its `data-run` counter); resolves
 * to the run's number. A crash picked in the chart scrolls the run into view once it is drawn, so
 * a test waits for it before it clicks anything else in the tab.
 */
export async function timelineDrawn(page, after = 0) {
  await page.waitForFunction((k) => Number(document.querySelector('spate-planner').shadowRoot.querySelector('.timeline')?.dataset.run || 0) > k, after, { timeout: 120000 });
  return page.evaluate(() => Number(document.querySelector('spate-planner').shadowRoot.querySelector('.timeline').dataset.run));
}

/** Waits until the dashboard has rendered more than `after` plans; returns the new count. */
export async function ready(page, after = 0, timeout = 30000) {
  await page.waitForFunction((n) => Number(document.querySelector('spate-planner')?.dataset.plans || 0) > n, after, { timeout });
  return plans(page);
}

/** The text of a figure's last column ("plan" or "what-if"), from the All figures tab. */
export async function figure(page, name) {
  return (await page.locator(`tr[data-figure="${name}"] td`).last().textContent()).trim();
}

/** The value of a tile of the summary strip. */
export async function tile(page, key) {
  return (await page.locator(`.tile[data-tile="${key}"] .value`).textContent()).trim();
}

/** The page's message (role alert or status), or '' when there is none. */
export async function message(page) {
  const m = page.locator('.message');
  return (await m.count()) ? (await m.textContent()).trim() : '';
}

/** Applies a what-if form (`data-form` key) after filling `fields` ({ aria-label: value }). */
export async function applyForm(page, key, fields = {}) {
  const form = page.locator(`form[data-form="${key}"]`);
  for (const [label, value] of Object.entries(fields)) {
    const control = form.locator(`[aria-label="${label}"]`);
    if (await control.evaluate((e) => e.tagName === 'SELECT')) await control.selectOption(value);
    else await control.fill(value);
  }
  await form.locator('button[type=submit]').click();
}

/** Opens the what-if drawer when the element is narrow (the toggle is only shown then). */
export async function openWhatIf(page) {
  const toggle = page.locator('.drawer-toggle');
  if (await toggle.isVisible() && (await toggle.getAttribute('aria-expanded')) === 'false') await toggle.click();
}

/** True when the whole of `selector`'s first match is inside the viewport. */
export async function inView(page, selector) {
  return page.locator(selector).first().evaluate((e) => {
    const r = e.getBoundingClientRect();
    return r.height > 0 && r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth;
  });
}

export const repoRoot = root.pathname;

const axeSource = readFileSync(new URL('node_modules/axe-core/axe.min.js', root), 'utf8');

/**
 * Runs axe-core (every rule axe runs by default, best practices included) on the page, shadow
 * roots included; resolves to the violations as `rule (impact): n× target` lines.
 */
export async function axeViolations(page) {
  page.axeRunning = true;
  try {
    await page.evaluate(axeSource);
    const violations = await page.evaluate(async () => (await window.axe.run(document, { resultTypes: ['violations'] })).violations
      .map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => `${JSON.stringify(n.target)} ${n.failureSummary?.split('\n')[1] || ''}`) })));
    return violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.length}× ${v.nodes.slice(0, 3).join(' | ')}`);
  } finally {
    await page.waitForTimeout(100); // let its console messages arrive while they are still muted
    page.axeRunning = false;
  }
}

/**
 * Serves `serverArgs` (a snapshot file, say), opens `url` (relative to the server's root, e.g.
 * a `#…` link) in a watched page of `size` ({ width, height }) and waits for the first plan;
 * runs fn(page, server), then requires axe-core at 0 violations and no console error or CSP
 * violation. The page and the server end either way.
 */
export async function withServedPage(browser, serverArgs, fn, { url = '', width = 1400, height = 900, theme = 'light', touch = false } = {}) {
  const server = await startServer(serverArgs);
  const { page, problems } = await watchedPage(browser, { width, height, theme, touch });
  try {
    await page.goto(server.url + url);
    await ready(page, 0, 120000);
    await fn(page, server);
    assert.deepEqual(await axeViolations(page), []);
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
    server.stop();
  }
}
