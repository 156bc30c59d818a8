import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContextOptions, type Page } from 'playwright-core';

/** Debian's chromium (test/setup-machine.sh installs it); SWARM_CHROMIUM names another binary. */
const CHROMIUM = process.env.SWARM_CHROMIUM ?? '/usr/bin/chromium';

/** Where browser tests leave screenshots (one folder per test file). */
export const ARTIFACTS = process.env.SWARM_TEST_ARTIFACTS ?? fileURLToPath(new URL('../.artifacts/', import.meta.url));

export interface TestBrowser {
  readonly browser: Browser;
  /** A fresh page (own context) at 1400×900; `errors` collects the page's uncaught errors. */
  page(options?: BrowserContextOptions): Promise<{ page: Page; errors: string[] }>;
  /** Saves a full-window screenshot as `<folder>/<name>.png` and returns its path. */
  screenshot(page: Page, name: string): Promise<string>;
  close(): Promise<void>;
}

/**
 * `page.goto`, again when Chromium aborts the load with ERR_NETWORK_CHANGED: other test files add and
 * remove engine bridges while this one runs, and Chromium drops a navigation on any interface change.
 */
export async function gotoPage(page: Page, url: string): Promise<void> {
  const outcome = await navigate(page, url);
  if (outcome !== 'loaded') throw new Error(outcome);
}

/** How Chromium reports a load it dropped: the error itself, or (through Playwright's client-certificate proxy) the switch to its error page. */
const DROPPED_LOAD = /ERR_NETWORK_CHANGED|interrupted by another navigation to "chrome-error:/;

/** Like `gotoPage`, for a load that may be refused: `'loaded'`, or the message Chromium gave up with. */
export async function navigate(page: Page, url: string): Promise<string> {
  for (let attempt = 1; ; attempt++) {
    try {
      await page.goto(url);
      return 'loaded';
    } catch (error) {
      const message = String((error as Error).message);
      if (attempt >= 5 || !DROPPED_LOAD.test(message)) return message;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

/** Headless Chromium driven by playwright-core; `folder` names this file's artifact folder. */
export async function startBrowser(folder: string): Promise<TestBrowser> {
  if (!existsSync(CHROMIUM))
    throw new Error(`no browser at ${CHROMIUM}: run 'bash test/setup-machine.sh' (Debian's chromium) or set SWARM_CHROMIUM`);
  // Root needs --no-sandbox; the rest keeps a shared 2-core machine quiet.
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
  const dir = join(ARTIFACTS, folder);
  mkdirSync(dir, { recursive: true });
  return {
    browser,
    page: async (options = {}) => {
      const context = await browser.newContext({ viewport: { width: 1400, height: 900 }, ...options });
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      return { page, errors };
    },
    screenshot: async (page, name) => {
      const path = join(dir, `${name}.png`);
      // Chromium sometimes cannot capture a page that is still settling (a net error page on a busy
      // machine: "Unable to capture screenshot"); a moment later it can.
      for (let attempt = 1; ; attempt++) {
        try {
          await page.screenshot({ path });
          return path;
        } catch (error) {
          if (attempt >= 3 || !/Unable to capture screenshot/.test(String(error))) throw error;
          await new Promise((resolve) => setTimeout(resolve, 250));
        }
      }
    },
    close: () => browser.close(),
  };
}
