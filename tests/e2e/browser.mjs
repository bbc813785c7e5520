// Shared set-up of the browser tests: the real server binary and Debian's headless Chromium.
import { spawn } from 'node:child_process';
import { chromium } from 'playwright-core';

const root = new URL('../../', import.meta.url);

/** Starts `spate-planner serve` on a free port; resolves to { url, stop }. */
export async function startServer(extraArgs = []) {
  const bin = new URL('target/release/spate-planner', root).pathname;
  const child = spawn(bin, ['serve', '--port', '0', ...extraArgs], {
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

/** A page that records console errors, page errors and CSP violations. */
export async function watchedPage(browser) {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 }, acceptDownloads: true });
  const problems = [];
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });
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
  const bin = new URL('target/release/spate-planner', root).pathname;
  return new Promise((resolve) => {
    const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    child.on('exit', (status) => resolve({ status, stdout, stderr }));
  });
}

/** How many plans the dashboard has rendered. */
export async function plans(page) {
  return Number((await page.getAttribute('spate-planner', 'data-plans')) || 0);
}

/** Waits until the dashboard has rendered more than `after` plans; returns the new count. */
export async function ready(page, after = 0, timeout = 30000) {
  await page.waitForFunction((n) => Number(document.querySelector('spate-planner')?.dataset.plans || 0) > n, after, { timeout });
  return plans(page);
}

/** The text of a figure's last column ("plan" or "what-if"). */
export async function figure(page, name) {
  return (await page.locator(`tr[data-figure="${name}"] td`).last().textContent()).trim();
}

export const repoRoot = root.pathname;
