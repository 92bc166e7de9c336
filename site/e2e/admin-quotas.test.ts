/**
 * `/admin/quotas` in Chromium: a Site Admin looks up a pond by slug and a user by e-mail,
 * sees each quota's override, instance default, effective value and usage, sets an override
 * in GB (a bad number refused at the field, nothing sent), sets one to unlimited, clears one
 * after a confirmation, and finds it all stored and still there after a reload. Not-found,
 * loading and failure states say so in words. A visitor is sent to sign in, a signed-in
 * non-admin gets the 404 page. On a desktop in English and a phone in German, light and dark:
 * axe finds nothing and every Tab stop shows its focus ring. Screenshots as
 * `admin-quotas-<shape>-<screen>.png` in `DT_SCREENSHOT_DIR`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Route } from 'playwright-core';
import { QuotaOverride } from '../../api/models/index.ts';
import { seedGrant, seedSharedPond } from '../../api/testing/accessFixtures.ts';
import { completeSetup, createVerifiedUser, resetRateLimits } from '../../api/testing/fixtures.ts';
import type { TestClient } from '../../api/testing/testClient.ts';
import { startTestInstance, type TestInstance } from '../../api/testing/testInstance.ts';
import { createTranslator } from '../../editor/src/i18n/translator.ts';
import { ensureSiteBuilt } from '../../scripts/build-site.ts';
import { launchChromium, openSession, SCREEN_SHAPES, type BrowserSession } from './browserSession.ts';
import { checkBothSchemes } from './screenChecks.ts';

const LOOKUP_ROUTE = '**/api/v1/admin/quotas?*';
const GIB = 1024 ** 3;
const en = createTranslator('en');

let instance: TestInstance;
let admin: TestClient;
let browser: Browser;

before(async () => {
  await ensureSiteBuilt();
  instance = await startTestInstance({ site: true });
  admin = await completeSetup(instance);
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await instance?.close();
});

async function signedInSession(client: TestClient, shape = SCREEN_SHAPES[0]!): Promise<BrowserSession> {
  const session = await openSession(browser, shape, 'admin-quotas');
  assert.ok(client.sessionCookie);
  await session.context.addCookies([{ name: 'dt_session', value: client.sessionCookie, url: instance.baseUrl }]);
  return session;
}

/** Console errors other than the 404 and 500 answers the test asks for on purpose. */
function unexpected(problems: string[]): string[] {
  return problems.filter((problem) => !/status of (404|500)/.test(problem));
}

describe('who reaches /admin/quotas', () => {
  test('a visitor is sent to sign in, with the lookup kept for afterwards', async () => {
    const direct = await fetch(`${instance.baseUrl}/admin/quotas?pond=team`, { redirect: 'manual' });
    assert.equal(direct.status, 302);
    assert.equal(direct.headers.get('location'), '/login?next=%2Fadmin%2Fquotas%3Fpond%3Dteam');
  });

  test('a signed-in user who is not Site Admin gets the 404 page', async () => {
    await resetRateLimits(instance);
    const { client } = await createVerifiedUser(instance);
    const direct = await fetch(`${instance.baseUrl}/admin/quotas`, { headers: { cookie: `dt_session=${client.sessionCookie}`, 'accept-language': 'en' } });
    assert.equal(direct.status, 404);
    const html = await direct.text();
    assert.ok(html.includes(en('notFound.title')));
    assert.ok(!html.includes(en('adminQuotas.intro')));
  });
});

