/**
 * What the browser tests share: Chromium launched as in site/e2e/setup-wizard.test.ts, the two
 * page shapes every screen is checked in (a desktop in English, a phone in German), texts from
 * the client's own catalogs, a watch for console errors (CSP violations land there), the axe
 * accessibility check on every page visited, and screenshots under `DT_SCREENSHOT_DIR`
 * (default test-output/e2e).
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type ConsoleMessage, type Page } from 'playwright-core';
import { createTranslator, type Locale, type Translate } from '../../editor/src/i18n/translator.ts';
import { expectAccessible } from './axe.ts';

const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export interface ScreenShape {
  name: string;
  locale: Locale;
  /** What the browser sends as Accept-Language: the page language follows it. */
  browserLocale: string;
  viewport: { width: number; height: number };
  isMobile: boolean;
}

export const SCREEN_SHAPES: ScreenShape[] = [
  { name: 'desktop-en', locale: 'en', browserLocale: 'en-US', viewport: { width: 1280, height: 800 }, isMobile: false },
  { name: 'phone-de', locale: 'de', browserLocale: 'de-DE', viewport: { width: 390, height: 844 }, isMobile: true },
];

/** `extraArgs`: switches one test file needs on top of ours (e.g. host resolver rules). */
export function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: [...CHROMIUM_ARGS, ...extraArgs] });
}

export interface BrowserSession {
  context: BrowserContext;
  page: Page;
  t: Translate;
  /** Console errors and uncaught exceptions seen so far. */
  problems: string[];
  /** A full-page screenshot named `<prefix>-<shape>-<name>.png`. */
  screenshot: (name: string) => Promise<void>;
  /** The screen as it is now passes the axe check (site/e2e/axe.ts); then a screenshot as above. */
  check: (name: string) => Promise<void>;
  /** Opens `url`, waits until its islands are interactive (see `waitForIslands`) and runs the axe check. */
  visit: (url: string) => Promise<void>;
}

/**
 * Waits until every Svelte island of the page has hydrated (Astro drops `ssr` then). A click
 * before that would submit the bare HTML form the browser's way, not the island's.
 */
export async function waitForIslands(page: Page): Promise<void> {
  await page.waitForFunction(() => document.querySelectorAll('astro-island[ssr]').length === 0);
}

export async function openSession(browser: Browser, shape: ScreenShape, prefix: string): Promise<BrowserSession> {
  const context = await browser.newContext({ locale: shape.browserLocale, viewport: shape.viewport, isMobile: shape.isMobile, hasTouch: shape.isMobile });
  context.setDefaultTimeout(10_000);
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (message: ConsoleMessage) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error: Error) => problems.push(`page error: ${error.message}`));
  const directory = process.env.DT_SCREENSHOT_DIR ?? fileURLToPath(new URL('../../test-output/e2e/', import.meta.url));
  mkdirSync(directory, { recursive: true });
  const screenshot = async (name: string) => {
    await page.screenshot({ path: path.join(directory, `${prefix}-${shape.name}-${name}.png`), fullPage: true });
  };
  return {
    context,
    page,
    t: createTranslator(shape.locale),
    problems,
    screenshot,
    check: async (name) => {
      await expectAccessible(page, `${prefix} ${name} (${shape.name})`);
      await screenshot(name);
    },
    visit: async (url) => {
      await page.goto(url);
      await waitForIslands(page);
      await expectAccessible(page, `${new URL(page.url()).pathname} (${shape.name})`);
    },
  };
}

/**
 * Walks the setup wizard from its first step to the Mail step: the Site Admin `ada` and the
 * instance `Testteich`. `check` runs at each step's screen (accessibility and screenshot).
 */
export async function walkSetupToMailStep(page: Page, t: Translate, check: (step: 'setup-admin' | 'setup-instance' | 'setup-mail') => Promise<void>): Promise<void> {
  await check('setup-admin');
  await page.getByLabel(t('field.username')).fill('ada');
  await page.getByLabel(t('field.email')).fill('ada@example.org');
  await page.getByLabel(t('field.displayName')).fill('Ada Lovelace');
  await page.getByLabel(t('field.password'), { exact: true }).fill('correct horse battery');
  await page.getByRole('button', { name: t('setup.admin.submit') }).click();

  await page.getByRole('heading', { name: t('setup.instance.heading') }).waitFor();
  await page.getByLabel(t('setup.instance.name')).fill('Testteich');
  await check('setup-instance');
  await page.getByRole('button', { name: t('setup.continue') }).click();

  await page.getByRole('heading', { name: t('setup.smtp.heading') }).waitFor();
  await check('setup-mail');
}
