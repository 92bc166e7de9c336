/**
 * What the public-layer browser tests share (public-pages.test.ts, public-xss.test.ts): a real
 * instance with the site, set up through the API; making things public or private through
 * grants; regenerating documents the way the worker does; and a reader in Chromium that keeps
 * every response it saw, so a test can tell which files were fetched and from where.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { runQueuedRegeneration } from '../../api/publicPages/publicDocumentJob.ts';
import { completeSetup } from '../../api/testing/fixtures.ts';
import type { TestClient } from '../../api/testing/testClient.ts';
import { startTestInstance, type TestInstance } from '../../api/testing/testInstance.ts';
import { ensureSiteBuilt } from '../../scripts/build-site.ts';

/** Public-layer screenshots, kept for review (the brief's place for them). */
export const SHOT_DIR = process.env.DT_PUBLIC_SHOT_DIR ?? '/tmp/dt-shots/public-pages';

export const DESKTOP = { viewport: { width: 1280, height: 800 }, isMobile: false } as const;
export const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true } as const;

export interface PublicInstance {
  instance: TestInstance;
  admin: TestClient;
}

/** A fresh instance with the site, setup complete (Site Admin signed in, instance "Testteich", English). */
export async function startPublicInstance(): Promise<PublicInstance> {
  await ensureSiteBuilt();
  const instance = await startTestInstance({ site: true });
  const admin = await completeSetup(instance);
  return { instance, admin };
}

export async function createPond(admin: TestClient, name: string, slug: string): Promise<string> {
  const response = await admin.post('/ponds', { name, slug });
  assert.equal(response.status, 201, response.text);
  return response.body.id as string;
}

export async function createPage(admin: TestClient, pondId: string, body: { title: string; slug?: string; markdown?: string; parentId?: string }): Promise<{ id: string; slug: string; updatedAt: string }> {
  const response = await admin.post(`/ponds/${pondId}/pages`, body);
  assert.equal(response.status, 201, response.text);
  return { id: response.body.id as string, slug: response.body.slug as string, updatedAt: response.body.updatedAt as string };
}

/** The `public` subject may read the whole pond (`allow`), or not this one page (`deny`). */
export async function grantPublic(admin: TestClient, pondId: string, scope: { type: 'pond' } | { type: 'page'; id: string }, effect: 'allow' | 'deny' = 'allow'): Promise<void> {
  const response = await admin.post(`/ponds/${pondId}/grants`, { subject: { type: 'public' }, role: 'reader', scope, effect });
  assert.equal(response.status, 201, response.text);
}

export async function patchSettings(admin: TestClient, changes: Record<string, unknown>): Promise<void> {
  const response = await admin.patch('/admin/settings', changes);
  assert.equal(response.status, 200, response.text);
}

/** What the worker does after a change: drains the queue and regenerates what it affects. */
export async function regenerate(instance: TestInstance): Promise<void> {
  await runQueuedRegeneration({ sequelize: instance.services.sequelize, fallbackBaseUrl: instance.baseUrl }, instance.services.logger);
}

export interface SeenResponse {
  url: string;
  status: number;
}

export interface Reader {
  context: BrowserContext;
  page: Page;
  /** Every response the page received, in order. */
  responses: SeenResponse[];
  /** Every request to another origin than the instance's (none may happen). */
  foreignRequests: string[];
  /** Console errors and page errors (a CSP violation is reported as a console error). */
  problems: string[];
  screenshot: (name: string) => Promise<void>;
  close: () => Promise<void>;
}

/**
 * A browser context on the instance. Requests to other origins are recorded and refused, so
 * nothing leaves the machine and a test can assert that none were made.
 */
/** Chromium switch: every host but ours fails to resolve, so an observed foreign request goes nowhere. */
export const FOREIGN_HOSTS_UNRESOLVABLE = '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1';

/**
 * `foreignRequests: 'observed'` records requests to other origins without intercepting any:
 * routing sends every request through this process and turns the browser's cache off, which
 * a test loading hundreds of documents pays for. Such a browser must keep those requests
 * from leaving (FOREIGN_HOSTS_UNRESOLVABLE) and check the list rather than rely on a block.
 */
export async function openReader(browser: Browser, origin: string, options: Parameters<Browser['newContext']>[0] & { shotPrefix?: string; foreignRequests?: 'blocked' | 'observed' }): Promise<Reader> {
  const { shotPrefix = 'public', foreignRequests: foreignMode = 'blocked', ...contextOptions } = options;
  const context = await browser.newContext(contextOptions);
  context.setDefaultTimeout(15_000);
  const foreignRequests: string[] = [];
  const isOwn = (url: string) => url.startsWith(`${origin}/`) || url.startsWith('data:');
  if (foreignMode === 'observed') {
    context.on('request', (request) => {
      if (!isOwn(request.url())) foreignRequests.push(request.url());
    });
  } else {
    await context.route('**/*', (route) => {
      const url = route.request().url();
      if (isOwn(url)) return route.continue();
      foreignRequests.push(url);
      return route.abort('blockedbyclient');
    });
  }
  const page = await context.newPage();
  const responses: SeenResponse[] = [];
  const problems: string[] = [];
  page.on('response', (response) => responses.push({ url: response.url(), status: response.status() }));
  page.on('console', (message) => {
    // A failed load is in `responses` with its status; a test asserts the ones it cares about.
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) problems.push(`console: ${message.text()}${message.location().url ? ` (${message.location().url})` : ''}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  mkdirSync(SHOT_DIR, { recursive: true });
  return {
    context,
    page,
    responses,
    foreignRequests,
    problems,
    screenshot: async (name) => {
      await page.screenshot({ path: path.join(SHOT_DIR, `${shotPrefix}-${name}.png`), fullPage: true });
    },
    close: () => context.close(),
  };
}
