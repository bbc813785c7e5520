// Shared set-up of the browser tests: the real server binary and Debian's headless Chromium.
import { spawn } from 'node:child_process';
import { chromium } from 'playwright-core';

const root = new URL('../../', import.meta.url);

/** Starts `spate-planner serve` on a free port; resolves to { url, stop }. */
export async function startServer(extraArgs = []) {
  const bin = new URL('target/release/spate-planner', root).pathname;
  const child = spawn(bin, ['serve', '--dir', new URL('web/dist', root).pathname, '--port', '0', ...extraArgs], {
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
  const page = await browser.newPage();
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
