/**
 * `/api-reference` in Chromium: open to a visitor and to a signed-in user, also while the API
 * is switched off (the default), rendered from the OpenAPI document the API serves: the
 * getting-started notes, every operation under its tag with its parameters, fields and a curl
 * example. The contents links work from the keyboard. On a desktop in English and a phone in
 * German, light and dark: axe finds nothing, every Tab stop shows its focus ring, nothing
 * sticks out sideways. Screenshots as `api-reference-<shape>-<screen>.png` in `DT_SCREENSHOT_DIR`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { buildOpenApiDocument } from '../../api/publicApi/openApiDocument.ts';
import { completeSetup, createVerifiedUser } from '../../api/testing/fixtures.ts';
import { startTestInstance, type TestInstance } from '../../api/testing/testInstance.ts';
import { ensureSiteBuilt } from '../../scripts/build-site.ts';
import { launchChromium, openSession, SCREEN_SHAPES } from './browserSession.ts';
import { checkBothSchemes } from './screenChecks.ts';

let instance: TestInstance;
let browser: Browser;

before(async () => {
  await ensureSiteBuilt();
  instance = await startTestInstance({ site: true });
  await completeSetup(instance);
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await instance?.close();
});

/** Every operation of the document is on the page as an article headed by its summary, with its method and path. */
async function expectEveryOperation(page: Page): Promise<void> {
  const document = buildOpenApiDocument({ serverUrl: instance.baseUrl });
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      const article = page.locator(`article#${operation!.operationId}`);
      assert.equal(await article.getByRole('heading', { level: 3 }).textContent(), operation!.summary);
      assert.equal(await article.locator('.method').textContent(), method.toUpperCase());
      assert.equal(await article.locator('.path').textContent(), path);
      assert.match((await article.locator('pre').textContent()) ?? '', /^curl /);
    }
  }
}

describe('/api-reference', () => {
  test('a visitor on a desktop reads it in English while the API is switched off; the contents work from the keyboard', { timeout: 120_000 }, async () => {
    const direct = await fetch(`${instance.baseUrl}/api-reference`, { headers: { 'accept-language': 'en' } });
    assert.equal(direct.status, 200);
    const session = await openSession(browser, SCREEN_SHAPES[0]!, 'api-reference');
    const { page, t, problems } = session;
    try {
      await page.goto(`${instance.baseUrl}/api-reference`);
      await page.getByRole('heading', { level: 1, name: t('apiReference.title') }).waitFor();
      await expectEveryOperation(page);
      await page.getByRole('heading', { level: 2, name: t('apiReference.start.heading') }).waitFor();
      assert.equal(await page.getByRole('link', { name: t('apiReference.token.createLink') }).getAttribute('href'), '/settings#api-tokens');
      assert.equal(await page.getByRole('link', { name: t('apiReference.openApiLink') }).getAttribute('href'), '/api/public/v1/openapi.json');
      assert.match((await page.locator('.summary dd code').first().textContent()) ?? '', new RegExp(`^${instance.baseUrl}/api/public/v1$`));

      const list = page.locator('article#getPondsByPondSlugPages');
      const limitRow = list.getByRole('row', { name: /limit/ });
      assert.match((await limitRow.textContent()) ?? '', /integer · optional · in the query/);
      assert.match((await limitRow.textContent()) ?? '', /Default: 500/);
      assert.match((await list.locator('pre').textContent()) ?? '', new RegExp(`'${instance.baseUrl}/api/public/v1/ponds/POND_SLUG/pages'`));
      assert.equal(await page.locator('article#postPondsByPondSlugPages .access').textContent(), t('apiReference.access.write'));
      await checkBothSchemes(session, 'visitor');

      // A contents link from the keyboard: focus it, press Enter, land on the operation.
      const link = page.getByRole('navigation', { name: t('apiReference.contents') }).getByRole('link', { name: 'List pages' });
      await link.focus();
      await page.keyboard.press('Enter');
      await page.waitForURL((url) => url.hash === '#getPondsByPondSlugPages');
      assert.ok(await list.isVisible());
      // An operation's error status leads to its explanation.
      await list.getByRole('link', { name: '429' }).click();
      await page.waitForURL((url) => url.hash === '#error-429');
      assert.match((await page.locator('#error-429 + dd').textContent()) ?? '', /rate_limited/);
      assert.deepEqual(problems, []);
    } finally {
      await session.context.close();
    }
  });

  test('a signed-in user on a phone reads it in German, long paths wrapped', { timeout: 120_000 }, async () => {
    const { client } = await createVerifiedUser(instance);
    const session = await openSession(browser, SCREEN_SHAPES[1]!, 'api-reference');
    const { page, t, problems } = session;
    try {
      assert.ok(client.sessionCookie);
      await session.context.addCookies([{ name: 'dt_session', value: client.sessionCookie, url: instance.baseUrl }]);
      await page.goto(`${instance.baseUrl}/api-reference`);
      await page.getByRole('heading', { level: 1, name: t('apiReference.title') }).waitFor();
      assert.equal(t('apiReference.title'), 'API-Referenz');
      await page.getByRole('heading', { level: 2, name: t('apiReference.start.heading') }).waitFor();
      assert.match((await page.locator('article#getPondsByPondSlugPages').getByRole('row', { name: /limit/ }).textContent()) ?? '', /integer · optional · in der Abfrage/);
      // Summaries stay as the routes wrote them.
      assert.equal(await page.locator('article#getPondsByPondSlugPages h3').textContent(), 'List pages');
      await checkBothSchemes(session, 'phone');
      // The longest path fits the phone's width.
      const widest = await page.locator('.operation .path').evaluateAll((paths) => Math.max(...paths.map((path) => path.getBoundingClientRect().right)));
      assert.ok(widest <= 390, `a path reaches ${widest}px on a 390px screen`);
      await page.locator('article#postPondsByPondSlugPages').scrollIntoViewIfNeeded();
      await session.screenshot('phone-operation');
      assert.deepEqual(problems, []);
    } finally {
      await session.context.close();
    }
  });
});