describe('the Site Admin looks up, sets and clears overrides', () => {
  for (const shape of SCREEN_SHAPES) {
    test(`look up, set, clear (${shape.name})`, { timeout: 180_000 }, async () => {
      await resetRateLimits(instance);
      const owner = await createVerifiedUser(instance, { locale: shape.locale });
      const reader = await createVerifiedUser(instance);
      const pond = await seedSharedPond(owner.user.id, shape.locale === 'de' ? 'Seerosenteich' : 'Lily pond');
      await seedGrant(pond.id, { subject: { type: 'user', id: reader.user.id }, role: 'reader' });
      const session = await signedInSession(admin, shape);
      const { page, t, problems } = session;
      const card = (quota: string) => page.locator(`[data-quota="${quota}"]`);
      const fact = (quota: string, name: string) => card(quota).locator(`[data-fact="${name}"]`);
      const lookUp = async (kind: 'user' | 'pond', text: string) => {
        await page.getByRole('radio', { name: kind === 'user' ? t('adminQuotas.kindUser') : t('adminQuotas.kindPond') }).check();
        await page.getByLabel(kind === 'user' ? t('adminQuotas.userField') : t('adminQuotas.pondField')).fill(text);
        await page.getByRole('button', { name: t('adminQuotas.lookup') }).click();
      };
      try {
        // The admin navigation leads here and marks the screen.
        await session.visit(`${instance.baseUrl}/admin/site`);
        await page.getByRole('navigation', { name: t('adminNav.label') }).getByRole('link', { name: t('adminNav.quotas') }).click();
        await page.waitForURL((url) => url.pathname === '/admin/quotas');
        await page.getByRole('heading', { level: 1, name: t('adminQuotas.title') }).waitFor();
        await page.getByText(t('adminQuotas.empty')).waitFor();
        assert.equal(await page.getByRole('link', { name: t('adminNav.quotas') }).getAttribute('aria-current'), 'page');
        await checkBothSchemes(session, 'empty');

        // Not found, in words.
        await lookUp('pond', 'kein-solcher-teich');
        await page.getByText(t('adminQuotas.notFoundPond', { slug: 'kein-solcher-teich' })).waitFor();
        await checkBothSchemes(session, 'not-found');

        // Loading: the answer held back.
        let release = () => {};
        const held = new Promise<void>((resolve) => (release = resolve));
        await page.route(LOOKUP_ROUTE, async (route: Route) => {
          await held;
          await route.continue();
        });
        await lookUp('pond', pond.slug);
        await page.getByText(t('adminQuotas.loading')).waitFor();
        await checkBothSchemes(session, 'loading');
        release();
        await page.getByRole('heading', { level: 2, name: t('adminQuotas.pondHeading', { name: pond.name }) }).waitFor();
        await page.unroute(LOOKUP_ROUTE);
        assert.equal(new URL(page.url()).search, `?pond=${pond.slug}`);

        // The report: the owner and the reader hold a seat each; nothing is overridden.
        await page.getByText(t('adminQuotas.pondNote', { owner: owner.user.username })).waitFor();
        assert.equal(await fact('editors_per_pond', 'usage').innerText(), t('adminQuotas.seatsTaken', { count: 1 }));
        assert.equal(await fact('readers_per_pond', 'usage').innerText(), t('adminQuotas.seatsTaken', { count: 1 }));
        for (const quota of ['editors_per_pond', 'readers_per_pond', 'storage_bytes', 'max_file_bytes']) {
          assert.equal(await fact(quota, 'override').innerText(), t('adminQuotas.noOverride'), quota);
          assert.ok((await fact(quota, 'effective').innerText()).includes(t('adminQuotas.source.instance')), quota);
        }
        assert.equal(await fact('storage_bytes', 'default').innerText(), '5 GB');
        await checkBothSchemes(session, 'pond');

        // A bad number is refused at the field; nothing is sent.
        const storage = card('storage_bytes');
        await storage.getByLabel(t('adminQuotas.amount'), { exact: true }).fill('viel');
        await storage.getByRole('button', { name: t('adminQuotas.save') }).click();
        await storage.getByText(t('adminQuotas.problem.notNumber')).waitFor();
        assert.equal(await storage.getByLabel(t('adminQuotas.amount'), { exact: true }).getAttribute('aria-invalid'), 'true');
        assert.equal(await QuotaOverride.count({ where: { pondId: pond.id } }), 0);
        await checkBothSchemes(session, 'field-error');

        // 1.5 GB (1,5 in German) is stored as bytes and shown as what applies now.
        await storage.getByLabel(t('adminQuotas.amount'), { exact: true }).fill(shape.locale === 'de' ? '1,5' : '1.5');
        await storage.getByLabel(t('adminQuotas.unit')).selectOption('GB');
        await storage.getByRole('button', { name: t('adminQuotas.save') }).click();
        const shown = shape.locale === 'de' ? '1,5 GB' : '1.5 GB';
        await storage.getByText(t('adminQuotas.saved', { quota: t('adminQuotas.quota.storage_bytes'), value: shown })).waitFor();
        assert.equal(await fact('storage_bytes', 'override').innerText(), shown);
        assert.ok((await fact('storage_bytes', 'effective').innerText()).includes(t('adminQuotas.source.pond')));
        assert.equal((await QuotaOverride.findOne({ where: { pondId: pond.id, quota: 'storage_bytes' } }))?.value, 1.5 * GIB);

        // Unlimited is a choice of its own.
        const maxFile = card('max_file_bytes');
        await maxFile.getByRole('radio', { name: t('adminQuotas.unlimitedChoice') }).check();
        await maxFile.getByRole('button', { name: t('adminQuotas.save') }).click();
        await maxFile.getByText(t('adminQuotas.saved', { quota: t('adminQuotas.quota.max_file_bytes'), value: t('adminQuotas.unlimited') })).waitFor();
        assert.equal(await fact('max_file_bytes', 'override').innerText(), t('adminQuotas.unlimited'));
        const unlimited = await QuotaOverride.findOne({ where: { pondId: pond.id, quota: 'max_file_bytes' } });
        assert.ok(unlimited, 'an override row exists');
        assert.equal(unlimited.value, null);
        await checkBothSchemes(session, 'saved');

        // Clearing asks first; Cancel keeps it, Yes clears it.
        await storage.getByRole('button', { name: t('adminQuotas.clear') }).click();
        await storage.getByRole('button', { name: t('adminQuotas.cancel') }).click();
        assert.ok(await QuotaOverride.findOne({ where: { pondId: pond.id, quota: 'storage_bytes' } }));
        await storage.getByRole('button', { name: t('adminQuotas.clear') }).click();
        await storage.getByText(t('adminQuotas.clearQuestionPond', { value: '5 GB' })).waitFor();
        await checkBothSchemes(session, 'clear-confirm');
        await storage.getByRole('button', { name: t('adminQuotas.clearConfirm') }).click();
        await storage.getByText(t('adminQuotas.cleared', { quota: t('adminQuotas.quota.storage_bytes'), value: '5 GB' })).waitFor();
        assert.equal(await fact('storage_bytes', 'override').innerText(), t('adminQuotas.noOverride'));
        assert.equal(await QuotaOverride.findOne({ where: { pondId: pond.id, quota: 'storage_bytes' } }), null);

        // A reload shows the same pond, with what was saved.
        await session.visit(page.url());
        await page.getByRole('heading', { level: 2, name: t('adminQuotas.pondHeading', { name: pond.name }) }).waitFor();
        assert.equal(await fact('max_file_bytes', 'override').innerText(), t('adminQuotas.unlimited'));

        // A user by e-mail: their own rung, and the pond it governs.
        await lookUp('user', owner.credentials.email);
        await page.getByRole('heading', { level: 2, name: t('adminQuotas.userHeading', { name: owner.user.username }) }).waitFor();
        assert.ok((await fact('readers_per_pond', 'usage').innerText()).includes(pond.name));
        await card('editors_per_pond').getByLabel(t('adminQuotas.amountSeats'), { exact: true }).fill('3');
        await card('editors_per_pond').getByRole('button', { name: t('adminQuotas.save') }).click();
        await card('editors_per_pond').getByText(t('adminQuotas.saved', { quota: t('adminQuotas.quota.editors_per_pond'), value: '3' })).waitFor();
        assert.equal((await QuotaOverride.findOne({ where: { userId: owner.user.id, quota: 'editors_per_pond' } }))?.value, 3);
        await checkBothSchemes(session, 'user');

        // A failing lookup says so.
        await page.route(LOOKUP_ROUTE, (route: Route) => route.fulfill({ status: 500, contentType: 'application/json', body: JSON.stringify({ error: { code: 'internal_error', message: 'Boom.' } }) }));
        await lookUp('pond', pond.slug);
        await page.getByText(t('adminQuotas.loadFailed', { message: 'Boom.' })).waitFor();
        await checkBothSchemes(session, 'failed');
        await page.unroute(LOOKUP_ROUTE);
        assert.deepEqual(unexpected(problems), []);
      } finally {
        await session.context.close();
      }
    });
  }
});
