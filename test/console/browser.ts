/**
 * The console's browser tests' shared setup: the built console must exist (a missing build fails, never skips),
 * and Debian's chromium is driven headless by playwright-core with the flags a closed network needs.
 */
import { existsSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/**
 * docs/console/ when CONSOLE_SCREENSHOTS=1 (refreshing the documented screenshots), else a temporary directory: a
 * test run does not rewrite tracked files.
 */
export const SCREENSHOTS = process.env.CONSOLE_SCREENSHOTS === '1' ? path.join(ROOT, 'docs', 'console') : path.join(os.tmpdir(), 'gateway-console-screenshots');

export function requireBuiltConsole(): void {
  if (!existsSync(path.join(ROOT, 'dist', 'console', 'index.html'))) {
    throw new Error('dist/console is missing: run `npm run build` (it builds the console with Vite) before the console tests.');
  }
}

export const CHROMIUM_FLAGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-dev-shm-usage'];

export async function launchBrowser(): Promise<Browser> {
  const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  if (!existsSync(executablePath)) {
    throw new Error(`No chromium at ${executablePath}: install Debian's chromium (apt-get install chromium; .ci/run does) or set CHROMIUM_PATH.`);
  }
  // each launch gets a fresh temporary profile (playwright's own user-data-dir), removed on close
  return chromium.launch({ executablePath, headless: true, args: CHROMIUM_FLAGS });
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/** Signs in on the console's first screen. */
export async function signIn(page: Page, origin: string, key: string): Promise<void> {
  await page.goto(`${origin}/console/`);
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Sections' }).waitFor();
}

export async function openSection(page: Page, name: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name, exact: true }).click();
  await page.getByRole('heading', { level: 1 }).first().waitFor();
}
