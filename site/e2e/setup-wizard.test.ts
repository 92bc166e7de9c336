/**
 * First run in a real browser: a fresh instance redirects to the setup wizard, the wizard
 * creates the admin and the instance, the admin lands on their home page with their
 * personal pond, signs out and signs in again by username. Any console error (CSP
 * violations are reported there) fails the test, and so does a serious axe finding on any
 * screen (site/e2e/axe.ts).
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type ConsoleMessage, type Page } from 'playwright-core';
import { startTestInstance, type TestInstance } from '../../api/testing/testInstance.ts';
import { ensureSiteBuilt } from '../../scripts/build-site.ts';
import { expectAccessible } from './axe.ts';
import { waitForIslands } from './browserSession.ts';

const SCREENSHOT_DIR = fileURLToPath(new URL('../../test-output/e2e/', import.meta.url));

const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const admin = {
  username: 'ada',
  email: 'ada@example.org',
  displayName: 'Ada Lovelace',
  password: 'correct horse battery',
};

let instance: TestInstance | undefined;
let browser: Browser | undefined;

before(async () => {
  await ensureSiteBuilt();
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  instance = await startTestInstance({ site: true });
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
});

after(async () => {
  await browser?.close();
  await instance?.close();
});

/** Collects console errors and uncaught exceptions; Chromium logs CSP violations as console errors. */
function watchForPageErrors(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (message: ConsoleMessage) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error: Error) => problems.push(`page error: ${error.message}`));
  return problems;
}

async function expectHomeSignedIn(page: Page): Promise<void> {
  await page.getByRole('heading', { level: 1, name: `Hello, ${admin.displayName}` }).waitFor();
  const pond = page.locator('.pond-list > li', { hasText: 'Personal' });
  assert.equal(await pond.count(), 1, 'the personal pond is listed once');
  assert.equal(await pond.getByRole('heading').textContent(), admin.displayName);
}

test('setup wizard, home page, sign-out and sign-in in Chromium', { timeout: 60_000 }, async () => {
  assert.ok(instance && browser);
  const context = await browser.newContext({ locale: 'en-US', viewport: { width: 1024, height: 800 } });
  context.setDefaultTimeout(10_000);
  const page = await context.newPage();
  const problems = watchForPageErrors(page);

  // A fresh instance sends every page to the wizard.
  const first = await page.goto(instance.baseUrl);
  assert.equal(new URL(page.url()).pathname, '/setup');
  const csp = first?.headers()['content-security-policy'] ?? '';
  assert.match(csp, /script-src 'self'( 'sha256-[^']+')+;/, 'scripts: self plus hashes of Astro\'s inline scripts');
  assert.doesNotMatch(csp, /script-src[^;]*'unsafe-inline'/);
  assert.match(csp, /frame-ancestors 'none'/);

  const progress = page.getByRole('navigation', { name: 'Setup progress' });
  assert.match((await progress.locator('[aria-current="step"]').textContent()) ?? '', /Admin/);

  // 1 admin
  await expectAccessible(page, 'setup: admin');
  await page.getByLabel('Username').fill(admin.username);
  await page.getByLabel('E-mail address').fill(admin.email);
  await page.getByLabel('Display name').fill(admin.displayName);
  await page.getByLabel('Password').fill(admin.password);
  await page.getByRole('button', { name: 'Create account' }).click();

  // 2 instance: the base URL is prefilled with the address in use
  await page.getByRole('heading', { name: 'Describe your instance' }).waitFor();
  assert.equal(await page.getByLabel('Base URL').inputValue(), instance.baseUrl);
  await page.getByLabel('Instance name').fill('Testteich');
  await page.getByLabel('English').check();
  await expectAccessible(page, 'setup: instance');
  await page.getByRole('button', { name: 'Save and continue' }).click();

  // 3 mail: skipped
  await page.getByRole('heading', { name: 'Outgoing mail' }).waitFor();
  await expectAccessible(page, 'setup: mail');
  await page.getByRole('button', { name: 'Skip' }).click();

  // 4 registration
  await page.getByRole('heading', { name: 'Registration' }).waitFor();
  await page.getByLabel('Open: anyone can sign up').check();
  await expectAccessible(page, 'setup: registration');
  await page.getByRole('button', { name: 'Save and continue' }).click();

  // 5 done
  await page.getByRole('heading', { name: 'Ready to go' }).waitFor();
  const summary = page.locator('dl.summary');
  assert.match((await summary.textContent()) ?? '', /Testteich/);
  assert.match((await summary.textContent()) ?? '', /Not configured/);
  await expectAccessible(page, 'setup: done');
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'setup-done.png'), fullPage: true });
  await page.getByRole('button', { name: 'Finish setup' }).click();

  await page.waitForURL(`${instance.baseUrl}/`);
  await expectHomeSignedIn(page);
  assert.equal(await page.getByRole('link', { name: 'Testteich' }).count(), 1, 'the header shows the instance name');
  await expectAccessible(page, 'home, signed in');
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'home-signed-in.png'), fullPage: true });

  // The wizard is closed for good.
  await page.goto(`${instance.baseUrl}/setup`);
  assert.equal(new URL(page.url()).pathname, '/');

  // Sign out sits in the user menu; its button works once the menu's island is interactive.
  await waitForIslands(page);
  await page.locator('.user-menu-button').click();
  await page.getByRole('menuitem', { name: 'Sign out' }).click();
  await page.getByRole('heading', { level: 1, name: 'Welcome to Testteich' }).waitFor();
  await expectAccessible(page, 'home, signed out');

  // The landing page's own Sign in button (issue 35; the welcome text links there too).
  await page.getByRole('navigation', { name: 'Your account' }).getByRole('link', { name: 'Sign in' }).click();
  await page.waitForURL(`${instance.baseUrl}/login`);
  await expectAccessible(page, 'login');
  await page.getByLabel('Username or e-mail address').fill(admin.username);
  await page.getByLabel('Password').fill(admin.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${instance.baseUrl}/`);
  await expectHomeSignedIn(page);

  assert.deepEqual(problems, [], 'no console errors or CSP violations');
  await context.close();
});
